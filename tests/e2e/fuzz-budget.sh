#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A short, bounded libFuzzer run of the budget-file parser of 'memadvise
# check' from tests/fuzz/corpus/budget (copied: the run adds units to the
# copy, not to the tree).
set -u
# the target is built with its own sanitizers: the sanitizer pass of make
# check would build and run the very same thing again
[ "${MA_ASAN:-0}" = 1 ] && { echo "fuzz-budget runs in the first pass (already under ASan and UBSan)"; exit 2; }
command -v clang > /dev/null || { echo "clang is not installed"; exit 2; }
top=$MA_TOP
# shellcheck disable=SC2046
if ! clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$top/src" -I"$top" -D_GNU_SOURCE $(pkg-config --cflags yaml-0.1 libbpf) \
	"$top/tests/fuzz/fuzz-budget.c" "$top/src/rules/budget.c" "$top/src/model/sim.c" \
	"$top/src/model/findings.c" "$top/src/base/util.c" "$top/src/base/log.c" \
	-o "$MA_TMP/fuzz-budget" $(pkg-config --libs yaml-0.1 libbpf) -lm > "$MA_TMP/build.log" 2>&1; then
	tail -n 20 "$MA_TMP/build.log"
	echo "building fuzz-budget failed"
	exit 1
fi
mkdir -p "$MA_TMP/corpus"
cp "$top/tests/fuzz/corpus/budget/"* "$MA_TMP/corpus/"
if ! "$MA_TMP/fuzz-budget" -runs=20000 -max_len=4096 -timeout=10 "$MA_TMP/corpus" > "$MA_TMP/log" 2>&1; then
	tail -n 30 "$MA_TMP/log"
	echo "fuzz-budget found a crash (input saved in the log above)"
	exit 1
fi
echo "fuzz-budget: 20000 runs, no crash"
