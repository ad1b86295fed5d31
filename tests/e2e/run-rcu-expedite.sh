#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memadvise changes no system-wide setting unless asked.  Without
# --expedite-rcu, /sys/kernel/rcu_expedited is never touched.  With it, the
# setting is 1 only while the first per-task event opens, when it read 0; a
# 1 set by somebody else is left alone; it reads as before after every run,
# also when memadvise is killed at a random moment (a watchdog restores it).
. "$MA_TOP/tests/lib.sh"
need_root
k=/sys/kernel/rcu_expedited
[ -r $k ] && [ -w $k ] || skip "$k is not writable here"
old=$(cat $k)
trap 'echo "$old" > $k' EXIT
for v in 0 1; do
	echo $v > $k || skip "cannot write $k"
	"$MA" -vv run -o /dev/null -- true 2> "$MA_TMP/plain.$v" || fail "memadvise run exited $? with $k at $v"
	"$MA" -vv run --expedite-rcu -o /dev/null -- true 2> "$MA_TMP/err.$v" ||
		fail "memadvise run --expedite-rcu exited $? with $k at $v"
	[ "$(cat $k)" = $v ] || fail "$k reads $(cat $k) after a run, was $v"
	! grep -q "RCU grace periods expedited" "$MA_TMP/plain.$v" ||
		fail "$k at $v: expedited without --expedite-rcu"
done
grep -q "RCU grace periods expedited" "$MA_TMP/err.0" ||
	fail "$k at 0: not expedited with --expedite-rcu ($(grep -c . "$MA_TMP/err.0") lines of -vv output)"
! grep -q "RCU grace periods expedited" "$MA_TMP/err.1" ||
	fail "$k at 1: memadvise took it for its own"
echo 0 > $k
if command -v strace >/dev/null; then
	# killed right between setting 1 and setting 0 back: the watchdog restores it
	strace -f -e trace=pwrite64 -e inject=pwrite64:signal=KILL:when=2 -o "$MA_TMP/st" \
		"$MA" run --expedite-rcu -o /dev/null -- sleep 0.3 >/dev/null 2>&1
	grep -q 'pwrite64([0-9]*, "1", 1, 0) *= 1' "$MA_TMP/st" ||
		fail "strace saw no write of 1: $(head -n 3 "$MA_TMP/st" | tr '\n' ' ')"
	t=0
	while [ "$(cat $k)" != 0 ] && [ $t -lt 20 ]; do sleep 0.05; t=$((t + 1)); done
	[ "$(cat $k)" = 0 ] || fail "$k left at 1: memadvise killed after setting it, the watchdog did not restore it"
	killed="killed between the two writes, and "
fi
i=0
while [ $i -lt 20 ]; do
	"$MA" run --expedite-rcu -o /dev/null -- sleep 0.2 >/dev/null 2>&1 &
	pid=$!
	sleep "0.0$((i % 10))$((i / 10))"	# 1-19 ms: around the change
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	t=0
	while [ "$(cat $k)" != 0 ] && [ $t -lt 20 ]; do sleep 0.05; t=$((t + 1)); done
	[ "$(cat $k)" = 0 ] || fail "$k left at 1 after memadvise was killed (round $i)"
	i=$((i + 1))
done
pass "$k untouched without --expedite-rcu; with it, as before after every run, ${killed:-}after 20 kills"
