#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memadvise changes no system-wide setting: /sys/kernel/rcu_expedited reads
# as before after every run, whatever it was, and the option that once set
# it is refused.
. "$MA_TOP/tests/lib.sh"
need_root
k=/sys/kernel/rcu_expedited
[ -r $k ] && [ -w $k ] || skip "$k is not writable here"
old=$(cat $k)
trap 'echo "$old" > $k' EXIT
for v in 0 1; do
	echo $v > $k || skip "cannot write $k"
	"$MA" -vv run -o /dev/null -- true 2> "$MA_TMP/plain.$v" || fail "memadvise run exited $? with $k at $v"
	[ "$(cat $k)" = $v ] || fail "$k reads $(cat $k) after a run, was $v"
done
"$MA" run --expedite-rcu -o /dev/null -- true 2> "$MA_TMP/opt"
rc=$?
[ $rc -eq 2 ] || fail "--expedite-rcu: exit $rc, not 2"
grep -q "^error:" "$MA_TMP/opt" || fail "--expedite-rcu: no error: line ($(head -n 1 "$MA_TMP/opt"))"
if command -v strace >/dev/null; then
	strace -f -e trace=openat -o "$MA_TMP/st" "$MA" run -o /dev/null -- true >/dev/null 2>&1
	! grep -q rcu_expedited "$MA_TMP/st" || fail "a run opened $k: $(grep rcu_expedited "$MA_TMP/st" | head -n 1)"
fi
pass "$k untouched by runs (at 0 and at 1), --expedite-rcu refused"
