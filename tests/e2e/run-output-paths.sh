#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# -o and --sarif paths are checked before the program starts: a path that
# cannot be written is an error with a hint, exit 2, and the program does not
# run.  A write that fails afterwards (a full disk: /dev/full) is exit 2
# naming the file, and the report still reaches stdout.
. "$MA_TOP/tests/lib.sh"
cd "$MA_TMP" || fail "no scratch directory"
mkdir dir
prog="touch marker; exit 3"

bad_path() { # OPTION PATH
	rm -f marker
	"$MA" run "$1" "$2" -- sh -c "$prog" > out 2> err
	rc=$?
	[ $rc -eq 2 ] || fail "$1 $2: exit $rc, expected 2: $(cat err)"
	[ -e marker ] && fail "$1 $2: the program ran"
	grep -q "^error: .*$2" err || fail "$1 $2: no error naming the path: $(cat err)"
	grep -q '^hint: ' err || fail "$1 $2: no hint: $(cat err)"
}
for opt in -o --sarif; do
	bad_path "$opt" "$MA_TMP/nonexistent/d/r.json"
	bad_path "$opt" "$MA_TMP/dir"
done
touch immutable
if chattr +i immutable 2> /dev/null; then
	bad_path -o "$MA_TMP/immutable"
	chattr -i immutable
fi

# A full disk after the run: exit 2, the file named, the report on stdout.
"$MA" run --sarif /dev/full -o r.txt -- sh -c "$prog" > out 2> err
rc=$?
[ $rc -eq 2 ] || fail "--sarif /dev/full: exit $rc, expected 2"
grep -q "^error: .*'/dev/full'.*No space left" err || fail "--sarif /dev/full: $(cat err)"
grep -q 'exited with status 3' r.txt || fail "--sarif /dev/full: the report was not written to -o"
"$MA" run -o /dev/full -- sh -c "$prog" > out 2> err
rc=$?
[ $rc -eq 2 ] || fail "-o /dev/full: exit $rc, expected 2"
grep -q "^error: .*'/dev/full'.*No space left" err || fail "-o /dev/full: $(cat err)"
grep -q 'exited with status 3' out || fail "-o /dev/full: the report did not go to stdout"

# A good path: the program's status passes through, an old report is replaced.
head -c 100000 /dev/zero > r.json
"$MA" run -j -o r.json --sarif s.sarif -- sh -c "$prog" > out 2> err
rc=$?
[ $rc -eq 3 ] || fail "good paths: exit $rc, expected the program's 3: $(cat err)"
json r.json "d['target']['exit_code']" > /dev/null 2>&1 || fail "r.json is not the report"
json s.sarif "d['version']" | grep -q 2.1.0 || fail "s.sarif is not a SARIF log"
pass "unwritable -o/--sarif paths stop before the program; write errors give exit 2"
