#!/bin/sh
# Children that exit within a few milliseconds, before memadvise reads
# their /proc maps: their code is still named (hot functions, no
# '[unknown]') and their sampled instructions still decoded (data
# addresses, few with unreadable code), from the kernel's records of their
# mappings; their data mappings are known too: each child's 8 MiB buffer is
# a fault region, and the hot line's row (all the children) has its
# samples in one kind of mapping (in-rg adds up the children's buffers).
# 60 children: with 30 the hot row had as few as 6 decoded samples, and one
# of them outside the buffers (83 %) failed a 90 % share.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog stride
"$MA" run -j -o "$MA_TMP/r.json" -- sh -c \
	"for i in \$(seq 60); do '$MA_TMP/stride' 64 8 8; done" >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
fn = d["profile"]["functions"]
total = sum(f["samples"] for f in fn)
unknown = sum(f["samples"] for f in fn if f["module"] == "[unknown]")
main = sum(f["samples"] for f in fn if f["module"] == "stride" and f["function"] == "main")
a = d.get("data_addresses")
if a is None:
    print("[Failed: no data_addresses section: %s]" % d.get("provenance")); sys.exit(1)
unreadable = a.get("unreadable_code", 0)
decoded_main = sum(i["samples"] for i in a["ips"] if i.get("function") == "main")
rows = sorted((i for i in a["ips"] if i.get("function") == "main" and i.get("decoded")),
              key=lambda i: -i["decoded"])
top = rows[0] if rows else {}
in_rg = top.get("top_region_samples", 0) / top["decoded"] if top else 0
bufs = [r for r in d["profile"]["regions"]
        if r["kind"] == "anon" and r["size"] >= 8 << 20 and r["faults"] > 0]
# the children's regions listed are those with something measured; the
# rest are counted (the main process, sh, has all of its own listed)
main_pid = d["profile"]["processes"][0]["pid"]
idle = [r for r in d["profile"]["regions"] if r["pid"] != main_pid
        and not (r.get("faults") or r.get("fault_samples") or r.get("writes") or r.get("rss"))]
unlisted = d["profile"].get("regions_unlisted", -1)
# a fault site's region is its index in the regions listed, of its process
regs = d["profile"]["regions"]
sites = d["profile"]["page_faults"].get("sites", [])
bad_site = [s for s in sites if s.get("region", -1) >= 0 and
            (s["region"] >= len(regs) or
             (s.get("processes") == 1 and regs[s["region"]]["pid"] != s["pid"]))]
ok = (total >= 20 and unknown * 20 <= total and main > 0 and a["samples"] >= 10
      and unreadable * 5 <= a["samples"] and decoded_main > 0
      and top.get("top_region") == "anon" and in_rg >= 0.9 and len(bufs) >= 48
      and not idle and unlisted > 0 and not bad_site
      and sum(1 for s in sites if s.get("region", -1) >= 0) > 0)
print("[%s: hot: %d of %d samples unknown, %d in main; data addresses: %d of %d with "
      "unreadable code, %d in main, its hottest row in-rg %.0f %% (%s, %s procs); "
      "8 MiB buffers with faults: %d of 60; children's regions listed with nothing "
      "measured: %d, unlisted: %d; fault sites naming another process's region: %d]" % (
          "Success" if ok else "Failed", unknown, total, main, unreadable, a["samples"],
          decoded_main, 100 * in_rg, top.get("top_region"), top.get("processes"), len(bufs),
          len(idle), unlisted, len(bad_site)))
sys.exit(0 if ok else 1)
PY
pass "short-lived children's code is named and decoded"
