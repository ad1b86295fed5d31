#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every scenario of tests/corpus has a well-formed label: known classes,
# 'where' places that exist in its source, BAD/GOOD or clean variants.
command -v python3 > /dev/null 2>&1 || { echo "needs python3"; exit 2; }
python3 -c 'import yaml' 2> /dev/null || { echo "needs python3-yaml"; exit 2; }
out=$(python3 "$MA_TOP/tests/corpus/eval.py" --check 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || exit 1
