#!/bin/sh
# Sampled addresses in steps of exactly one cache line are not a strided
# traversal: a walk in 32-byte steps (two accesses a line) samples at one
# line a step, its samples landing on the accesses that miss.  The rule says
# so (inconclusive, not fired); a walk in 256-byte steps still fires it.
# The sampler sees a walk's order only if a pass over the array outlasts
# its period (4 ms) several times: consecutive samples then fall in one
# pass, in order.  A walk over 64 MiB at memory bandwidth takes about 2 ms
# a pass and its samples land anywhere (no evidence of order: quiet, as a
# random reader would be); the wide walk here reads 256 MiB, each read
# waiting for the one before (DEP 1), about 15 ms a pass.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog stride
"$MA" run -j -o "$MA_TMP/line.json" -- "$MA_TMP/stride" 32 240 64 >/dev/null ||
	fail "memadvise run exited $?"
"$MA" run -j -o "$MA_TMP/wide.json" -- "$MA_TMP/stride" 256 60 256 1 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/line.json" "$MA_TMP/wide.json" <<'PY' || exit 1
import json, sys
def look(path):
    d = json.load(open(path))
    a = d.get("data_addresses") or {"ips": []}
    f = [f for f in d["findings"] if f["id"] == "strided-traversal"]
    top = max(a["ips"], key=lambda i: i["samples"]) if a["ips"] else {}
    return (f[0]["status"] if f else "quiet"), top.get("stride_bytes"), top.get("samples", 0)
st, stride, n = look(sys.argv[1])
st2, stride2, n2 = look(sys.argv[2])
ok = st != "fired" and st2 == "fired" and abs(stride2 or 0) == 256
print("[%s: 32-byte steps: %s (sampled stride %s, %d samples); 256-byte steps: %s "
      "(sampled stride %s, %d samples)]" % ("Success" if ok else "Failed", st, stride, n, st2,
                                            stride2, n2))
sys.exit(0 if ok else 1)
PY
pass "a stride of one line does not fire strided-traversal; a wider one does"
