#!/bin/sh
# Code inlined twice over (sum_scaled into sum_twice into main): the hot
# line is named by the function it is written in, with the function it was
# inlined into (JSON lines[].inlined_from), and the data-address table names
# the same function as the hot-code table (JSON inlined_function), not the
# ELF symbol the code sits in (main).
. "$MA_TOP/tests/lib.sh"
need_root
build_prog inlined
hot=$(grep -n 'HOT \*/' "$MA_TOP/tests/e2e/progs/inlined.c" | cut -d: -f1)
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/inlined" 1000 >/dev/null || fail "memadvise run exited $?"
"$MA" run -o "$MA_TMP/r.txt" -- "$MA_TMP/inlined" 1000 >/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/r.json" "$MA_TMP/r.txt" "$hot" <<'PY' || exit 1
import json, re, sys
d = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
hot = int(sys.argv[3])
line = d["profile"]["lines"][0]
ips = [i for i in d["data_addresses"]["ips"] if i.get("line") == hot]
ip = ips[0] if ips else {}
table = txt.split("where (access)", 1)[1] if "where (access)" in txt else ""
row = re.search(r"inlined\.c:%d (\S+)" % hot, table)
ok = (line["line"] == hot and line["function"] == "sum_scaled"
      and line.get("inlined_from") == "sum_twice"
      and ip.get("function") == "main" and ip.get("inlined_function") == "sum_scaled"
      and row is not None and row.group(1) == "sum_scaled")
print("[%s: hot line %s:%s %s (inlined from %s); data row function %s, inlined %s; "
      "text row %s]" % ("Success" if ok else "Failed", "inlined.c", line["line"],
                        line["function"], line.get("inlined_from"), ip.get("function"),
                        ip.get("inlined_function"), row.group(0) if row else None))
sys.exit(0 if ok else 1)
PY
pass "inlined code: the function it is written in, and the one it was inlined into"
