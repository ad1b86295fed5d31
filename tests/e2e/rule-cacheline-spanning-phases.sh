#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Members used together are those of one loop.  span_phases reads each
# record's key in one loop and its expiry (on the record's second line) in
# another, both inlined into main(): no object costs two lines, and
# cacheline-spanning stays quiet.  With -DTOGETHER one loop reads both: the
# struct's hot members lie on two lines, and with the 96-byte records
# beginning at 0 and 32 of a line, packing them saves half of its line
# fetches (struct.hot_lines_saved, from where the sampled objects begin).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog span_phases
cc -O2 -g -fno-omit-frame-pointer -DTOGETHER -o "$MA_TMP/span_phases_together" \
	"$MA_TOP/tests/e2e/progs/span_phases.c" || fail "cannot build the TOGETHER variant"
for v in span_phases span_phases_together; do
	MEMADVISE_RECORD_FACTS="$MA_TMP/$v.facts" "$MA" run -j -o "$MA_TMP/$v.json" -- \
		"$MA_TMP/$v" 14 >/dev/null || fail "memadvise run $v exited $?"
done
python3 - "$MA_TMP" <<'PY' || exit 1
import json, os, sys
tmp = sys.argv[1]

def record(v):
    facts = json.load(open(os.path.join(tmp, v + ".facts")))
    for e in facts["entities"]:
        if e.get("scope") == "struct" and e.get("struct") == "record":
            return {k: (x.get("value") if isinstance(x, dict) else x)
                    for k, x in e.get("facts", {}).items()}
    sys.exit("%s: no struct record entity in the facts" % v)

def spanning(v):
    d = json.load(open(os.path.join(tmp, v + ".json")))
    return [f for f in d["findings"] if f["id"] == "cacheline-spanning" and f["status"] == "fired"]

ph, tg = record("span_phases"), record("span_phases_together")
if ph.get("struct.hot_lines") != 1:
    sys.exit("two loops side by side counted as one: hot_lines %s (members %s)" %
             (ph.get("struct.hot_lines"), ph.get("struct.hot_members")))
if spanning("span_phases"):
    sys.exit("cacheline-spanning fired on two loops that each use one line")
if tg.get("struct.hot_lines") != 2:
    sys.exit("one loop using key and expiry: hot_lines %s" % tg.get("struct.hot_lines"))
saved = tg.get("struct.hot_lines_saved")
if saved is None or not 0.4 <= saved <= 0.6:
    sys.exit("records at 0 and 32 of a line: packing saves half, got %s" % saved)
print("[phases: hot_lines %s; together: hot_lines %s, saved %.2f]" %
      (ph.get("struct.hot_lines"), tg.get("struct.hot_lines"), saved))
PY
pass "members used together are one loop's; the saving follows where the records begin"
