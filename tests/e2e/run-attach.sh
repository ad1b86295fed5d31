#!/bin/sh
# -p PID: attach to a running process, measure for -d, detach and leave it running.
. "$MA_TOP/tests/lib.sh"
build_prog threads_fork
sleep 30 &
spid=$!
"$MA" run -j -o "$MA_TMP/r.json" -p $spid -d 300ms -e task_clock,context_switches ||
	{ kill $spid; fail "memadvise run -p exited $?"; }
kill -0 $spid 2>/dev/null || fail "the attached process did not survive the detach"
kill $spid
[ "$(json "$MA_TMP/r.json" "d['target']['attached']")" = True ] || fail "target.attached is not true"
[ "$(json "$MA_TMP/r.json" "d['target']['pid']")" = "$spid" ] || fail "wrong pid in report"
# A process that faults while attached: its faults are counted.
"$MA_TMP/threads_fork" 1 20000 &
tpid=$!
"$MA" run -j -o "$MA_TMP/r2.json" -p $tpid -e page_faults || fail "attach to a busy process failed"
wait $tpid
[ "$(json "$MA_TMP/r2.json" "d['target']['exited']")" = True ] || fail "did not notice the exit"
pass "attach, measure, detach"
