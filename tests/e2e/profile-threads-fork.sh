#!/bin/sh
# Multi-threaded and forking targets: threads that run different code are
# reported per thread; a forked child's faults are counted (total matches perf
# stat, which follows children) and sampled at their line (one row with its
# parent's at the same line); an exec'd child's hot code is
# symbolised from the maps captured while it ran.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd perf
build_prog hot_line
build_prog threads_fork
build_prog exec_child
n=3000
"$MA" run -j -o "$MA_TMP/t.json" -- "$MA_TMP/hot_line" 300 2 > /dev/null || fail "run hot_line exited $?"
json "$MA_TMP/t.json" "sorted(set(t['function'] for t in d['profile'].get('thread_functions', [])[:2]))" |
	grep -q "\['cold_loop', 'hot_loop'\]" ||
	fail "per-thread hot functions missing: $(json "$MA_TMP/t.json" "d['profile'].get('thread_functions', [])[:3]")"

"$MA" run -j -o "$MA_TMP/f.json" -- "$MA_TMP/threads_fork" 2 $n || fail "run threads_fork exited $?"
perf stat -x, -e page-faults -o "$MA_TMP/perf.csv" "$MA_TMP/threads_fork" 2 $n || skip "perf stat fails"
pf=$(awk -F, '/page-faults/{print $1}' "$MA_TMP/perf.csv")
ma=$(json "$MA_TMP/f.json" "d['profile']['page_faults']['total']")
python3 -c "import sys; a,b=$ma,$pf; sys.exit(0 if abs(a-b)<=0.01*b and a>=3*$n else 1)" ||
	fail "threads+fork: profile faults=$ma, perf=$pf"
np=$(json "$MA_TMP/f.json" "len(d['profile']['processes'])")
[ "$np" -ge 2 ] || fail "the forked child is not among the processes ($np)"
# the parent's threads and the child fault at the same line: one site of
# both processes, estimated from samples (a child starts with its parent's
# period): within 20% of the 3 x n faults
json "$MA_TMP/f.json" "[s['function'] for s in d['profile']['page_faults']['sites'] if s['processes'] == 2 and s['count'] >= 3 * $n * 8 // 10]" |
	grep -q "'touch'" || fail "the child's faults are not attributed to touch(): $(json "$MA_TMP/f.json" "d['profile']['page_faults']['sites'][:4]")"

"$MA" run -j -o "$MA_TMP/e.json" -- "$MA_TMP/exec_child" "$MA_TMP/hot_line" 150 > /dev/null ||
	fail "run exec_child exited $?"
json "$MA_TMP/e.json" "[(f['function'], f['module']) for f in d['profile']['functions'][:1]]" |
	grep -q "('hot_loop', 'hot_line')" ||
	fail "exec'd child's hot function not resolved: $(json "$MA_TMP/e.json" "d['profile']['functions'][:2]")"

# subshells of subshells that never exec: each has its parent's name, even
# when its fork record is read (from another CPU's ring) before its parent's
for i in 1 2 3 4 5; do
	"$MA" run -j -o "$MA_TMP/n.json" -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do ( ( /bin/true; : ); : ) & done; wait' ||
		fail "run nested subshells exited $?"
	json "$MA_TMP/n.json" "len(d['profile']['processes']) > 20 and all(p['comm'] for p in d['profile']['processes'])" |
		grep -q True || fail "processes without a name: $(json "$MA_TMP/n.json" "[(p['pid'], p['parent'], p['comm']) for p in d['profile']['processes'] if not p['comm']]")"
done
pass "threads differ, forked child faults $ma (perf $pf), exec'd child symbolised, subshells named"
