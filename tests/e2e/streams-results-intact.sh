#!/bin/sh
# The address streams must not change what the program computes.  The
# kernel's x86 uprobes take a VEX instruction whose opcode byte is a jump's
# (vpcmpeqb 74, vmovdqu to memory 7f) for that jump and skip it; such
# instructions are listed with status kernel_emulates and never probed.
# A scan whose hot loop is made of them prints the same checksum under
# memadvise (streams on, a large budget) as without it, and the scalar
# loop next to it is still probed.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog vec_scan
"$MA_TMP/vec_scan" 32 200 >"$MA_TMP/native.txt"
rc=$?
[ $rc -eq 77 ] && skip "the CPU has no AVX2"
[ $rc -eq 0 ] || fail "vec_scan exited $rc"
"$MA" run -j -o "$MA_TMP/r.json" --stream-budget 25 -- "$MA_TMP/vec_scan" 32 200 \
	>"$MA_TMP/under.txt" || fail "memadvise run exited $?"
cmp -s "$MA_TMP/native.txt" "$MA_TMP/under.txt" ||
	fail "the program's output changed under memadvise: $(cat "$MA_TMP/native.txt") natively, $(tail -1 "$MA_TMP/under.txt") under it"
python3 - "$MA_TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d.get("address_streams")
if not s or not s.get("bursts"):
    print("[Skipped: no stream burst in this run]"); sys.exit(2)
ips = s["ips"]
vex = [x for x in ips if x["instruction"].startswith(("vpcmpeqb", "vmovdqu"))]
# the scalar loop runs one round in eight: probed, though a burst may miss it
ok = (vex and all(x["status"] == "kernel_emulates" for x in vex) and
      any(x["status"] in ("ok", "no_hits") for x in ips))
print("[%s: %d bursts; %s]" % ("Success" if ok else "Failed", s["bursts"],
      "; ".join("%s: %s" % (x["instruction"], x["status"]) for x in ips)))
sys.exit(0 if ok else 1)
PY
rc=$?
[ $rc -eq 2 ] && skip "no stream burst in this run"
[ $rc -eq 0 ] || exit 1
pass "the program's output is the same under memadvise; the VEX jump-opcode instructions are not probed"
