#!/bin/sh
# run --sim: cachegrind with the pinned geometry gives per-line D1 misses;
# the column-walking inner loop of a naive matmul is the top line, the
# program's exit status passes through, and no file is left behind.
. "$MA_TOP/tests/lib.sh"
need_cmd valgrind
build_prog matmul
tmp="$MA_TMP/simtmp"
mkdir -p "$tmp"
TMPDIR="$tmp" "$MA" run --sim -j -o "$MA_TMP/r.json" -- "$MA_TMP/matmul" 200 7 >/dev/null
rc=$?
[ "$rc" -eq 7 ] || fail "exit status $rc, expected the program's 7"
[ -z "$(ls -A "$tmp")" ] || fail "files left behind in TMPDIR: $(ls "$tmp")"
python3 - "$MA_TMP/r.json" "$MA_TOP/tests/e2e/progs/matmul.c" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
s = d.get("simulation")
if s is None:
    print("[Failed: no simulation section: %s]" % d.get("provenance")); sys.exit(1)
hot = [n for n, l in enumerate(open(sys.argv[2]), 1) if "/* HOT */" in l][0]
top = s["lines"][0]
ok = (s["tier"] == "simulation" and top["file"].endswith("matmul.c") and top["line"] == hot
      and top["d1_misses"] > 0 and s["caches"]["D1"]["size"] > 0 and s["l1d_miss_ratio"] > 0)
print("[%s: top simulated line %s:%d with %d D1 misses (hot line %d), L1D miss ratio %.3f, D1 %d B %d-way]" % (
    "Success" if ok else "Failed", top["file"].split("/")[-1], top["line"], top["d1_misses"],
    hot, s["l1d_miss_ratio"], s["caches"]["D1"]["size"], s["caches"]["D1"]["ways"]))
sys.exit(0 if ok else 1)
PY
