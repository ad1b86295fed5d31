#!/bin/sh
# Two record types with a counter at the same offset, bumped by one routine
# through an untyped pointer: the compiler emits one store for both, and
# only the types of the routine's variables are left to name the struct.
# Every finding that names one of them says that the accesses fit the other
# as well, with its confidence lowered from high; the text report says it too.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog two_records
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/two_records" 1500 >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
names = {"order_rec", "quote_rec"}
on = [f for f in d["findings"] if f["status"] == "fired" and f["location"].get("struct") in names]
if not on:
    sys.exit("no fired finding names order_rec or quote_rec: %s" %
             [(f["id"], f["status"], f["location"].get("struct")) for f in d["findings"]])
for f in on:
    a = f.get("binding_ambiguous")
    other = (names - {f["location"]["struct"]}).pop()
    if not a or a["also_fits"] != other or a["share"] < 0.5:
        sys.exit("%s on %s: binding not said ambiguous: %s" % (f["id"], f["location"]["struct"], a))
    if f["confidence"] == "high" or "Binding ambiguous" not in f["message"]:
        sys.exit("%s: confidence %s, message %r" % (f["id"], f["confidence"], f["message"]))
PY
"$MA" run -w -- "$MA_TMP/two_records" 1500 >"$MA_TMP/r.txt" 2>&1 || fail "text run exited $?"
grep -q "Binding ambiguous: .* fit struct \(order_rec\|quote_rec\) as well" "$MA_TMP/r.txt" ||
	fail "text report does not say the binding is ambiguous"
pass "findings on order_rec/quote_rec say the other fits as well"
