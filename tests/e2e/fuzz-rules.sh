#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A short, bounded libFuzzer run of the rule parser and the condition
# evaluator from the corpus in tests/fuzz/corpus (copied: the run adds units
# to the copy, not to the tree).  'make fuzz' runs longer.
set -u
command -v clang > /dev/null || { echo "clang is not installed"; exit 2; }
if ! sh "$MA_TOP/tests/fuzz/build.sh" "$MA_TOP" "$MA_TMP/bin" > "$MA_TMP/build.log" 2>&1; then
	tail -n 20 "$MA_TMP/build.log"
	echo "building the fuzz targets failed"
	exit 1
fi
for t in rules expr; do
	mkdir -p "$MA_TMP/corpus-$t"
	cp "$MA_TOP/tests/fuzz/corpus/$t/"* "$MA_TMP/corpus-$t/"
	if ! "$MA_TMP/bin/fuzz-$t" -runs=20000 -max_len=4096 -timeout=10 \
		-dict="$MA_TOP/tests/fuzz/$t.dict" "$MA_TMP/corpus-$t" > "$MA_TMP/$t.log" 2>&1; then
		tail -n 30 "$MA_TMP/$t.log"
		echo "fuzz-$t found a crash (input saved in the log above)"
		exit 1
	fi
done
echo "fuzz-rules and fuzz-expr: 20000 runs each, no crash"
