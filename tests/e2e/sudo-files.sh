#!/bin/sh
# Under sudo, memadvise works for the invoking user: its output files are
# that user's and opened with that user's rights (a link the user planted is
# not followed by root), -p attaches only to that user's processes unless
# --any-user, calibrate's workloads run as that user, and --sim's valgrind
# (run as that user) can write its results.
. "$MA_TOP/tests/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "no 'nobody' user"
uid=$(id -u nobody) gid=$(id -g nobody)
as_nobody() { SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=nobody "$@"; }
chmod 755 "$MA_TMP"
home="$MA_TMP/home" && mkdir "$home" && chown "$uid:$gid" "$home"

# -o and --sarif: created, owned by the user
as_nobody "$MA" run -o "$home/r.txt" --sarif "$home/r.sarif" -e page_faults -- true ||
	fail "run -o into the user's directory exited $?"
for f in r.txt r.sarif; do
	[ "$(stat -c %u:%g "$home/$f")" = "$uid:$gid" ] ||
		fail "$f is owned by $(stat -c %u:%g "$home/$f"), expected $uid:$gid"
done

# a link the user planted to a file only root may write: not followed
secret="$MA_TMP/secret" && echo keep > "$secret" && chmod 600 "$secret"
ln -s "$secret" "$home/link.txt"
as_nobody "$MA" run -o "$home/link.txt" -e page_faults -- sh -c "touch '$home/ran'" 2> "$MA_TMP/err"
rc=$?
[ $rc -eq 2 ] || fail "writing through the user's link exited $rc, expected 2"
[ "$(cat "$secret")" = keep ] || fail "root wrote through the user's link"
[ ! -e "$home/ran" ] || fail "the program ran although the output could not be opened"
grep -q '^hint:' "$MA_TMP/err" || fail "no hint for the refused output"

# -p: the user's processes only, unless --any-user
sleep 20 & spid=$!
as_nobody "$MA" run -p $spid -d 200ms > /dev/null 2> "$MA_TMP/err"
rc=$?
[ $rc -eq 2 ] || { kill $spid; fail "-p on root's process under sudo exited $rc, expected 2"; }
grep -q 'any-user' "$MA_TMP/err" || { kill $spid; fail "the refusal does not name --any-user"; }
as_nobody "$MA" run --any-user -p $spid -d 200ms > /dev/null 2>&1 ||
	{ kill $spid; fail "--any-user -p exited $?"; }
kill $spid 2>/dev/null

# calibrate: the example directory's programs run as the user, not as root
ex="$MA_TMP/ex" && mkdir "$ex"
for p in list_walk matmul false_sharing atomic_inc bandwidth matrix_init page_conflict tlb; do
	printf '#!/bin/sh\nid -u >> %s/ids\nexit 1\n' "$home" > "$ex/$p"
	chmod 755 "$ex/$p"
done
timeout 120 env SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=nobody \
	"$MA" calibrate --quick --no-save -e "$ex" > /dev/null 2>&1
[ -s "$home/ids" ] || fail "calibrate ran none of the example programs"
! grep -qv "^$uid\$" "$home/ids" || fail "calibrate ran examples as uid $(sort -u "$home/ids" | tr '\n' ' ')"

# --sim: valgrind, as the user, writes its results
if command -v valgrind > /dev/null 2>&1; then
	as_nobody "$MA" run --sim -j -o "$home/sim.json" -- /bin/true > /dev/null 2>&1 ||
		fail "run --sim under sudo exited $?"
	grep -q 'cachegrind wrote no results' "$home/sim.json" && fail "valgrind could not write its results"
	json "$home/sim.json" "d['simulation']['totals']['Dr']" |
		grep -Eq '^[1-9][0-9]*$' || fail "no simulated references in the report"
fi
pass "outputs owned by uid $uid, no link followed, -p limited, calibrate and --sim ran as the user"
