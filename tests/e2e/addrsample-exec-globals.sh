#!/bin/sh
# The same code run by several processes is one sampled IP (its samples
# add up), but each process has the program where its own load address
# (ASLR) puts it: a RIP-relative access's address is taken from where the
# sampled process runs that code, so every process's samples land in its
# own copy of the global, none in no mapping (or in another process's).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog global_sum -fPIE -pie
p="$MA_TMP/global_sum"
"$MA" run -j -o "$MA_TMP/r.json" -- sh -c "'$p' 300000000; '$p' 300000000; '$p' 300000000; true" \
	>/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" "$p" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
a = d.get("data_addresses")
if a is None:
    print("[Failed: no data_addresses section: %s]" % d.get("provenance")); sys.exit(1)
mine = [r for r in a["regions"] if r["name"] == sys.argv[2]]
inside = sum(r["samples"] for r in mine)
frac = inside / a["decoded"] if a["decoded"] else 0
top = a["ips"][0]
# each process's share in its own mapping (a process runs about a third of the time)
own = sorted((r["samples"] / a["decoded"] for r in mine), reverse=True) if a["decoded"] else []
ok = (frac >= 0.95 and len(own) >= 3 and own[2] >= 0.15 and top["processes"] >= 2 and
      top.get("object", "").startswith("tally"))
print("[%s: %d decoded, %.1f%% in the program's own data, by mapping %s; top IP in %d "
      "processes, at %s]" % ("Success" if ok else "Failed", a["decoded"], 100 * frac,
                             " ".join("%.0f%%" % (100 * x) for x in own), top["processes"],
                             top.get("object")))
sys.exit(0 if ok else 1)
PY
