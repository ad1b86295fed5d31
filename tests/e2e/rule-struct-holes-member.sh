#!/bin/sh
# struct-holes on a struct a hot function reaches only through a member of
# its parameter (st->recs[i].value): the sampled access is tied to struct
# rec, not to the parameter's struct store, and the rule fires on rec.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog store_holes
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/store_holes" 400 >/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["findings"] if f["id"] == "struct-holes" and f["status"] == "fired"]
loc = f[0]["location"] if f else {}
ok = (len(f) == 1 and loc.get("struct") == "rec" and loc.get("function") == "total")
print("[%s: struct-holes %s]" % ("Success" if ok else "Failed",
                                 [x["location"] for x in f] if f else
                                 [(x["id"], x["status"]) for x in d["findings"]]))
sys.exit(0 if ok else 1)
PY
pass "struct-holes fires on struct rec, reached through the parameter's member"
