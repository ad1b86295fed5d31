#!/bin/sh
# Two forked processes write their own counter at the same address.  When
# each has its own copy (a global after fork) the line is not shared and no
# false sharing is reported; when the counters are in a MAP_SHARED mapping
# (one copy) the line is shared by both and false sharing fires.  Either
# way both run the same instructions: one row each, of both processes.
# Both children's writes must be sampled for either check to mean anything
# (a line is shared where two writers are seen): the children only store,
# for 400 ms of CPU each, so nearly every sample is a write and neither check
# depends on the children running at once (tests/e2e/progs/fork_counters.c).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog fork_counters
for mode in private shared; do
	"$MA" run -j -o "$MA_TMP/$mode.json" -- "$MA_TMP/fork_counters" $mode >/dev/null ||
		fail "memadvise run ($mode) exited $?"
done
"$MA" run -w -o "$MA_TMP/private.txt" -- "$MA_TMP/fork_counters" private >/dev/null ||
	fail "memadvise run (private, text) exited $?"
sed -n '/^Data addresses/,/^$/p' "$MA_TMP/private.txt" | grep -q 'fork_counters.c:[0-9]* [a-z_]* (2 procs)' ||
	fail "the text table does not say the row is of 2 processes: $(sed -n '/^Data addresses/,/^$/p' "$MA_TMP/private.txt")"
python3 - "$MA_TMP/private.json" "$MA_TMP/shared.json" <<'PY' || exit 1
import json, sys
def look(path):
    d = json.load(open(path))
    a = d.get("data_addresses")
    if a is None:
        print("[Failed: no data_addresses section: %s]" % d.get("provenance")); sys.exit(1)
    fired = [f["id"] for f in d["findings"] if f.get("status") == "fired"]
    top = max(a["ips"], key=lambda i: i["samples"]) if a["ips"] else {}
    if top.get("processes") != 2:
        print("[Failed: the hottest instruction is not one row of both processes: %s]"
              % {k: top.get(k) for k in ("ip", "pid", "processes", "samples", "line")})
        sys.exit(1)
    return a["samples"], a["writes"], a["shared_lines"], fired
n, w, lines, fired = look(sys.argv[1])
ok = n >= 50 and not lines and "false-sharing" not in fired
print("[%s: private copies: %d samples (%d writes), shared lines %s, fired %s]" % (
    "Success" if ok else "Failed", n, w, [(l["line"], l["kind"]) for l in lines], fired))
n2, w2, lines2, fired2 = look(sys.argv[2])
ok2 = (n2 >= 50 and any(l["kind"] == "false-sharing" and len(l["threads"]) == 2 for l in lines2)
       and "false-sharing" in fired2)
print("[%s: one shared copy: %d samples (%d writes), shared lines %s, fired %s]" % (
    "Success" if ok2 else "Failed", n2, w2, [(l["line"], l["kind"]) for l in lines2], fired2))
sys.exit(0 if ok and ok2 else 1)
PY
pass "forked processes' private copies are not shared lines, a shared mapping's are; their code is one row"
