#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The fix pointer-chasing names for sqlite3's sorter (docs/real-programs.md):
# builds the sqlite3 shell of scripts/real-programs.sh again with
# sqlite-sort-array.patch (vdbeSorterSort() sorts an array of pointers to
# the records, merging runs of the array and prefetching the records it
# compares 8 steps ahead, instead of merging linked lists, where each step
# waits for the record before it), checks that both give the same output
# and a sound database, then runs tests/real/sqlite-work.sql with both,
# interleaved, and prints the median user time of its two CREATE INDEX
# statements ('.timer on').
#
#   sh tests/real/sqlite-sort-array.sh [ROUNDS]     (default 7)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
real=${XDG_CACHE_HOME:-$HOME/.cache}/memadvise/real
src=$(ls -d "$real"/sqlite3-*/ 2>/dev/null | head -n 1)
[ -n "$src" ] && [ -x "$src/sqlite3-g" ] ||
	{ echo "skipped: no $real/sqlite3-*/sqlite3-g (sh scripts/real-programs.sh)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src/sqlite3.c" "$src/sqlite3.h" "$src/shell.c" "$tmp/"
(cd "$tmp" && patch -s -p1 < "$top/tests/real/sqlite-sort-array.patch")
${CC:-cc} -g -O1 -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_MATH_FUNCTIONS -o "$tmp/sqlite3-arr" \
	"$tmp/shell.c" "$tmp/sqlite3.c" -lm -lpthread -ldl
python3 - "$src/sqlite3-g" "$tmp/sqlite3-arr" "$top/tests/real/sqlite-work.sql" "$tmp" "${1:-7}" <<'PY'
import os, re, statistics, subprocess, sys

orig, patched, sql, tmp, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
script = open(sql).read().replace("\nCREATE INDEX", "\n.timer on\nCREATE INDEX", 1)
bins = [("as built", orig), ("array sort", patched)]
times = {k: [] for k, _ in bins}
check = script + "\nPRAGMA integrity_check;\nSELECT k FROM t ORDER BY k LIMIT 3 OFFSET 1000000;\n"
outs = []
for k, b in bins:
    db = os.path.join(tmp, "check.db")
    if os.path.exists(db):
        os.unlink(db)
    outs.append(subprocess.run([b, db], input=check.replace(".timer on", ""), capture_output=True,
                               text=True, check=True).stdout)
if outs[0] != outs[1] or "\nok\n" not in outs[0]:
    raise SystemExit("the patched sqlite3 gives another output or an unsound database")
for r in range(rounds):
    for k, b in (bins if r % 2 == 0 else bins[::-1]):
        db = os.path.join(tmp, "work.db")
        if os.path.exists(db):
            os.unlink(db)
        out = subprocess.run([b, db], input=script, capture_output=True, text=True, check=True).stdout
        t = [float(m) for m in re.findall(r"Run Time: real [0-9.]+ user ([0-9.]+)", out)]
        times[k].append(sum(t[:2]))
print("sqlite3 CREATE INDEX x2, user seconds, %d interleaved rounds (median, min-max):" % rounds)
for k, v in times.items():
    print("  %-12s %.3f (%.3f-%.3f)" % (k, statistics.median(v), min(v), max(v)))
a, b = statistics.median(times["as built"]), statistics.median(times["array sort"])
print("  change       %+.1f%%" % (100 * (b - a) / a))
PY
