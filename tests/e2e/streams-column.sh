#!/bin/sh
# Address streams on a column walk: the uprobe on the hot load records its
# exact stride, the row pitch, and with a 4096-byte pitch the lines crowd into
# one L1d set (conflict); padded by one line (4160) they spread over every
# set and the streams show no conflict.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog col_walk
# a few seconds each (the padded walk runs faster), with a budget that pays
# for a burst after a second or so: the default saves up for 30 s
for run in "4096 8000" "4160 16000"; do
	set -- $run
	pitch=$1
	"$MA" run --stream-budget 25 -j -o "$MA_TMP/r$pitch.json" -- "$MA_TMP/col_walk" $pitch 1024 $2 >/dev/null ||
		fail "memadvise run exited $?"
done
python3 - "$MA_TMP" "$MA_TOP/tests/e2e/progs/col_walk.c" <<'PY'
import json, sys
tmp, src = sys.argv[1], sys.argv[2]
hot = [n for n, l in enumerate(open(src), 1) if "/* HOT */" in l][0]
rc = 0
for pitch, conflict in ((4096, True), (4160, False)):
    d = json.load(open("%s/r%d.json" % (tmp, pitch)))
    s = d.get("address_streams")
    if s is None:
        why = [p["detail"] for p in d.get("provenance", []) if p["what"] == "uprobe_stream"]
        if any("BPF" in w or "uprobe" in w for w in why):
            print("[Skipped: %s]" % why); sys.exit(2)
        print("[Failed: no address_streams section: %s]" % why); sys.exit(1)
    ips = [i for i in s["ips"] if i.get("line") == hot and i.get("status") == "ok"]
    if not ips:
        print("[Failed: pitch %d: no stream at col_walk.c:%d: %s]" % (pitch, hot, s["ips"])); sys.exit(1)
    i = ips[0]
    ok = (i["tier"] if "tier" in i else s["tier"]) == "uprobe-stream" and \
        i["stride_bytes"] == pitch and i["stride_fraction"] >= 0.9 and \
        i["sets"]["conflict"] == conflict and i["accesses"] >= 100
    print("pitch %d: %s, %d accesses in %d bursts, stride %d (%.0f%%), L1d sets used %d, "
          "most lines in a set %d, conflict %s" % (pitch, i["instruction"], i["accesses"],
          i["bursts"], i["stride_bytes"], 100 * i["stride_fraction"], i["sets"]["l1d_sets_used"],
          i["sets"]["l1d_max_lines_in_a_set"], i["sets"]["conflict"]))
    rc |= not ok
print("[%s: exact stride and set conflicts from the streams]" % ("Failed" if rc else "Success"))
sys.exit(rc)
PY
