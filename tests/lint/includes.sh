#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The #include graph of src/ follows the module directions (README, "For
# developers"): model uses only base, collect never reaches rules or report,
# report reads only the model, and no two folders include each other.
command -v python3 >/dev/null || { echo "python3 is not installed"; exit 2; }
out=$(python3 "$MA_TOP/tests/lint/includes.py" "$MA_TOP") || {
	printf '%s\n' "$out" | head -n 20
	echo "$(printf '%s\n' "$out" | wc -l) include(s) break the module directions"
	exit 1
}
echo "$(find "$MA_TOP/src" -name '*.[ch]' | wc -l) files: every include follows the module directions, no cycle between folders"
