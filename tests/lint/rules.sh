#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The built-in rules pass 'memadvise rules lint' (examples checked too).
set -u
out=$("$MA" rules lint --examples "$MA_TOP/examples" "$MA_TOP/rules" 2>&1)
rc=$?
[ $rc -eq 0 ] || { printf '%s\n' "$out"; echo "rules lint failed (exit $rc)"; exit 1; }
n=$(find "$MA_TOP/rules" -name '*.yaml' | wc -l)
[ "$n" -ge 13 ] || { echo "only $n rule files"; exit 1; }
echo "$n rules lint clean"
