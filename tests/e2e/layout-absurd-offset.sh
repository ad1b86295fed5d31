#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A member offset patched to 2^64 - 7010 in .debug_info (a damaged binary)
# leaves the type out with a warning; no wrapped offset is printed.
. "$MA_TOP/tests/lib.sh"
need_cmd gcc
need_cmd readelf
need_cmd python3
cat >"$MA_TMP/mut.c" <<'C'
struct mut { char a; char gap[1UL << 40]; int marker_member; };
struct mut *g;
int main(void) { return g != 0; }
C
b="$MA_TMP/mut"
cc -g -O0 -gdwarf-4 -gno-split-dwarf -o "$b" "$MA_TMP/mut.c" || fail "cannot build"
"$MA" layout "$b" mut >"$b.out" 2>&1 || fail "unpatched: exit $?"
grep -q '1099511627780' "$b.out" || fail "unpatched: marker_member not at 2^40 + 4"
# The section's file offset and the attribute's offset in it, from readelf.
sec=$(readelf -W -S "$b" | sed -n 's/.* \.debug_info  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
att=$(readelf --debug-dump=info "$b" | grep -A6 ': marker_member$' |
	sed -n 's/^ *<\([0-9a-f]*\)> *DW_AT_data_member_location.*/\1/p')
[ -n "$sec" ] && [ -n "$att" ] || fail "cannot locate the attribute (sec='$sec' att='$att')"
python3 - "$b" "$sec" "$att" <<'P' || fail "patch failed"
import struct, sys
path, sec, att = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
with open(path, "r+b") as f:
    f.seek(sec + att)
    if struct.unpack("<Q", f.read(8))[0] != (1 << 40) + 4:
        sys.exit("unexpected bytes at the attribute")
    f.seek(sec + att)
    f.write(struct.pack("<Q", 18446744073709544606))
P
"$MA" layout "$b" >"$b.out" 2>"$b.err"
rc=$?
[ $rc -eq 0 ] || fail "patched: exit $rc: $(head -n 1 "$b.err")"
grep -q '1844674407' "$b.out" && fail "patched: a wrapped offset was printed"
grep -q 'struct mut {' "$b.out" && fail "patched: struct mut still listed"
grep -q '^warning: 1 type(s) .* left out' "$b.err" || fail "patched: no warning: $(cat "$b.err")"
"$MA" layout "$b" mut >/dev/null 2>&1
[ $? -eq 2 ] || fail "patched: asking for mut does not fail with exit 2"
pass "absurd member offset: type left out with a warning"
