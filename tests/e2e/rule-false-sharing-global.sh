#!/bin/sh
# False sharing on a global array that no struct describes: two workers
# bump their own row of unsigned long tallies[2][3], both rows on one line.
# The finding names the global, its declaration and the function; with each
# row on a line of its own (-DPAD) there is none.
. "$MA_TOP/tests/lib.sh"
need_root
[ "$(nproc)" -ge 2 ] || skip "needs two CPUs for two writers at once"
build_prog worker_tallies
cc -O2 -g -fno-omit-frame-pointer -pthread -DPAD -o "$MA_TMP/worker_tallies_pad" \
	"$MA_TOP/tests/e2e/progs/worker_tallies.c" || fail "cannot build the padded variant"
"$MA" run -j -o "$MA_TMP/bad.json" -- "$MA_TMP/worker_tallies" 300 >/dev/null ||
	fail "memadvise run exited $?"
"$MA" run -j -o "$MA_TMP/pad.json" -- "$MA_TMP/worker_tallies_pad" 300 >/dev/null ||
	fail "memadvise run (padded) exited $?"
python3 - "$MA_TMP/bad.json" "$MA_TMP/pad.json" <<'PY' || exit 1
import json, sys
bad, pad = (json.load(open(f)) for f in sys.argv[1:3])
fs = [f for f in bad["findings"] if f["id"] == "false-sharing" and f["status"] == "fired"]
if not fs:
    sys.exit("no false-sharing finding on the shared rows: %s; shared lines %s" % (
        [(f["id"], f["status"]) for f in bad["findings"]],
        (bad.get("data_addresses") or {}).get("shared_lines")))
f = fs[0]
loc = f["location"]
if loc.get("member") != "tallies" or loc.get("struct") or loc.get("function") != "work":
    sys.exit("finding not on the global tallies in work(): %s" % loc)
if not loc.get("decl_file", "").endswith("worker_tallies.c") or not loc.get("decl_line"):
    sys.exit("no declaration: %s" % loc)
if "the global tallies" not in f["message"] or "_Alignas(64)" not in (f["fix"] or ""):
    sys.exit("message or fix: %r %r" % (f["message"], f["fix"]))
if any(f["id"] == "false-sharing" and f["status"] == "fired" for f in pad["findings"]):
    sys.exit("false sharing reported with each row on its own line")
PY
pass "false sharing on the global tallies found; quiet once padded"
