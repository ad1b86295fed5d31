#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Builds the libFuzzer targets into OUTDIR: fuzz-rules (rule parser) and
# fuzz-expr (condition evaluator).  Usage: tests/fuzz/build.sh TOP OUTDIR
set -eu
top=$1 out=$2
mkdir -p "$out"
CLANG=${CLANG:-clang}
flags="-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-I$top/src -I$top -D_GNU_SOURCE -DMA_VERSION=\"fuzz\" -DMA_DATADIR=\"/nonexistent\"
	$(pkg-config --cflags yaml-0.1 json-c libbpf)"
libs="$(pkg-config --libs yaml-0.1 json-c libbpf) -lm"
# shellcheck disable=SC2086
$CLANG $flags "$top/tests/fuzz/fuzz-expr.c" "$top/src/rules/expr.c" -o "$out/fuzz-expr" -lm
# shellcheck disable=SC2086
$CLANG $flags "$top/tests/fuzz/fuzz-rules.c" "$top/src/rules/rules.c" "$top/src/rules/expr.c" \
	"$top/src/rules/facts.c" "$top/src/model/findings.c" "$top/src/base/util.c" \
	"$top/src/base/log.c" "$top/src/base/json.c" -o "$out/fuzz-rules" $libs
