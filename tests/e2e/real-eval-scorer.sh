#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The real-program scorer (tests/real/eval-real.py --no-run) on a recorded
# memcached report (tests/real/fixture-memcached.json) and on copies of it
# changed one fact at a time: the reviewed report passes its checks; a
# verdict outside the reviewed bounds, no lock-contention finding naming a
# listed lock, a vDSO sample named after a locale file and a shared-line row
# on a read-only mapping each fail with exit 1; findings printed in full are
# counted as actionable, defects or UNREVIEWED, and --strict fails on the
# last two; a broken verdicts file exits 2.  No real program runs.
. "$MA_TOP/tests/lib.sh"
need_cmd python3
python3 -c 'import yaml' 2>/dev/null || skip "needs python3-yaml"

EV=$MA_TOP/tests/real/eval-real.py
FIX=$MA_TOP/tests/real/fixture-memcached.json
V=$MA_TMP/verdicts.yaml
cat > "$V" <<'EOF'
memcached:
  bound: [idle, kernel]
  busy_bound: [kernel]
  checks:
    lock_contention: [stats_lock, lru_locks, slabs_lock]
    vdso_named: true
    no_write_read_only: true
  findings:
    - rule: lock-contention
      where: '^var (lru_locks\[\d+\]|slabs_lock|stats_lock) '
      review: demoted
      note: real locks, waits a fraction of a per cent of the run
    - rule: struct-holes
      where: '^struct conn\b'
      review: actionable
      gain: 3% (a made-up gain for this test)
      command: memadvise layout memcached conn
    - rule: cacheline-spanning
      where: '^struct _stritem\b'
      review: rejected
      note: the members are on one line already
EOF

# variant NAME PYTHON: OUT_NAME/memcached/report.json, the fixture changed by PYTHON (d is the report)
variant() {
	mkdir -p "$MA_TMP/$1/memcached"
	python3 - "$FIX" "$MA_TMP/$1/memcached/report.json" "$2" <<-'EOP'
	import json, sys
	d = json.load(open(sys.argv[1]))
	exec(sys.argv[3])
	json.dump(d, open(sys.argv[2], "w"))
	EOP
}

# score NAME [ARGS]: the scorer's output in $MA_TMP/NAME.out, its exit status in $rc
score() {
	n=$1
	shift
	python3 "$EV" --no-run --verdicts "$V" --out "$MA_TMP/$n" -k memcached "$@" > "$MA_TMP/$n.out" 2>&1
	rc=$?
}

variant ok 'pass'
score ok --json "$MA_TMP/ok.json"
[ $rc -eq 0 ] || fail "the recorded report: exit $rc: $(cat "$MA_TMP/ok.out")"
grep -q "verdict: idle (74%), on the CPU kernel (75%)" "$MA_TMP/ok.out" ||
	fail "verdict line: $(grep verdict: "$MA_TMP/ok.out")"
grep -q "check lock_contention .*ok .*lru_locks\[68\] (folded)" "$MA_TMP/ok.out" ||
	fail "lock_contention: $(grep lock_contention "$MA_TMP/ok.out")"
grep -q "check vdso_named .*ok .*\[vdso\] __vdso_clock_gettime" "$MA_TMP/ok.out" ||
	fail "vdso_named: $(grep vdso_named "$MA_TMP/ok.out")"
grep -q "check no_write_read_only .*ok .*2 shared-line rows, none on a read-only mapping; 2 writes to read-only left out" \
	"$MA_TMP/ok.out" || fail "no_write_read_only: $(grep no_write_read_only "$MA_TMP/ok.out")"
n=$(grep -c "^    lock-contention .*demoted$" "$MA_TMP/ok.out")
[ "$n" -eq 5 ] || fail "$n folded lock-contention findings reviewed demoted, expected 5"
grep -q "^totals: 0 printed findings: .* 5 folded (0 unreviewed); 0 checks failed" "$MA_TMP/ok.out" ||
	fail "totals: $(tail -n 1 "$MA_TMP/ok.out")"

# each check fails on its own fact
variant bound 'd["verdict"]["busy_bound"] = "compute"'
score bound
[ $rc -eq 1 ] && grep -q "check on the CPU .*FAILED .*compute, reviewed: kernel" "$MA_TMP/bound.out" ||
	fail "a compute bound on the CPU: exit $rc: $(grep 'on the CPU' "$MA_TMP/bound.out")"
variant nolock 'd["findings"] = [f for f in d["findings"] if f["id"] != "lock-contention" or "lru" not in f["location"]["member"]]
for f in d["findings"]:
    if f["id"] == "lock-contention": f["location"]["member"] = "the lock at 0x1000"'
score nolock
[ $rc -eq 1 ] && grep -q "check lock_contention .*FAILED" "$MA_TMP/nolock.out" ||
	fail "no named lock: exit $rc: $(grep lock_contention "$MA_TMP/nolock.out")"
variant locale 'd["profile"]["functions"][-1].update(module="LC_COLLATE", function="LC_COLLATE+0x984c")'
score locale
[ $rc -eq 1 ] && grep -q "check vdso_named .*FAILED .*LC_COLLATE" "$MA_TMP/locale.out" ||
	fail "a vDSO sample named after a locale file: exit $rc: $(grep vdso_named "$MA_TMP/locale.out")"
variant ro 'r = [r for r in d["profile"]["regions"] if "w" not in r["perms"]][0]
d["data_addresses"]["shared_lines"][0]["line"] = hex(int(r["start"], 16) + 0x40)
d["data_addresses"]["shared_lines"][0]["threads"][0]["write_object"] = "_nl_C_LC_CTYPE_class"'
score ro
[ $rc -eq 1 ] && grep -q "check no_write_read_only .*FAILED .*r-xp .*libc.so.6: _nl_C_LC_CTYPE_class" "$MA_TMP/ro.out" ||
	fail "a shared line on a read-only mapping: exit $rc: $(grep no_write_read_only "$MA_TMP/ro.out")"

# findings printed in full: actionable, rejected (a defect), demoted printed (a defect), unreviewed
variant printed 'import copy
lc = [f for f in d["findings"] if f["id"] == "lock-contention"]
lc[0]["folded"] = False
def add(rule, loc):
    f = copy.deepcopy(lc[1]); f.update(id=rule, location=loc, folded=False); d["findings"].append(f)
add("struct-holes", {"struct": "conn", "member": "rbuf"})
add("cacheline-spanning", {"struct": "_stritem", "function": "do_item_get"})
add("false-sharing", {"struct": "thread_stats", "file": "/x/thread.c", "line": 90})'
score printed
[ $rc -eq 0 ] || fail "findings printed in full without --strict: exit $rc, expected 0"
grep -q "^totals: 4 printed findings: 1 reviewed actionable, 2 not actionable (defects), 1 unreviewed; 4 folded" \
	"$MA_TMP/printed.out" || fail "totals: $(tail -n 1 "$MA_TMP/printed.out")"
grep -q "^    false-sharing  *struct thread_stats thread.c:90 .*UNREVIEWED$" "$MA_TMP/printed.out" ||
	fail "no UNREVIEWED line: $(cat "$MA_TMP/printed.out")"
grep -q "^    cacheline-spanning .*rejected (a defect)$" "$MA_TMP/printed.out" || fail "no rejected line"
grep -q "^    lock-contention .*demoted (a defect)$" "$MA_TMP/printed.out" || fail "a demoted finding printed in full"
score printed --strict
[ $rc -eq 1 ] || fail "--strict with defects and an unreviewed finding printed: exit $rc, expected 1"
grep -q "^strict: 3 printed finding(s) not reviewed actionable" "$MA_TMP/printed.out" ||
	fail "strict line: $(tail -n 1 "$MA_TMP/printed.out")"

# a broken verdicts file
sed -i 's/review: rejected/review: wrong/' "$V"
score ok
[ $rc -eq 2 ] && grep -q "^error: .*findings\[2\]: review 'wrong' is not one of" "$MA_TMP/ok.out" &&
	grep -q "^hint: " "$MA_TMP/ok.out" || fail "a broken verdicts file: exit $rc: $(cat "$MA_TMP/ok.out")"
pass "real-program scorer: verdict, lock, vDSO and read-only checks, reviews and totals as described"
