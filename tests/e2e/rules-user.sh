#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# User rules: --rules DIR and $MEMADVISE_RULES add rules; a user rule with a
# built-in id replaces the built-in one; 'run' applies them.
set -u
d="$MA_TMP/myrules"
mkdir -p "$d/mine"
sed 's/^id: page-fault-storm$/id: my-faults/; s/^title: .*/title: My own fault rule/' \
	"$MA_TOP/rules/vm/page-fault-storm.yaml" > "$d/mine/my-faults.yaml"
sed 's/^title: .*/title: Replaced by the user/' "$MA_TOP/rules/layout/struct-holes.yaml" \
	> "$d/mine/struct-holes.yaml"
"$MA" --rules "$d" rules list | grep -q '^my-faults .*My own fault rule' ||
	{ echo "--rules DIR: my-faults not listed"; exit 1; }
MEMADVISE_RULES="$d" "$MA" rules show struct-holes | grep -q '^struct-holes: Replaced by the user' ||
	{ echo "MEMADVISE_RULES: the user's struct-holes does not replace the built-in one"; exit 1; }
n=$("$MA" --rules "$d" -j rules list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
b=$("$MA" -j rules list | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$n" -eq $((b + 1)) ] || { echo "expected $((b + 1)) rules with the user's, got $n"; exit 1; }
"$MA" --rules "$d" run -o "$MA_TMP/r.txt" -- true > /dev/null 2>&1 || { echo "run with --rules failed"; exit 1; }
grep -q "of $n rules quiet" "$MA_TMP/r.txt" || { echo "run did not apply the $n rules: $(grep Findings "$MA_TMP/r.txt")"; exit 1; }
"$MA" --rules "$d" run --no-advice -j -o "$MA_TMP/n.json" -- true > /dev/null 2>&1 &&
	python3 -c 'import json,sys; sys.exit("findings" in json.load(open(sys.argv[1])))' "$MA_TMP/n.json" ||
	{ echo "--no-advice still applied the rules"; exit 1; }
echo "user rules add to and replace the built-in ones; --no-advice skips them"
