#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: runs every tests/bench/*.sh (except this one).  Each prints its
# ratios against the named peer, measured in the same run.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-.output}
case "$out" in /*) ;; *) out="$top/$out" ;; esac
MA="$out/memadvise" MA_TOP="$top" EXAMPLES="$top/examples/bin"
export MA MA_TOP EXAMPLES LC_ALL=C
rc=0
for b in "$top"/tests/bench/*.sh; do
	[ "$(basename "$b")" = run.sh ] && continue
	echo "=== $(basename "$b" .sh)"
	MA_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ma-bench.XXXXXX")
	export MA_TMP
	sh "$b" || { echo "bench $(basename "$b") failed"; rc=1; }
	rm -rf "$MA_TMP"
done
exit $rc
