# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests/e2e/*.sh.  Exit 0 pass, 1 fail, 2 skip; the last line says why.
set -u
: "${MA:?run through tests/run.sh}" "${MA_TMP:?}" "${MA_TOP:?}"

pass() { echo "[Success] $*"; exit 0; }
fail() { echo "[Failed: $*]"; exit 1; }
skip() { echo "[Skipped: $*]"; exit 2; }

# build_prog NAME [CFLAGS...]: tests/e2e/progs/NAME.c -> $MA_TMP/NAME
build_prog() {
	n=$1
	shift
	cc -O2 -g -fno-omit-frame-pointer -pthread "$@" -o "$MA_TMP/$n" "$MA_TOP/tests/e2e/progs/$n.c" -lm ||
		fail "cannot build tests/e2e/progs/$n.c"
}

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1 (not installed)"; }

# json FILE EXPR: evaluates a Python expression over the document 'd'.
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# counter FILE NAME: a counter's value from a run report, or "not supported" /
# "not counted".
counter() { json "$1" "[e['value'] for e in d['events'] if e['name']=='$2'][0]"; }

# The kernel's tick rate (CONFIG_HZ), empty when its config is not found.
kernel_hz() {
	{ cat "/boot/config-$(uname -r)" 2>/dev/null || zcat /proc/config.gz 2>/dev/null; } |
		sed -n 's/^CONFIG_HZ=//p' | head -n 1
}

# memadvise's sampling rate without -F: cpu-clock at 1000 Hz on bare metal;
# in a virtualized guest the scheduler tick (HZ, profile__tick_plan), or
# cpu-clock at 500 Hz where the tick cannot sample.  The benches sample perf
# at it.
default_hz() {
	if grep -qw hypervisor /proc/cpuinfo; then
		_hz=$(kernel_hz)
		if [ -n "$_hz" ] && [ -r /sys/kernel/btf/vmlinux ]; then echo "$_hz"; else echo 500; fi
	else
		echo 1000
	fi
}

# Waits (at most 30 s) until a child of PARENT whose command line matches
# PATTERN shows, in /proc/PID/stat, awk expression EXPR (fields as $10 minflt,
# $14 utime, $15 stime) >= MIN: a test that interrupts a run does so once the
# target has done something, not after a fixed sleep that a loaded machine
# may not honour.
wait_child_stat() {
	for _ in $(seq 300); do
		_pid=$(pgrep -P "$1" -f "$2" | head -n 1)
		if [ -n "$_pid" ]; then
			_v=$(awk "{print int($3)}" "/proc/$_pid/stat" 2>/dev/null)
			[ "${_v:-0}" -ge "$4" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}

# ... until it has used MS milliseconds of CPU.
wait_child_cpu() {
	wait_child_stat "$1" "$2" "(\$14 + \$15) * 1000 / $(getconf CLK_TCK)" "$3"
}
