#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The simulation tier of 'memadvise check' (cachegrind, geometry pinned in
# the budget file): the naive matrix multiply fails an L1d budget that the
# transposed one holds; misses are attributed to the multiply's function
# and to a source line; two runs give identical numbers; too few simulated
# instructions is exit 2, never a pass.  (The whole run's counts are not
# compared between runs: matmul prints its own wall time, and formatting a
# different number takes a few more or fewer instructions.)
. "$MA_TOP/tests/lib.sh"
need_cmd valgrind
mm="$EXAMPLES/matmul"
[ -x "$mm" ] || skip "examples/bin/matmul not built"
b="$MA_TMP/budget.yaml"
cat > "$b" <<'EOB'
version: 1
geometry:
  I1: 32768,8,64
  D1: 32768,8,64
  LL: 8M,16,64
workloads:
  - name: matmul
    limits:
      - metric: l1d_mpki
        max: 40
      - metric: instructions
        max: 1e12
      - metric: ll_misses
        max: 1e9
      - metric: branch_misses
        max: 1e9
      - function: mm_naive
        metric: l1d_misses
        max: 1e12
      - function: mm_naive
        metric: instructions
        max: 1e12
      - function: mm_naive
        metric: ll_misses
        max: 1e12
      - function: mm_naive
        metric: branch_misses
        max: 1e12
EOB
# the hottest line of mm_naive, as a per-line budget
line=$(awk '/void mm_naive/{f=1} f && /\+=/{print NR; exit}' "$MA_TOP/examples/matmul.c")
cat >> "$b" <<EOB
      - line: matmul.c:$line
        metric: l1d_misses
        max: 1000
EOB
run() { # variant out.json
	"$MA" check -j -b "$b" -- "$mm" --variant "$1" --size 128 > "$2" 2> "$2.err"
}
run naive "$MA_TMP/n1.json"
rc=$?
[ $rc -eq 1 ] || fail "naive: exit $rc, expected 1: $(tail -n 3 "$MA_TMP/n1.json.err")"
v=$(json "$MA_TMP/n1.json" "[c['verdict'] for c in d['checks'] if c['name']=='matmul: l1d_mpki'][0]")
[ "$v" = fail ] || fail "naive: the l1d_mpki budget is '$v', expected fail"
naive=$(json "$MA_TMP/n1.json" "[c['measured'] for c in d['checks'] if c['name']=='matmul: l1d_mpki'][0]")
tier=$(json "$MA_TMP/n1.json" "d['checks'][0]['tier']")
[ "$tier" = simulation ] || fail "the tier is '$tier', expected simulation"
fn=$(json "$MA_TMP/n1.json" "[c['measured'] for c in d['checks'] if c['kind']=='function'][0]")
# the multiply does n^3 = 2 M iterations with a miss on every mul2 load
python3 -c "import sys; sys.exit(not (1.5e6 < $fn < 2.6e6))" ||
	fail "l1d_misses in mm_naive is $fn, expected about 2.1 M (one per inner iteration)"
run naive "$MA_TMP/n2.json" || true
python3 - "$MA_TMP/n1.json" "$MA_TMP/n2.json" <<'PY' || fail "two simulation runs gave different numbers"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ma = [(c["name"], c["measured"]) for c in a["checks"] if c["kind"] == "function"]
mb = [(c["name"], c["measured"]) for c in b["checks"] if c["kind"] == "function"]
sys.exit(len(ma) != 4 or ma != mb or a["checks"][-1] != b["checks"][-1])
PY
lv=$(json "$MA_TMP/n1.json" "[c['measured'] for c in d['checks'] if c['kind']=='line'][0]")
python3 -c "import sys; sys.exit(not ($lv > 0.9 * $fn))" ||
	fail "line matmul.c:$line has $lv L1d misses, expected most of mm_naive's $fn"
# the whole-run limits only (mm_naive does not run in the transposed variant)
head -n 16 "$b" > "$b.new" && mv "$b.new" "$b"
grep -q function "$b" && fail "the budget for the transposed run still has function limits"
run transposed "$MA_TMP/t.json" ||
	fail "transposed: exit $?, expected 0: $(json "$MA_TMP/t.json" "[c['detail'] for c in d['checks'] if c['verdict']!='pass']")"
trans=$(json "$MA_TMP/t.json" "[c['measured'] for c in d['checks'] if c['name']=='matmul: l1d_mpki'][0]")
# too little simulated: exit 2 with the reason (a small program will do)
sed -i 's/^    limits:/    min_instructions: 1e12\n    limits:/' "$b"
"$MA" check -j -b "$b" -- /bin/true > "$MA_TMP/few.json" 2> "$MA_TMP/few.err"
rc=$?
[ $rc -eq 2 ] || fail "min_instructions not met: exit $rc, expected 2"
grep -q "fewer than min_instructions" "$MA_TMP/few.json" || fail "min_instructions: no reason given"
pass "naive l1d_mpki $naive fails <= 40, transposed $trans passes; mm_naive $fn misses, line $line $lv; identical reruns"
