#!/bin/sh
# A target that takes many signals (a shell whose children exit: a SIGCHLD
# each) would stop at every one while traced for its exit-stop.  After ten,
# tracing ends: the run goes on, the exit status and the measurements are
# still there, and a provenance note says the target was not stopped at its
# exit.  A program that takes no signal keeps its exit-stop and gets no note.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog touch_pages
"$MA" run -j -o "$MA_TMP/storm.json" -e page_faults -- \
	sh -c 'i=0; while [ $i -lt 40 ]; do /bin/true; i=$((i+1)); done; exit 3' >/dev/null
rc=$?
[ $rc -eq 3 ] || fail "exit status $rc, expected the shell's 3"
"$MA" run -j -o "$MA_TMP/quiet.json" -e page_faults -- "$MA_TMP/touch_pages" 2000 20000 >/dev/null ||
	fail "memadvise run (touch_pages) exited $?"
python3 - "$MA_TMP/storm.json" "$MA_TMP/quiet.json" <<'PY' || exit 1
import json, sys
def note(path):
    d = json.load(open(path))
    n = [p["detail"] for p in d["provenance"] if p["what"] == "target" and "signals" in p["detail"]]
    return d, n
d, n = note(sys.argv[1])
pf = [e for e in d["events"] if e["name"] == "page_faults"]
ok = bool(n) and "took" in n[0] and pf and pf[0].get("value", 0) > 0 and d["target"]["exit_code"] == 3
print("[%s: shell of 40 commands: note %s, page_faults %s]" % ("Success" if ok else "Failed", n,
      pf[0].get("value") if pf else None))
q, qn = note(sys.argv[2])
ok2 = not qn
print("[%s: a program with no signals: note %s]" % ("Success" if ok2 else "Failed", qn))
sys.exit(0 if ok and ok2 else 1)
PY
pass "a target taking many signals is no longer traced, and says so; one taking none keeps its exit-stop"
