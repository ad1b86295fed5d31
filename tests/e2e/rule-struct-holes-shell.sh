#!/bin/sh
# A target that runs the program (sh -c 'prog; ...'): the rules read the
# structs of the executable that ran the hot code, not the shell's (which
# has no debug info), say so in the notes, and struct-holes fires as it does
# on the program run directly (rule-struct-holes-member).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog store_holes
"$MA" run -j -o "$MA_TMP/r.json" -- sh -c "'$MA_TMP/store_holes' 400; true" >/dev/null ||
	fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" "$MA_TMP/store_holes" <<'PY' || exit 1
import json, os, sys
d = json.load(open(sys.argv[1]))
want = os.path.realpath(sys.argv[2])
t = d["target"]
procs = [p for p in d["profile"]["processes"] if p.get("exe") == want]
notes = [p["detail"] for p in d["provenance"] if p["what"] == "layout"]
f = [f for f in d["findings"] if f["id"] == "struct-holes" and f["status"] == "fired"]
loc = f[0]["location"] if f else {}
ok = (t.get("layout_exe") == want and len(procs) == 1 and len(notes) == 1 and want in notes[0]
      and len(f) == 1 and loc.get("struct") == "rec" and loc.get("function") == "total")
print("[%s: layout_exe %s, processes running it %d, notes %s, struct-holes %s]" % (
    "Success" if ok else "Failed", t.get("layout_exe"), len(procs), notes,
    [x["location"] for x in f] if f else [(x["id"], x["status"]) for x in d["findings"]]))
sys.exit(0 if ok else 1)
PY
pass "the structs of the program a shell ran are read, and struct-holes fires on them"
