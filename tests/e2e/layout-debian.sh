#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memadvise layout agrees with pahole 1.24 on real programs nobody here wrote:
# redis-server, zstd and sqlite3 built with -g from their Debian source
# packages (scripts/real-programs.sh; the build is cached between runs).
# Every type pahole prints without an error must agree; each type read alone
# ('layout FILE TYPE', which reads only the units that define it) must print
# what the full read prints; sqlite3's WhereClause.aStatic (8 WhereTerm read
# through a typedef in a pointer cycle) has its real size.
. "$MA_TOP/tests/lib.sh"
need_cmd pahole
need_cmd apt-get
need_root
cache=${MA_REAL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/memadvise/real}
bins=$(sh "$MA_TOP/scripts/real-programs.sh" "$cache" 2> "$MA_TMP/err") ||
	skip "cannot fetch or build the Debian sources: $(tail -n 1 "$MA_TMP/err") (see $cache/build.log)"
total=0 rc=0
for b in $bins; do
	out=$(python3 "$MA_TOP/tests/e2e/layout_cmp.py" "$MA" "$b") || rc=1
	echo "$out" | tail -n 5
	n=$(echo "$out" | tail -n 1 | sed -n 's/.*: \([0-9]*\) compared.*/\1/p')
	[ "${n:-0}" -ge 20 ] || fail "$(basename "$b"): only ${n:-0} structs compared"
	total=$((total + n))
done
[ $rc -eq 0 ] || fail "memadvise and pahole disagree on a real program (see above)"
for b in $bins; do
	out=$(python3 "$MA_TOP/tests/e2e/layout_one_cmp.py" "$MA" "$b") ||
		{ echo "$out"; fail "$(basename "$b"): one type read alone differs from a full read"; }
	echo "$out" | tail -n 1
done
sqlite=$(echo "$bins" | grep sqlite3)
[ -n "$sqlite" ] || fail "no sqlite3 among the real programs"
"$MA" layout -j "$sqlite" WhereClause > "$MA_TMP/wc.json" || fail "layout WhereClause failed"
got=$(json "$MA_TMP/wc.json" "[(m['offset_bytes'], m['size_bytes']) for m in d['structs'][0]['members'] if m['name'] == 'aStatic'][0], d['structs'][0]['padding_bytes']")
[ "$got" = "((40, 448), 0)" ] || fail "WhereClause.aStatic/padding: got $got, expected ((40, 448), 0)"
# redis's per-thread pending counter is an _Atomic in a 64-byte aligned struct
# (networking.c): pahole 1.24 garbles it, memadvise must not.
redis=$(echo "$bins" | grep redis-server)
"$MA" layout -j "$redis" threads_pending > "$MA_TMP/tp.json" || fail "layout threads_pending failed"
got=$(json "$MA_TMP/tp.json" "(lambda s: (s['size_bytes'], s['members'][0]['offset_bytes'], s['members'][0]['size_bytes'], s['members'][0]['atomic'], s['declared_alignment_bytes']))(d['structs'][0])")
[ "$got" = "(64, 0, 8, True, 64)" ] || fail "threads_pending: got $got, expected (64, 0, 8, True, 64)"
pass "$total structs of redis-server, zstd and sqlite3 agree with pahole; each read alone prints the same"
