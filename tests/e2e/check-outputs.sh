#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The CI outputs of 'memadvise check': JUnit XML (one test case per budget:
# a pass, a failure and an error) validated against the Ant JUnit schema
# with xmllint, and the findings' SARIF validated against the SARIF 2.1.0
# JSON schema.  The schemas come from scripts/fetch-schemas.sh (make deps).
# Also: an allow-listed finding does not fail the findings budget.
. "$MA_TOP/tests/lib.sh"
need_cmd valgrind
need_cmd xmllint
python3 -c 'import jsonschema' 2>/dev/null || skip "needs python3-jsonschema (make deps)"
sch="$MA_TOP/tests/schemas"
[ -f "$sch/JUnit.xsd" ] && [ -f "$sch/sarif-schema-2.1.0.json" ] ||
	skip "schemas not fetched: run scripts/fetch-schemas.sh (make deps)"
mm="$EXAMPLES/matmul"
[ -x "$mm" ] || skip "examples/bin/matmul not built"
build_prog check_layout -O0
cat > "$MA_TMP/b.yaml" <<EOB
version: 1
geometry:
  I1: 32768,8,64
  D1: 32768,8,64
  LL: 8M,16,64
workloads:
  - name: naive
    run: [$mm, --variant, naive, --size, 128]
    limits:
      - metric: l1d_mpki
        max: 1000
      - function: no_such_function
        metric: l1d_misses
        max: 1
    findings:
      fail_on: warning
layouts:
  - binary: check_layout
    struct: conn
    max_size: 32
EOB
"$MA" check -b "$MA_TMP/b.yaml" --junit "$MA_TMP/j.xml" --sarif "$MA_TMP/f.sarif" > "$MA_TMP/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "exit $rc, expected 2 (a budget that could not be checked): $(tail -n 5 "$MA_TMP/out")"
xmllint --noout --schema "$sch/JUnit.xsd" "$MA_TMP/j.xml" > "$MA_TMP/xl" 2>&1 ||
	fail "JUnit XML does not validate: $(head -n 3 "$MA_TMP/xl")"
n=$(grep -c '<testcase ' "$MA_TMP/j.xml")
[ "$n" -eq 4 ] || fail "$n test cases, expected 4 (one per budget)"
grep -q 'tests="4" failures="2" errors="1"' "$MA_TMP/j.xml" || fail "the suite's counts are wrong: $(grep '<testsuite' "$MA_TMP/j.xml")"
grep -q '<failure type="budget exceeded" message="layout: conn: size' "$MA_TMP/j.xml" || fail "no failure for the layout budget"
grep -q '<error type="not checked" message="naive: l1d_misses in no_such_function' "$MA_TMP/j.xml" ||
	fail "no error for the budget that could not be checked"
python3 - "$sch/sarif-schema-2.1.0.json" "$MA_TMP/f.sarif" <<'PY' || fail "SARIF does not validate against the SARIF 2.1.0 schema"
import json, sys, jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:])
jsonschema.Draft4Validator(schema).validate(doc)
ids = [r["ruleId"] for r in doc["runs"][0]["results"]]
assert "strided-traversal" in ids, ids
PY
# the finding allowed by rule and location: the findings budget holds
line=$(awk '/void mm_naive/{f=1} f && /\+=/{print NR; exit}' "$MA_TOP/examples/matmul.c")
sed -i "s/      fail_on: warning/      fail_on: warning\n      allow:\n        - rule: strided-traversal\n          location: matmul.c:$line/" "$MA_TMP/b.yaml"
"$MA" check -j -b "$MA_TMP/b.yaml" > "$MA_TMP/j.json" 2> "$MA_TMP/err"
v=$(json "$MA_TMP/j.json" "[c['verdict'] for c in d['checks'] if c['kind']=='findings'][0]")
[ "$v" = pass ] || fail "the allow-listed finding still fails the findings budget ($v)"
pass "JUnit XML (4 cases) and SARIF validate against their schemas; allow-list holds"
