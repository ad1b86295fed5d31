#!/bin/sh
# Huge-page state of a large anonymous region, read at exit: with
# MADV_HUGEPAGE it is THP-backed, with MADV_NOHUGEPAGE it is not; its size,
# 2 MiB alignment and VmFlags are reported with the system THP mode; an
# MADV_COLLAPSE shows up as collapses on the target's mm.
. "$MA_TOP/tests/lib.sh"
need_root
mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null) ||
	skip "no transparent huge pages in this kernel"
[ "$mode" = never ] && skip "THP mode is 'never'"
build_prog huge_region
mib=64
R="[r for r in d['profile']['regions'] if r['large'] and r['size'] == $mib << 20][0]"
for v in hugepage nohugepage collapse; do
	"$MA" run -j -o "$MA_TMP/$v.json" -- "$MA_TMP/huge_region" $v $mib > /dev/null ||
		fail "run huge_region $v exited $?"
	json "$MA_TMP/$v.json" "$R['aligned_2m'] and $R['kind'] == 'anon' and d['profile']['thp']['mode'] == '$mode'" |
		grep -q True || fail "$v: region not found as a 2 MiB-aligned large anon region"
done
json "$MA_TMP/hugepage.json" "$R['madv_hugepage'] and $R['thp_eligible'] and $R['anon_huge'] > 0" |
	grep -q True || fail "MADV_HUGEPAGE region not reported THP-backed: $(json "$MA_TMP/hugepage.json" "$R")"
json "$MA_TMP/nohugepage.json" "$R['madv_nohugepage'] and not $R['thp_eligible'] and $R['anon_huge'] == 0" |
	grep -q True || fail "MADV_NOHUGEPAGE region reported THP-backed: $(json "$MA_TMP/nohugepage.json" "$R")"
# THP at fault time: one fault per 2 MiB instead of one per 4 KiB
f=$(json "$MA_TMP/hugepage.json" "$R['faults']")
[ "$f" -lt $((mib * 256 / 4)) ] || fail "hugepage region took $f faults (expected about $((mib / 2)))"
c=$(json "$MA_TMP/collapse.json" "d['profile']['thp']['collapse_ok']")
[ "$c" -ge 1 ] || fail "MADV_COLLAPSE not seen as a collapse on the target's mm ($c)"
"$MA" run -- "$MA_TMP/huge_region" hugepage $mib > "$MA_TMP/r.txt" 2>&1 || fail "text run failed"
grep -q "Huge pages: THP mode $mode" "$MA_TMP/r.txt" || fail "text report lacks the THP mode"
pass "THP mode $mode: hugepage region backed, nohugepage not, $c collapse(s) seen"
