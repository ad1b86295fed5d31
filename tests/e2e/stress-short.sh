#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A short run of the fault-injection script (tests/stress/stress.py): every
# kind of failing target, two runs each with a signal to memadvise at a
# random moment (the seed is printed; 'sh tests/stress/stress.sh' runs 50 per
# kind).  Then the script itself is checked on a memadvise that exits with a
# wrong status and on one whose BPF program outlives it: it must count them
# and fail.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd python3
need_cmd cc
need_cmd bpftool
[ -r /proc/self/task/$$/children ] || skip "needs /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)"
mkdir -p "$MA_TMP/chroot-probe" && chroot "$MA_TMP/chroot-probe" /nonexistent 2>/dev/null
[ $? -eq 127 ] || skip "chroot(2) is not permitted here"

TMPDIR=$MA_TMP python3 "$MA_TOP/tests/stress/stress.py" --ma "$MA" -n "${MA_STRESS_RUNS:-2}" \
	> "$MA_TMP/stress.out" 2>&1
rc=$?
cat "$MA_TMP/stress.out"
[ $rc -eq 0 ] || fail "stress.py exited $rc: $(grep -c '^FAIL ' "$MA_TMP/stress.out") failed runs, $(head -n 1 "$MA_TMP/stress.out")"

# a memadvise whose exit status is always 1: every run is counted wrong
printf '#!/bin/sh\n"%s" "$@"\nexit 1\n' "$MA" > "$MA_TMP/wrong-exit"
chmod +x "$MA_TMP/wrong-exit"
TMPDIR=$MA_TMP python3 "$MA_TOP/tests/stress/stress.py" --ma "$MA_TMP/wrong-exit" -k instant -n 1 \
	--seed 1 > "$MA_TMP/self.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^FAIL exit' "$MA_TMP/self.out" ||
	{ cat "$MA_TMP/self.out"; fail "a wrong exit status went unnoticed (stress.py exited $rc)"; }
# a BPF program of memadvise's that outlives it, held by a process that got
# its fd (as a child that inherited it would): counted as a leak
cat > "$MA_TMP/leaky" <<EOF2
#!/bin/sh
(env -u STRESS_MARK python3 "$MA_TOP/tests/stress/holder.py" \$\$ on_fault 20 & echo \$! > "$MA_TMP/holder.pid")
exec "$MA" "\$@"
EOF2
chmod +x "$MA_TMP/leaky"
TMPDIR=$MA_TMP python3 "$MA_TOP/tests/stress/stress.py" --ma "$MA_TMP/leaky" -k segv -n 1 \
	--seed 1 > "$MA_TMP/leak.out" 2>&1
rc=$?
kill "$(cat "$MA_TMP/holder.pid")" 2>/dev/null
[ $rc -eq 1 ] && grep -q '^FAIL bpf: .*prog [0-9]* on_fault held by' "$MA_TMP/leak.out" ||
	{ cat "$MA_TMP/leak.out"; fail "a BPF program left held went unnoticed (stress.py exited $rc)"; }
pass "$(sed -n "s/ in .*//p" "$MA_TMP/stress.out" | tail -n 1), 0 failed checks; a wrong status and a held BPF program are caught"
