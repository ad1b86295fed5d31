#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A fast subset of the advice-quality corpus (tests/corpus/fast.list): each
# listed variant is built, run once under memadvise and must be as labelled
# (every expected class found at a right place; GOOD and clean quiet).
# 'make eval' runs the whole corpus.
#
# The evidence is sampled: a variant right run after run can still miss in
# one run.  A variant that is not as labelled is run once more, and fails
# the test only when it is wrong again; both outcomes are printed.
. "$MA_TOP/tests/lib.sh"
need_cmd python3
python3 -c 'import yaml' 2>/dev/null || skip "needs python3-yaml"
need_cmd cc
list=${MA_CORPUS_LIST:-$MA_TOP/tests/corpus/fast.list}
python3 "$MA_TOP/tests/corpus/eval.py" --memadvise "$MA" --out "$MA_TMP/corpus" --list "$list" \
	--strict > "$MA_TMP/first.out" 2>&1
rc=$?
# a changed checksum is memadvise changing what the program computes: no rerun
grep '^OUTPUT CHANGED' "$MA_TMP/first.out" && fail "a program computed something else under memadvise"
[ $rc -eq 0 ] && pass "$(grep -c '^[a-z]' "$list") corpus variants as labelled"
[ $rc -eq 1 ] || { cat "$MA_TMP/first.out"; fail "eval.py exited $rc"; }
sed -n 's/^not as labelled: //p' "$MA_TMP/first.out" > "$MA_TMP/again.list"
[ -s "$MA_TMP/again.list" ] || { cat "$MA_TMP/first.out"; fail "a corpus run failed"; }
echo "not as labelled in the first run: $(tr '\n' ' ' < "$MA_TMP/again.list")"
grep -F -f "$MA_TMP/again.list" "$MA_TMP/first.out" | grep -v '^not as labelled'
python3 "$MA_TOP/tests/corpus/eval.py" --memadvise "$MA" --out "$MA_TMP/again" \
	--list "$MA_TMP/again.list" --strict > "$MA_TMP/again.out" 2>&1
rc=$?
grep -F -f "$MA_TMP/again.list" "$MA_TMP/again.out" | grep -v '^not as labelled'
[ $rc -eq 0 ] || fail "not as labelled twice: $(sed -n 's/^not as labelled: //p' "$MA_TMP/again.out" | tr '\n' ' ')"
pass "as labelled; $(wc -l < "$MA_TMP/again.list") variant(s) only on a second run"
