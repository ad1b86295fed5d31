#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every example is built, answers --help, runs its variants at small sizes,
# and variants that compute the same thing print the same checksum.
. "$MA_TOP/tests/lib.sh"
[ -d "$EXAMPLES" ] || fail "examples are not built (make examples)"

for src in "$MA_TOP"/examples/*.c; do
	b=$(basename "$src" .c)
	[ -x "$EXAMPLES/$b" ] || fail "examples/$b.c has no binary $EXAMPLES/$b"
	"$EXAMPLES/$b" --help > "$MA_TMP/help" 2>&1 || fail "$b --help exited $?"
	grep -q "^Usage: $b" "$MA_TMP/help" || fail "$b --help has no 'Usage: $b' line"
	grep -q "^Examples:" "$MA_TMP/help" || fail "$b --help has no Examples block"
	"$EXAMPLES/$b" --no-such-option > /dev/null 2>&1 && fail "$b accepts an unknown option"
done

# sum NAME ARGS...: runs one variant, prints its checksum; fails when it fails.
sum() {
	b=$1
	shift
	"$EXAMPLES/$b" "$@" > "$MA_TMP/out" 2> "$MA_TMP/err" || fail "$b $* exited $?: $(tail -n 2 "$MA_TMP/err")"
	grep -q '^result ' "$MA_TMP/err" || fail "$b $* printed no result line"
	sed -n 's/^checksum //p' "$MA_TMP/out"
}
# same NAME 'ARGS1' 'ARGS2' ...: every variant prints the same checksum.
same() {
	b=$1
	shift
	first=""
	for a in "$@"; do
		# shellcheck disable=SC2086
		# (sum's fail message is in its output: print it)
		c=$(sum "$b" $a) || { echo "$c"; exit 1; }
		[ -n "$c" ] || fail "$b $a printed no checksum"
		if [ -z "$first" ]; then
			first=$c first_args=$a
		elif [ "$c" != "$first" ]; then
			fail "$b: '$a' gives checksum $c, '$first_args' gives $first"
		fi
	done
	runs=$((runs + $#))
}

runs=0
same list_walk "-o inc -n 7 -w 64K -r seq -k 50000 -R 1" "-o inc -n 7 -w 64K -r random -k 50000 -R 1"
sum list_walk -o addnext -n 1 -s 1K:16K -k 10000 -R 1 > /dev/null || exit 1
same matmul "-v naive -n 64" "-v transposed -n 64" "-v tiled -n 64" "-v vector -n 64" "-v vector -n 64 --sse2"
same matrix_init "-o row -n 200 -R 1" "-o col -n 200 -R 1" "-o row -s nt -n 200 -R 1" "-o col -s nt -n 200 -R 1"
same false_sharing "-l shared -i 20000" "-l padded -i 20000" "-l shared -s global -i 20000" \
	"-l padded -s global -i 20000" "-l shared -o plain -i 20000"
same atomic_inc "-o add -i 20000" "-o fetch-add -i 20000" "-o cas -i 20000" "-o local -i 20000"
same struct_span "-l split -w 64K -R 1" "-l packed -w 64K -R 1" "-l split -r random -w 64K -R 1" \
	"-l packed -r random -w 64K -R 1"
same unaligned "-o 60 -w 64K -R 1" "-o 0 -w 64K -R 1"
same assoc_conflict "-s 4096 -c 16 -k 10000 -R 1" "-s 4160 -c 16 -k 10000 -R 1"
same tlb "-l page -n 256 -k 1000 -R 1" "-l packed -n 256 -k 1000 -R 1" "-l page -o zero -n 256 -k 1000 -R 1"
same huge_pages "-t off -w 8M -k 10000 -R 1" "-t on -w 8M -k 10000 -R 1"
same page_faults "-b fresh -s 1M -n 4" "-b reuse -s 1M -n 4" "-b populate -s 1M -n 4"
same branches "-d random -n 100000 -R 1" "-d sorted -n 100000 -R 1"
same hot_cold "-l mixed -n 10000 -R 1" "-l split -n 10000 -R 1"
same page_conflict "-p plain -n 16 -P 2" "-p coloured -n 16 -P 2"
same page_stride "-o spin -m global -t 2 -L 4 -n 10000" "-o spin -m local -t 2 -L 4 -n 10000" \
	"-o mutex -m global -a same -t 2 -L 4 -n 10000"
sum page_stride -o read -s 2:8 -t 2 -n 1000 > /dev/null || exit 1
sum bandwidth -m mix -x 3:1 -w 64K -p 2 > /dev/null || exit 1
sum bandwidth -m copy -w 64K -p 2 -t 2 > /dev/null || exit 1
sum bandwidth -m read -S 64 -w 64K -p 2 > /dev/null || exit 1
sum loaded_latency -w 1M -m 5 -d 0,1000 > /dev/null || exit 1
pass "$(ls "$MA_TOP"/examples/*.c | wc -l) examples answer --help; $runs paired runs agree on checksums"
