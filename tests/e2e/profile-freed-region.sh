#!/bin/sh
# A buffer freed before the program exits is still a region of the report:
# the snapshot of the memory map taken while it lived holds it, even when
# it was merged with a neighbouring mapping that outlives it.  Its faults
# are its own, and the faulting site names it.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog freed_buffer
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/freed_buffer" >/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profile"]
regs = p["regions"]
big = [i for i, r in enumerate(regs) if r["kind"] == "anon" and r["size"] >= 64 << 20]
r = regs[big[0]] if big else {}
site = max(p["page_faults"]["sites"], key=lambda s: s["count"])
ok = (len(big) == 1 and not r["at_exit"] and r["faults"] >= 16384 * 9 // 10
      and site["region"] == big[0])
print("[%s: buffer region %s (at exit %s, %s faults); top site %s region %s]" % (
    "Success" if ok else "Failed", (r.get("start"), r.get("size")), r.get("at_exit"),
    r.get("faults"), site["function"], site["region"]))
sys.exit(0 if ok else 1)
PY
pass "a buffer freed before exit is a region with its faults"
