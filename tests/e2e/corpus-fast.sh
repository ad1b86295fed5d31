#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A fast subset of the advice-quality corpus (tests/corpus/fast.list): each
# listed variant is built, run once under memadvise and must be as labelled
# (every expected class found at a right place; GOOD and clean quiet).
# 'make eval' runs the whole corpus.
. "$MA_TOP/tests/lib.sh"
need_cmd python3
python3 -c 'import yaml' 2>/dev/null || skip "needs python3-yaml"
need_cmd cc
list=$MA_TOP/tests/corpus/fast.list
python3 "$MA_TOP/tests/corpus/eval.py" --memadvise "$MA" --out "$MA_TMP/corpus" --list "$list" --strict
rc=$?
[ $rc -eq 0 ] || fail "eval.py --strict exited $rc: a listed variant is not as labelled"
pass "$(grep -c '^[a-z]' "$list") corpus variants as labelled"
