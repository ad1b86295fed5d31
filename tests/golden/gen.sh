#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The outputs that recorded inputs give, one file each: the rules' findings on
# the recorded fact bases (JSON and text) and the layouts of two committed
# -g binaries (text, -R and JSON).  Usage: gen.sh MEMADVISE GOLDEN_DIR OUT_DIR
# tests/e2e/golden.sh compares a fresh run with tests/golden/expected/; after
# a deliberate change of output, regenerate with
#   sh tests/golden/gen.sh .output/memadvise tests/golden tests/golden/expected
set -eu
ma=$(realpath "$1") out=$(mkdir -p "$3" && realpath "$3")
cd "$2"
export MEMADVISE_PROFILE="$PWD/machine.json" LC_ALL=C
for f in *-*.json; do
	b=$(basename "$f" .json)
	"$ma" -j rules eval --replay "$f" > "$out/$b.eval.json"
	"$ma" rules eval --replay "$f" > "$out/$b.eval.txt"
done
for b in layout_c layout_cc; do
	"$ma" layout -c 64 "$b.bin" > "$out/$b.layout.txt"
	"$ma" layout -c 64 -R "$b.bin" > "$out/$b.reorg.txt"
	"$ma" layout -c 64 -j "$b.bin" > "$out/$b.layout.json"
	"$ma" layout -c 64 -s "$b.bin" > "$out/$b.sizes.txt"
done
"$ma" rules metrics > "$out/rules-metrics.txt"
# rule files are named from where the binary found them: keep from rules/ on
"$ma" -j rules list | sed 's|"file":"[^"]*\\/rules\\/|"file":"rules\\/|g' > "$out/rules-list.json"
