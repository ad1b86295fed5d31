#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memadvise-rules(5) documents exactly the metric namespace the code has
# (the registry printed by 'memadvise rules metrics').
set -u
page="$MA_TOP/man/memadvise-rules.5"
"$MA" rules metrics | awk '{print $1}' | sort > "$MA_TMP/code" || { echo "rules metrics failed"; exit 1; }
awk '/^\.SH METRIC NAMESPACE/{on=1; next} /^\.SH/{on=0} on && prev==".TP" && /^\.B /{print $2} {prev=$0}' \
	"$page" | sed 's/\\-/-/g' | sort > "$MA_TMP/man"
[ -s "$MA_TMP/code" ] || { echo "the registry is empty"; exit 1; }
if ! diff -u "$MA_TMP/code" "$MA_TMP/man" > "$MA_TMP/diff"; then
	grep '^[-+][a-z]' "$MA_TMP/diff" | sed 's/^-/only in the code: /; s/^+/only in the man page: /'
	echo "regenerate: scripts/gen-rules-metrics.py .output/memadvise man/memadvise-rules.5"
	echo "memadvise-rules.5 and the metric registry differ"
	exit 1
fi
# every key the parser accepts is documented under KEYS
for k in id title paper severity requires for-each when inconclusive_when inconclusive_why min_samples \
	evidence message advice fix gain example explain; do
	kk=$(printf '%s' "$k" | sed 's/-/\\\\-/g')
	grep -q "^\.B $kk\$" "$page" || { echo "key '$k' is not documented in memadvise-rules.5"; exit 1; }
done
echo "$(wc -l < "$MA_TMP/code") metrics documented"
