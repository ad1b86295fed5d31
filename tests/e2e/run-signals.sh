#!/bin/sh
# Ctrl-C (SIGINT to memadvise) is passed to the target and everything measured is still reported.
. "$MA_TOP/tests/lib.sh"
build_prog touch_pages
"$MA" run -j -o "$MA_TMP/r.json" -e page_faults,task_clock -- "$MA_TMP/touch_pages" 2000 20000 &
mpid=$!
wait_child_stat $mpid touch_pages "\$10" 2000 || fail "the target did not touch its pages within 30 s"
kill -INT $mpid
wait $mpid
rc=$?
[ $rc -eq 130 ] || fail "exit status $rc, expected 130 (target killed by SIGINT)"
[ "$(json "$MA_TMP/r.json" "d['target']['interrupted']")" = True ] || fail "not marked interrupted"
pf=$(counter "$MA_TMP/r.json" page_faults)
python3 -c "import sys; sys.exit(0 if float('$pf') >= 2000 else 1)" || fail "page_faults=$pf lost"
# The target's own signal death passes through.
"$MA" run -e page_faults -- sh -c 'kill -SEGV $$' > "$MA_TMP/o.txt"
rc=$?
[ $rc -eq 139 ] || fail "SIGSEGV death gave $rc, expected 139"
grep -q "killed by signal 11" "$MA_TMP/o.txt" || fail "report does not name the signal"
# The program starts with no signal blocked or caught, and ignores what the
# caller ignored (but SIGINT, SIGTERM, SIGPIPE and glibc's internal 32 and 33,
# which memadvise resets).
"$MA" run -o /dev/null -e task_clock -- cat /proc/self/status > "$MA_TMP/st.txt" || fail "cat under memadvise failed"
python3 - "$MA_TMP/st.txt" "$(grep ^SigIgn: /proc/$$/status)" <<'PY' || fail "the program's signal state: $(grep -E '^Sig(Blk|Ign|Cgt)' "$MA_TMP/st.txt" | tr '\n' ' ')"
import sys
st = dict(l.split(":", 1) for l in open(sys.argv[1]) if l.startswith("Sig"))
mine = int(sys.argv[2].split(":", 1)[1], 16)
# SIGINT, SIGPIPE, SIGTERM, and glibc's own 32 and 33
reset = (1 << 1) | (1 << 12) | (1 << 14) | (1 << 31) | (1 << 32)
sys.exit(0 if int(st["SigBlk"], 16) == 0 and int(st["SigCgt"], 16) == 0
         and int(st["SigIgn"], 16) == mine & ~reset else 1)
PY
pass "SIGINT forwarded and reported (page_faults=$pf); signal deaths pass through"
