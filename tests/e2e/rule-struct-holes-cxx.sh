#!/bin/sh
# struct-holes on a C++ type in a namespace, used by a method through a
# range-for reference: the struct is named as layout names it (app::Rec),
# and the fix reorders its members.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd g++
g++ -O2 -g -fno-omit-frame-pointer -o "$MA_TMP/cxx_holes" "$MA_TOP/tests/e2e/progs/cxx_holes.cpp" ||
	fail "cannot build tests/e2e/progs/cxx_holes.cpp"
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/cxx_holes" 400 >/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["findings"] if f["id"] == "struct-holes" and f["status"] == "fired"]
loc = f[0]["location"] if f else {}
ok = bool(f) and loc.get("struct") == "app::Rec" and "app::Store::total" in loc.get("function", "")
print("[%s: struct-holes %s]" % ("Success" if ok else "Failed",
                                 loc if f else [(x["id"], x["status"]) for x in d["findings"]]))
sys.exit(0 if ok else 1)
PY
pass "struct-holes names the C++ struct app::Rec used by app::Store::total"
