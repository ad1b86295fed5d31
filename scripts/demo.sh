#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make demo: runs memadvise on a bundled calibration workload and shows the
# report and its advice.  Argument: the build output directory.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-.output}
case "$out" in /*) ;; *) out="$top/$out" ;; esac
ma="$out/memadvise"
ex="$top/examples/bin"

banner() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

run_ma() {
	if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
		sudo "$ma" "$@"
	else
		"$ma" "$@"
	fi
}

banner "memadvise run -- examples/bin/false_sharing --threads 2 --layout shared"
echo "(two threads increment their own counters, which share one cache line)"
run_ma run -- "$ex/false_sharing" --threads 2 --layout shared --iters 5000000
banner "memadvise layout examples/bin/false_sharing counters"
"$ma" layout "$ex/false_sharing" counters
banner "memadvise run -- examples/bin/hot_cold --layout mixed --reps 64"
echo "(a loop sums two fields of a 64-byte struct: most of every line is unused;
      64 passes, about a second: the address streams that show the walk
      start after half a second)"
run_ma run -- "$ex/hot_cold" --layout mixed --reps 64
echo
echo "More: 'memadvise probe' (what this machine can measure), 'memadvise calibrate',"
echo "'man $top/man/memadvise-run.1'."
