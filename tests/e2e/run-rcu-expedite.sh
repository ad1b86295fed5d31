#!/bin/sh
# The one system setting 'memadvise run' touches: /sys/kernel/rcu_expedited
# is 1 only while its first per-task event opens, when it read 0; a 1 set
# by somebody else is left alone; either way it reads as before afterwards.
. "$MA_TOP/tests/lib.sh"
need_root
k=/sys/kernel/rcu_expedited
[ -r $k ] && [ -w $k ] || skip "$k is not writable here"
old=$(cat $k)
trap 'echo "$old" > $k' EXIT
for v in 0 1; do
	echo $v > $k || skip "cannot write $k"
	"$MA" -vv run -o /dev/null -- true 2> "$MA_TMP/err.$v" || fail "memadvise run exited $? with $k at $v"
	[ "$(cat $k)" = $v ] || fail "$k reads $(cat $k) after a run, was $v"
done
grep -q "RCU grace periods expedited" "$MA_TMP/err.0" ||
	fail "$k at 0: not expedited ($(grep -c . "$MA_TMP/err.0") lines of -vv output)"
! grep -q "RCU grace periods expedited" "$MA_TMP/err.1" ||
	fail "$k at 1: memadvise took it for its own"
exit 0
