#!/bin/sh
# memadvise top without a terminal: --batch text frames and -j JSON Lines
# (each line parses, the schema's keys are there, nothing unmeasured is 0)
# on a page-faulting workload given by -p, with its drill-down (hot
# function, page-fault-storm); -- CMD ends with the command and passes its
# status through; under sudo (SUDO_UID) only that user's processes unless
# --all.
. "$MA_TOP/tests/lib.sh"
need_root
[ -x "$EXAMPLES/page_faults" ] || skip "examples not built (make examples)"

"$EXAMPLES/page_faults" -n 16000000 > /dev/null 2>&1 &
wl=$!
trap 'kill $wl $nb 2>/dev/null' EXIT
nb=

"$MA" top -b -n 5 -d 0.5 -p "$wl" > "$MA_TMP/b.txt" 2> "$MA_TMP/b.err" || fail "top -b exited $?"
[ "$(grep -c '^memadvise top - ' "$MA_TMP/b.txt")" = 5 ] || fail "top -b -n 5: not 5 frames"
awk -v p="$wl" '$1 == p && $3 != "-" && $3 != "0" { found = 1 } END { exit !found }' "$MA_TMP/b.txt" ||
	{ cat "$MA_TMP/b.txt"; fail "--batch: no row of pid $wl with non-zero faults/s"; }
grep -q "^Process $wl (page_faults)" "$MA_TMP/b.txt" || fail "--batch -p: no drill-down"
grep -q '^ *[0-9.]*% *[0-9]* *fill_and_sum' "$MA_TMP/b.txt" || fail "--batch: no hot fill_and_sum"
grep -q 'page-fault-storm' "$MA_TMP/b.txt" || fail "--batch: no page-fault-storm finding"
grep -q 'n/a: no PMU' "$MA_TMP/b.txt" || [ -e /sys/bus/event_source/devices/cpu ] ||
	fail "--batch: no PMU, and the header does not say so"
[ -s "$MA_TMP/b.err" ] && { cat "$MA_TMP/b.err"; fail "--batch wrote to stderr"; }

# eight frames: names and findings arrive when the worker has them, which
# takes longer under the sanitizers or a loaded machine; one frame after
# the first must have them all
"$MA" -j top -n 8 -d 0.5 -p "$wl" > "$MA_TMP/j.jsonl" || fail "top -j exited $?"
python3 - "$MA_TMP/j.jsonl" "$wl" > "$MA_TMP/j.out" 2>&1 <<'PY' ||
	fail "-j: the JSON Lines do not hold what they should: $(tail -1 "$MA_TMP/j.out")"
import json, os, sys
lines = open(sys.argv[1]).read().splitlines()
pid = int(sys.argv[2])
assert len(lines) == 8, "%d lines, not 8" % len(lines)
frames = [json.loads(l) for l in lines]
for d in frames:
    for k in ("schema_version", "refresh", "timestamp_ns", "interval_s", "header", "processes"):
        assert k in d, "no key " + k
    h = d["header"]
    for k in ("thp", "faults", "pmu", "sampling", "processes", "threads"):
        assert k in h, "no header key " + k
    assert h["thp"]["mode"] in ("always", "madvise", "never"), h["thp"]
    if not h["pmu"]["available"]:
        assert h["pmu"]["llc_mpki"] is None and h["pmu"]["dtlb_mpki"] is None, h["pmu"]
    for r in d["processes"]:
        for k in ("pid", "uid", "comm", "cpu_pct", "minflt_per_s", "majflt_per_s",
                  "rss_bytes", "anon_huge_bytes", "hot_function", "findings"):
            assert k in r, "no process key " + k
    assert [r["pid"] for r in d["processes"]] == [pid], d["processes"]
first = frames[0]
assert first["header"]["faults"]["minor_per_s"] is None, "a rate on the first refresh"
assert first["processes"][0]["minflt_per_s"] is None, "a rate on the first refresh"
for d in frames[1:]:
    row = d["processes"][0]
    assert row["minflt_per_s"] is not None and row["minflt_per_s"] > 0, row
    dr = d.get("drill")
    if not dr or row["hot_function"] != "fill_and_sum":
        continue
    ids = [f["id"] for f in dr["findings"] if f["status"] == "fired"]
    if "page-fault-storm" not in ids:
        continue
    assert dr["pid"] == pid, dr["pid"]
    assert dr["profile"]["events"][0]["name"] == "tick", dr["profile"]["events"]
    assert row["findings"] == len(ids), (row, ids)
    print("ok")
    break
else:
    last = frames[-1]
    print("no frame with the hot function and page-fault-storm; the last: %s %s" % (
        last["processes"][0], [f["id"] for f in (last.get("drill") or {}).get("findings", [])]))
    sys.exit(1)
PY

# -- CMD: ends with the command, its status passes through
"$MA" top -b -d 0.3 -- "$EXAMPLES/page_faults" -n 40 > "$MA_TMP/c.txt" 2>/dev/null
[ $? = 0 ] || fail "top -- page_faults: exit status not 0"
grep -q ' page_faults ' "$MA_TMP/c.txt" || fail "top -- CMD: no row for the command"
"$MA" top -b -d 0.3 -- sh -c 'sleep 0.5; exit 3' > /dev/null 2>&1
rc=$?
[ $rc = 3 ] || fail "top -- sh -c 'exit 3': exit status $rc, not 3"

# under sudo: the invoking user's processes only, unless --all
command -v setpriv > /dev/null || skip "needs setpriv for the sudo check (util-linux)"
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30 &
nb=$!
sleep 0.2
SUDO_UID=65534 "$MA" -j top -n 1 --no-sample > "$MA_TMP/s.json" || fail "SUDO_UID top exited $?"
SUDO_UID=65534 "$MA" -j top -n 1 --no-sample --all > "$MA_TMP/a.json" || fail "SUDO_UID top --all exited $?"
python3 - "$MA_TMP/s.json" "$MA_TMP/a.json" "$nb" <<'PY' || fail "SUDO_UID: the rows are not the invoking user's"
import json, sys
s = json.loads(open(sys.argv[1]).read())
a = json.loads(open(sys.argv[2]).read())
nb = int(sys.argv[3])
assert all(r["uid"] == 65534 for r in s["processes"]), s["processes"]
assert nb in [r["pid"] for r in s["processes"]], "the sudo user's process is missing"
assert s["header"]["hidden_processes"] > 0, s["header"]
assert any(r["uid"] == 0 for r in a["processes"]), "--all shows no root process"
assert a["header"]["hidden_processes"] == 0, a["header"]
PY
pass "--batch and -j frames with the drill-down and finding, -- CMD status, sudo filter"
