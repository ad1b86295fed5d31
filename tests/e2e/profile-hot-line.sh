#!/bin/sh
# The hottest source line of a program with one known hot loop is that loop's
# line, in the right function and file, from cpu-clock, scheduler-tick (in a
# virtual machine) or PMU samples; the sampling event and its tier are named;
# nothing is lost.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog hot_line
line=$(grep -n '/\* HOT \*/' "$MA_TOP/tests/e2e/progs/hot_line.c" | cut -d: -f1)
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/hot_line" 400 > /dev/null ||
	fail "memadvise run exited $?"
json "$MA_TMP/r.json" "'profile' in d" | grep -q True || fail "no profile section in the report"
ev=$(json "$MA_TMP/r.json" "d['profile']['events'][0]['name'] + ' ' + d['profile']['events'][0]['tier']")
# a guest samples on the tick (profile__tick_plan), bare metal on cpu-clock
want="cpu-clock software"
grep -qw hypervisor /proc/cpuinfo && [ -r /sys/kernel/btf/vmlinux ] && want="tick software"
case "$ev" in
"$want"|*" counting"|*" precise") ;;
*) fail "unexpected sampling event/tier: $ev" ;;
esac
top=$(json "$MA_TMP/r.json" "'%s:%d %s' % (d['profile']['lines'][0]['file'].split('/')[-1], d['profile']['lines'][0]['line'], d['profile']['lines'][0]['function'])")
[ "$top" = "hot_line.c:$line hot_loop" ] || fail "top line is '$top', expected hot_line.c:$line hot_loop"
share=$(json "$MA_TMP/r.json" "round(d['profile']['lines'][0]['share'], 2)")
python3 -c "import sys; sys.exit(0 if $share >= 0.5 else 1)" || fail "top line has only $share of the samples"
json "$MA_TMP/r.json" "d['profile']['functions'][0]['function']" | grep -qx hot_loop ||
	fail "top function is not hot_loop"
# a user stack of the hot loop reaches main
json "$MA_TMP/r.json" "[f['function'] for f in d['profile']['stacks'][0]['frames']]" | grep -q "'main'" ||
	fail "the hottest stack does not reach main: $(json "$MA_TMP/r.json" "d['profile']['stacks'][0]")"
lost=$(json "$MA_TMP/r.json" "d['profile']['lost']['samples_hot_map_full'] + d['profile']['lost']['attach_failures']")
[ "$lost" = 0 ] || fail "lost samples or attach failures: $lost"
# the text report names the event and the line, within 80 columns
"$MA" run -- "$MA_TMP/hot_line" 50 > "$MA_TMP/r.txt" 2>&1 || fail "text run exited $?"
grep -q "hot_line.c:$line hot_loop" "$MA_TMP/r.txt" || fail "text report lacks hot_line.c:$line"
grep -Eq "Hot code: [a-z_-]+, [0-9]+ Hz \((software|counting|precise) tier" "$MA_TMP/r.txt" ||
	fail "text report does not name the sampling event and tier"
awk 'length > 80 { bad = 1 } END { exit bad }' "$MA_TMP/r.txt" || fail "text report wider than 80 columns"
pass "top line hot_line.c:$line hot_loop ($share of samples, $ev)"
