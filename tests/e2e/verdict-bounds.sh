#!/bin/sh
# The verdict names what bounds the run: a getppid() loop is kernel-bound, a
# multiply-add recurrence compute-bound, nanosleep idle, a pointer chase over
# 128 MiB (four times the 32 MiB L3 of the test machine) memory-bound, and
# four threads on one mutex lock-bound.  Each runs 1.5 s (the sleeper 0.5 s);
# time the threads spent runnable but preempted (other processes on the same
# CPUs) must not count as idle.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog bounds
for m in syscall:kernel compute:compute sleep:idle walk:memory lock:locks; do
	mode=${m%%:*}
	want=${m#*:}
	secs=1.5
	[ "$mode" = sleep ] && secs=0.5
	"$MA" run -j -o "$MA_TMP/$mode.json" -- "$MA_TMP/bounds" "$mode" "$secs" >/dev/null 2>&1 ||
		fail "memadvise run on bounds $mode exited $?"
	got=$(json "$MA_TMP/$mode.json" "d['verdict']['bound']")
	# on a busy host a 1.5 s loop may get under 50 data-address samples:
	# user code (memory and compute not told apart) is then the right answer
	if [ "$got" = "user code" ] && { [ "$want" = compute ] || [ "$want" = memory ]; } &&
		json "$MA_TMP/$mode.json" "d['verdict']['missing']" | grep -q 'fewer than 50'; then
		echo "bounds $mode: too few data-address samples on this host to tell $want"
		continue
	fi
	[ "$got" = "$want" ] ||
		fail "bounds $mode: verdict $got, expected $want: $(json "$MA_TMP/$mode.json" "d['verdict']['summary']")"
	tier=$(json "$MA_TMP/$mode.json" "d['verdict']['tier']")
	[ -n "$tier" ] && [ "$tier" != None ] || fail "bounds $mode: the verdict names no tier"
done
"$MA" run -- "$MA_TMP/bounds" sleep 0.2 >"$MA_TMP/sleep.txt" 2>&1 || fail "text run exited $?"
# the text report opens with the verdict: before the counters
v=$(grep -n '^Verdict: idle-bound' "$MA_TMP/sleep.txt" | cut -d: -f1)
c=$(grep -n '^COUNTER' "$MA_TMP/sleep.txt" | cut -d: -f1)
[ -n "$v" ] && [ -n "$c" ] && [ "$v" -lt "$c" ] || fail "the text report does not open with the verdict"
pass "kernel, compute, idle, memory and locks named from their tiers"
