#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The man pages and --help name the same long options; every command has a
# page; every page is free of groff warnings.
set -u
man="$MA_TOP/man"
fail=0
tmp="$MA_TMP"

# Long options of a --help text: "  -x, --name ARG   text" or "      --name".
help_opts() { "$MA" "$@" --help | sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\2/p' | sort -u; }
# Long options in the OPTIONS section's .TP headers of a page.
man_opts() {
	awk '/^\.SH OPTIONS/{on=1; next} /^\.SH/{on=0} on && prev==".TP"{print} {prev=$0}' "$1" |
		grep -o '\\-\\-[a-z][a-z0-9\\-]*' | sed 's/\\-/-/g' | sort -u
}

check_pair() { # label page help-args...
	label=$1 page=$2
	shift 2
	help_opts "$@" > "$tmp/h"
	man_opts "$page" > "$tmp/m"
	if ! [ -s "$tmp/h" ]; then
		echo "$label: --help lists no long options"
		fail=1
		return
	fi
	if ! diff -u "$tmp/h" "$tmp/m" > "$tmp/d"; then
		echo "$label: --help and $(basename "$page") differ (- help only, + man only):"
		grep '^[-+]-' "$tmp/d"
		fail=1
	fi
}

check_pair memadvise "$man/memadvise.1"
cmds=$("$MA" --help | awk '/^Commands:/{on=1; next} /^$/{on=0} on{print $1}')
for c in $cmds; do
	case "$c" in help|version) continue ;; esac
	page="$man/memadvise-$c.1"
	if ! [ -f "$page" ]; then
		echo "command '$c' has no man page (man/memadvise-$c.1)"
		fail=1
		continue
	fi
	check_pair "$c" "$page" "$c"
	checked="${checked:-} $c"
	grep -q "^\.B[RI]* *memadvise-$c\|memadvise-$c (1)\|\.BR memadvise-$c (1)" "$man/memadvise.1" ||
		{ echo "memadvise.1 does not mention memadvise-$c(1)"; fail=1; }
done
for p in "$man"/*.[1-8]; do
	out=$(groff -man -ww -z "$p" 2>&1)
	if [ -n "$out" ]; then
		echo "$(basename "$p"): groff warnings: $out"
		fail=1
	fi
done
if [ $fail -ne 0 ]; then
	echo "man pages and --help disagree"
	exit 1
fi
echo "man pages agree with --help for: memadvise${checked:-}"
