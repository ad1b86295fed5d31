#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Under sudo the simulated workload runs as the invoking user (not root),
# cachegrind can write its results, and the check completes.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd valgrind
cat > "$MA_TMP/b.yaml" <<'EOB'
version: 1
geometry:
  I1: 32768,8,64
  D1: 32768,8,64
  LL: 8M,16,64
workloads:
  - name: id
    min_instructions: 1000
    limits:
      - metric: instructions
        max: 1e12
EOB
chmod 755 "$MA_TMP"
SUDO_UID=65534 SUDO_GID=65534 SUDO_USER=nobody "$MA" check -b "$MA_TMP/b.yaml" -- id -u \
	> "$MA_TMP/out" 2> "$MA_TMP/err" || fail "exit $?: $(tail -n 3 "$MA_TMP/err") $(tail -n 3 "$MA_TMP/out")"
grep -qx 65534 "$MA_TMP/err" || fail "the workload did not run as uid 65534: $(head -n 3 "$MA_TMP/err")"
grep -q '^id: instructions .* simulation pass' "$MA_TMP/out" || fail "no simulated count"
pass "the workload ran as the sudo user under cachegrind"
