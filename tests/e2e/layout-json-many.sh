#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# 'memadvise layout -j' on an object with 20,000 structs writes each type's
# JSON as it is made: its peak memory stays within 1.5x (+16 MB) of the text
# output's and its CPU time within 5x (one JSON tree for the whole file took
# 8.7x the memory and 8.5x the CPU time here).  The JSON is complete: one
# object per struct.
. "$MA_TOP/tests/lib.sh"
need_cmd python3
# AddressSanitizer keeps freed memory in quarantine: peak memory says nothing there.
[ "${MA_ASAN:-0}" = 1 ] && skip "memory bounds are not measured under AddressSanitizer"
n=20000
python3 - "$n" > "$MA_TMP/many.c" <<'PY'
import sys
n = int(sys.argv[1])
for i in range(n):
    print(f"struct s{i} {{ char a; long b; int c[{i % 7 + 1}]; short d; void *p; }};")
for i in range(n):
    print(f"struct s{i} v{i};")
PY
cc -g -c -o "$MA_TMP/many.o" "$MA_TMP/many.c" || fail "cannot build the generated file"
out=$(python3 - "$MA" "$MA_TMP/many.o" "$n" <<'PY'
import json, os, subprocess, sys
ma, obj, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def run(*args):
    with open(os.devnull if args[0] == "text" else obj + ".json", "w") as f:
        p = subprocess.Popen([ma, "layout"] + list(args[1:]) + [obj], stdout=f)
        _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise SystemExit(f"layout {' '.join(args[1:])} failed")
    return ru.ru_maxrss, ru.ru_utime + ru.ru_stime
tm, tc = run("text")
jm, jc = run("json", "-j")
d = json.load(open(obj + ".json"))
print(f"{tm} {jm} {tc:.2f} {jc:.2f} {len(d['structs'])}")
PY
) || fail "$out"
set -- $out
echo "text: ${1} KB ${3} s CPU; JSON: ${2} KB ${4} s CPU; ${5} structs"
[ "$5" -eq "$n" ] || fail "JSON has $5 structs, expected $n"
[ "$2" -le $(($1 * 3 / 2 + 16384)) ] || fail "JSON took ${2} KB, text ${1} KB"
python3 -c "import sys; sys.exit(0 if $4 <= 5 * $3 + 0.2 else 1)" || fail "JSON took ${4} s CPU, text ${3} s"
pass "JSON of $n structs in ${2} KB (text ${1} KB), ${4} s CPU (text ${3} s)"
