#!/bin/sh
# A stripped program's sampled instructions are named by module and offset
# (its address in the ELF file, as objdump shows it), in the text report and
# the JSON, and the offset falls inside the function that holds the hot loop.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd nm
build_prog stride
cp "$MA_TMP/stride" "$MA_TMP/stripped"
strip --strip-all "$MA_TMP/stripped" || fail "cannot strip the program"
"$MA" run -w -o "$MA_TMP/r.txt" -- "$MA_TMP/stripped" 256 60 >/dev/null ||
	fail "memadvise run exited $?"
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/stripped" 256 60 >/dev/null ||
	fail "memadvise run exited $?"
sed -n '/^Data addresses/,/^$/p' "$MA_TMP/r.txt" | grep -Eq ' stripped\+0x[0-9a-f]+' ||
	fail "no 'stripped+0x...' in the data-address table: $(sed -n '/^Data addresses/,/^$/p' "$MA_TMP/r.txt")"
range=$(nm -S "$MA_TMP/stride" | awk '$4 == "main" { print $1, $2 }')
[ -n "$range" ] || fail "no main in the unstripped program's symbols"
python3 - "$MA_TMP/r.json" $range <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
start, size = int(sys.argv[2], 16), int(sys.argv[3], 16)
a = d.get("data_addresses")
if a is None:
    print("[Failed: no data_addresses section: %s]" % d.get("provenance")); sys.exit(1)
ips = [i for i in a["ips"] if i.get("module") == "stripped"]
if not ips:
    print("[Failed: no samples named by the stripped module: %s]" % a["ips"][:3]); sys.exit(1)
top = max(ips, key=lambda i: i["samples"])
off = int(top["module_offset"], 16)
ok = start <= off < start + size and "function" not in top
print("[%s: hottest access at stripped+%#x, main is %#x-%#x]" % (
    "Success" if ok else "Failed", off, start, start + size))
sys.exit(0 if ok else 1)
PY
pass "a stripped program's accesses are named module+offset"
