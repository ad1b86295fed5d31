#!/bin/sh
# Huge-page state of a large anonymous region, read at exit: with
# MADV_HUGEPAGE it is THP-backed, with MADV_NOHUGEPAGE it is not; its size,
# 2 MiB alignment and VmFlags are reported with the system THP mode; an
# MADV_COLLAPSE shows up as collapses on the target's mm once the khugepaged
# programs are attached (a quarter of khugepaged's scan interval into the
# run, at most 2.5 s), and in the system-wide count from /proc/vmstat before.
. "$MA_TOP/tests/lib.sh"
need_root
mode=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null) ||
	skip "no transparent huge pages in this kernel"
[ "$mode" = never ] && skip "THP mode is 'never'"
build_prog huge_region
mib=64
R="[r for r in d['profile']['regions'] if r['large'] and r['size'] == $mib << 20][0]"
sleep_ms=$(cat /sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs 2>/dev/null ||
	echo 10000)
delay_ms=$((sleep_ms / 4 > 2500 ? 2500 : sleep_ms / 4))
wait_ms=$((delay_ms + 1500))
# MADV_COLLAPSE of 64 MiB took 1 s of system time in a guest: collapse 8
for v in hugepage nohugepage collapse collapse-late; do
	case $v in
	collapse) args="collapse 8" ;;
	collapse-late) args="collapse 8 $wait_ms" ;;
	*) args="$v $mib" ;;
	esac
	"$MA" run -j -o "$MA_TMP/$v.json" -- "$MA_TMP/huge_region" $args > "$MA_TMP/$v.out" ||
		fail "run huge_region $v exited $?"
	[ "${v#collapse}" = "$v" ] || continue
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
T="d['profile']['thp']"
c=$(json "$MA_TMP/collapse-late.json" "$T['collapse_ok']")
[ "$c" -ge 1 ] || ! grep -q "collapse done" "$MA_TMP/collapse-late.out" ||
	fail "MADV_COLLAPSE after $wait_ms ms not seen as a collapse on the target's mm ($c)"
json "$MA_TMP/collapse-late.json" "$T['watched_from_s'] * 1000 < $wait_ms" | grep -q True ||
	fail "khugepaged programs attached late: $(json "$MA_TMP/collapse-late.json" "$T")"
# at once: before the programs attach, the system-wide count has it (unless
# the run, slowed down by a busy host, outlasted the delay, or the kernel
# refused the collapse: MADV_COLLAPSE may fail with EAGAIN, and then there
# may be nothing to count)
if [ "$delay_ms" -gt 500 ] && grep -q "collapse done" "$MA_TMP/collapse.out" &&
	json "$MA_TMP/collapse.json" "'collapse_ok' not in $T" | grep -q True; then
	json "$MA_TMP/collapse.json" "$T['unwatched_collapse_ok_system'] >= 1" |
		grep -q True || fail "early MADV_COLLAPSE not counted system-wide: $(json "$MA_TMP/collapse.json" "$T")"
fi
"$MA" run -- "$MA_TMP/huge_region" hugepage $mib > "$MA_TMP/r.txt" 2>&1 || fail "text run failed"
grep -q "Huge pages: THP mode $mode" "$MA_TMP/r.txt" || fail "text report lacks the THP mode"
pass "THP mode $mode: hugepage region backed, nohugepage not, $c collapse(s) seen"
