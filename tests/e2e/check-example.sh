#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The sample budget file the CI examples check (examples/ci/) holds on the
# examples, in every tier it uses; the GitHub Actions and GitLab CI files are
# valid YAML whose job runs 'memadvise check' on it with a JUnit report.
. "$MA_TOP/tests/lib.sh"
need_cmd valgrind
ci="$MA_TOP/examples/ci"
[ -x "$EXAMPLES/matmul" ] && [ -x "$EXAMPLES/hot_cold" ] || skip "examples not built"
"$MA" check -b "$ci/memadvise-budget.yaml" --junit "$MA_TMP/j.xml" > "$MA_TMP/out" 2>&1 ||
	fail "the sample budget does not hold: exit $?: $(grep -v '^checksum\|^result' "$MA_TMP/out" | tail -n 8)"
grep -q 'simulation pass' "$MA_TMP/out" || fail "no simulated budget"
grep -q 'static *pass' "$MA_TMP/out" || fail "no layout budget"
python3 - "$ci/github-actions.yml" "$ci/gitlab-ci.yml" <<'PY' || fail "a CI example is not what it should be"
import sys, yaml
gh, gl = (yaml.safe_load(open(p)) for p in sys.argv[1:])
steps = [s.get("run", "") for s in gh["jobs"]["memadvise-check"]["steps"]]
assert any("memadvise check -b /opt/memadvise/examples/ci/memadvise-budget.yaml --junit" in s for s in steps), steps
script = gl["memadvise-check"]["script"]
assert any("memadvise check -b /opt/memadvise/examples/ci/memadvise-budget.yaml --junit budgets.xml" in s for s in script), script
assert gl["memadvise-check"]["artifacts"]["reports"]["junit"] == "budgets.xml"
PY
pass "the sample budget holds; the CI examples run it"
