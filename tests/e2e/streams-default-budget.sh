#!/bin/sh
# At the default --stream-budget (1 %), a run of a few seconds gets address
# streams where the kernel has uprobe_multi links (Linux 6.6): a burst is
# charged 0.1 ms a probe and its hits, and the first, of 3 ms or more, is
# paid for after about 0.55 s.  The charge stays within the budget, and the strided
# walk's finding rests on the stream's exact stride (its L1d miss ratio too
# when a burst was long enough for the model to decide, else the sampled
# span says the walk does not fit the L1d).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog stride
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/stride" 256 1800 64 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d.get("address_streams")
if s is None:
    why = [p["detail"] for p in d["provenance"] if p["what"] == "uprobe_stream"]
    print("[Failed: no address streams: %s]" % why); sys.exit(1)
if s["attach"] != "uprobe_multi":
    # perf-event uprobes are charged 100-200 ms a burst: none in a few seconds
    print("[Skipped: the kernel has no uprobe_multi links (attach: %s)]" % s["attach"]); sys.exit(2)
share = s["charged_cost_ns"] / s["run_ns"]
f = [x for x in d["findings"] if x["id"] == "strided-traversal"]
ev = {e["name"]: e["value"] for e in f[0]["evidence"]} if f else {}
ok = (s["bursts"] >= 1 and share <= 1.5 * s["budget"] and f and f[0]["status"] == "fired" and
      ev.get("line.stream_stride") == 256)
print("[%s: %d bursts, %d hits, charged %.1f ms = %.2f%% of %.2f s (budget %.1f%%); "
      "strided-traversal %s, stream stride %s, L1d miss %s]" % (
          "Success" if ok else "Failed", s["bursts"], s["hits"], s["charged_cost_ns"] / 1e6,
          100 * share, s["run_ns"] / 1e9, 100 * s["budget"], f[0]["status"] if f else "quiet",
          ev.get("line.stream_stride"), ev.get("line.stream_l1_miss")))
sys.exit(0 if ok else 1)
PY
rc=$?
[ $rc -eq 2 ] && skip "the kernel has no uprobe_multi links (Linux 6.6)"
[ $rc -eq 0 ] || exit 1
pass "a run of a few seconds gets a stream burst within the default budget"
