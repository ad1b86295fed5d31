#!/bin/sh
# Software data-address sampling on a strided loop: the dominant stride of
# the hot load equals the program's stride, forward.  The samples must come
# several to a pass, or they stroboscope across passes and the walk's
# direction is a matter of luck: a pass over 256 MiB took several ticks on
# the hosts this was written on and 3 ms (under one tick) on an AMD EPYC
# one, so it samples cpu-clock at 2000 Hz.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog stride
"$MA" run -F 2000 -j -o "$MA_TMP/r.json" -- "$MA_TMP/stride" 256 40 256 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" "$MA_TOP/tests/e2e/progs/stride.c" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
a = d.get("data_addresses")
if a is None:
    print("[Failed: no data_addresses section: %s]" % d.get("provenance")); sys.exit(1)
hot = [n for n, l in enumerate(open(sys.argv[2]), 1) if "/* HOT */" in l][0]
ips = [i for i in a["ips"] if i.get("line") == hot and i.get("decoded")]
if not ips:
    print("[Failed: no decoded samples on stride.c:%d]" % hot); sys.exit(1)
i = ips[0]
ok = i["stride_bytes"] == 256 and i["strided"] and i["stride_fraction"] >= 0.9
print("[%s: stride.c:%d %s: stride %d bytes (%.0f%% multiples, %.0f%% one way, %d deltas)]" % (
    "Success" if ok else "Failed", hot, i["instruction"], i["stride_bytes"],
    100 * i["stride_fraction"], 100 * i["stride_monotonic"], i["stride_deltas"]))
sys.exit(0 if ok else 1)
PY
