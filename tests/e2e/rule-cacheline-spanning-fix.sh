#!/bin/sh
# cacheline-spanning's fix is the struct with the members the hot code uses
# together first ({hot_decl}), not the packed order: on the calibration
# workload (struct foo: next, a, fill[6], b; the walk reads a and b), the
# proposed declaration starts with a and b.
. "$MA_TOP/tests/lib.sh"
need_root
[ -x "$EXAMPLES/struct_span" ] || fail "examples/bin/struct_span is not built (make examples)"
# eight repetitions, as the label: the rule needs 20 samples on the line
"$MA" run -j -o "$MA_TMP/r.json" -- "$EXAMPLES/struct_span" --layout split --order random \
	--ws 64M --reps 8 >/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, re, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "cacheline-spanning" and x["status"] == "fired"]
fix = f[0].get("fix", "") if f else ""
body = fix.split("{", 1)[1] if "{" in fix else ""
names = re.findall(r"^\s+\S.*?\s(\w+)(?:\[\d+\])?;", body, re.M)
ok = len(f) == 1 and sorted(names[:2]) == ["a", "b"] and len(names) == 4
print("[%s: fired %d; members in the fix: %s]" % ("Success" if ok else "Failed", len(f), names))
sys.exit(0 if ok else 1)
PY
pass "the fix puts the members used together first"
