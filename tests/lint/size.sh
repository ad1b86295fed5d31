#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No file in src/ over 1500 lines and no function over 200: decision logic
# is split into named steps (the README's "For developers").
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 2; }
out=$(python3 "$MA_TOP/tests/lint/size.py" "$MA_TOP") || {
	printf '%s\n' "$out" | head -n 20
	echo "$(printf '%s\n' "$out" | wc -l) file(s) or function(s) too long"
	exit 1
}
echo "no file over 1500 lines, no function over 200 in src/"
