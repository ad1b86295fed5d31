#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# 'run --sarif' and 'rules eval --sarif' write SARIF 2.1.0 whose key parts
# follow the schema: version, tool.driver with rules, results with ruleId,
# ruleIndex, kind, level, message and locations on source lines.
set -u
"$MA" rules eval --replay "$MA_TOP/tests/golden/tlb-bad-pmu.json" --sarif "$MA_TMP/replay.sarif" > /dev/null ||
	{ echo "rules eval --sarif failed"; exit 1; }
if [ -x "$EXAMPLES/false_sharing" ]; then
	"$MA" run --sarif "$MA_TMP/run.sarif" -o /dev/null -- "$EXAMPLES/false_sharing" --threads 2 \
		--layout shared --iters 2000000 > /dev/null 2>&1 || { echo "run --sarif failed"; exit 1; }
	runs="$MA_TMP/replay.sarif $MA_TMP/run.sarif"
else
	runs="$MA_TMP/replay.sarif"
fi
python3 - $runs <<'PY'
import json, re, sys

LEVELS = {"none", "note", "warning", "error"}
KINDS = {"notApplicable", "pass", "fail", "review", "open", "informational"}

def check(path):
    s = json.load(open(path))
    assert s.get("version") == "2.1.0", "version"
    assert "sarif-2.1.0" in s.get("$schema", ""), "$schema"
    assert isinstance(s.get("runs"), list) and s["runs"], "runs"
    nloc = 0
    for run in s["runs"]:
        d = run["tool"]["driver"]
        assert isinstance(d.get("name"), str) and d["name"], "driver.name"
        rules = d.get("rules", [])
        ids = [r["id"] for r in rules]
        assert len(ids) == len(set(ids)), "rule ids unique"
        for r in rules:
            assert r["shortDescription"]["text"], "shortDescription"
            assert r["defaultConfiguration"]["level"] in LEVELS, "defaultConfiguration.level"
        for res in run.get("results", []):
            assert res["ruleId"] in ids, "ruleId %s is a rule" % res["ruleId"]
            assert ids[res["ruleIndex"]] == res["ruleId"], "ruleIndex"
            assert res["level"] in LEVELS, "level"
            assert res.get("kind", "fail") in KINDS, "kind"
            if res.get("kind", "fail") != "fail":
                assert res["level"] == "none", "a non-fail result has level none"
            assert res["message"]["text"].strip(), "message.text"
            for loc in res.get("locations", []):
                pl = loc["physicalLocation"]
                uri = pl["artifactLocation"]["uri"]
                assert re.match(r"^(file://)?[A-Za-z0-9/._~%-]+$", uri), "uri %r" % uri
                line = pl["region"]["startLine"]
                assert isinstance(line, int) and line >= 1, "startLine"
                nloc += 1
    return nloc

total = 0
for p in sys.argv[1:]:
    try:
        total += check(p)
    except (AssertionError, KeyError, TypeError, IndexError) as e:
        print("%s: not valid SARIF 2.1.0: %s" % (p, e))
        sys.exit(1)
if total == 0:
    print("no result is located on a source line")
    sys.exit(1)
print("SARIF valid: %d locations on source lines" % total)
PY
