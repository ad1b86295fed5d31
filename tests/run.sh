#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The test runner.  Runs every layer and prints one line per test:
#   ok   NAME
#   FAIL NAME: why
#   SKIP NAME: why
# and then the single summary line "N passed, N failed, N skipped".
# Exits 1 when anything failed.
#
#   unit   tests/unit/u-*.c        (the unit-tests binary, one line per case)
#   cli    tests/cli/*.t           (table: args | exit N | stdout RE | stderr RE)
#   e2e    tests/e2e/*.sh          (exit 0 pass, 1 fail, 2 skip; last line = why)
#   lint   tests/lint/*.sh         (same protocol as e2e)
#
# Usage: tests/run.sh [PATTERN]   only tests whose name contains PATTERN.
# Environment given to scripts: MA (the binary), MA_TOP, MA_OUTPUT, EXAMPLES,
# MA_TMP (a scratch directory removed afterwards), MA_ASAN (1 under sanitizers).

top=$(cd "$(dirname "$0")/.." && pwd)
out=${MA_OUTPUT:-.output}
case "$out" in /*) ;; *) out="$top/$out" ;; esac
pattern=${1:-}

MA="$out/memadvise"
MA_TOP="$top"
EXAMPLES="$top/examples/bin"
MA_FIXTURES=$(mktemp -d "${TMPDIR:-/tmp}/ma-fixtures.XXXXXX")
export MA MA_TOP MA_OUTPUT="$out" EXAMPLES MA_FIXTURES
export LC_ALL=C

pass=0 fail=0 skip=0
log=$(mktemp "${TMPDIR:-/tmp}/ma-run.XXXXXX")
trap 'rm -rf "$log" "$MA_FIXTURES"' EXIT INT TERM

want() { [ -z "$pattern" ] || case "$1" in *"$pattern"*) return 0 ;; *) return 1 ;; esac; }

record() { # status name [why]
	case "$1" in
	ok) pass=$((pass + 1)); printf 'ok   %s\n' "$2" ;;
	FAIL) fail=$((fail + 1)); printf 'FAIL %s: %s\n' "$2" "$3" ;;
	SKIP) skip=$((skip + 1)); printf 'SKIP %s: %s\n' "$2" "$3" ;;
	esac
}

# --- unit ---------------------------------------------------------------
if [ -x "$out/unit-tests" ]; then
	"$out/unit-tests" > "$log" 2> "$log.err"
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok   "*) want "${line#ok   }" && record ok "${line#ok   }" ;;
		"SKIP "*) n=${line#SKIP }; want "${n%%: *}" && record SKIP "${n%%: *}" "${n#*: }" ;;
		"FAIL "*) n=${line#FAIL }; want "${n%%: *}" && record FAIL "${n%%: *}" "$(grep -m1 . "$log.err" 2>/dev/null | sed 's/^ *//')" ;;
		esac
	done < "$log"
	[ -s "$log.err" ] && [ "$fail" -gt 0 ] && sed 's/^/    /' "$log.err"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$log"; then
		record FAIL unit/harness "unit-tests exited $rc"
	fi
	rm -f "$log.err"
elif want unit; then
	record FAIL unit/harness "$out/unit-tests was not built (run make)"
fi

# --- cli tables -----------------------------------------------------------
for t in "$top"/tests/cli/*.t; do
	[ -e "$t" ] || continue
	base=$(basename "$t" .t)
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case "$line" in ''|'#'*) continue ;; esac
		name="cli/$base:$n"
		want "$name" || continue
		args=$(printf '%s' "$line" | awk -F' [|] ' '{print $1}')
		exp=$(printf '%s' "$line" | awk -F' [|] ' '{print $2}' | sed 's/^exit //')
		ore=$(printf '%s' "$line" | awk -F' [|] ' '{print $3}')
		ere=$(printf '%s' "$line" | awk -F' [|] ' '{print $4}')
		eval "set -- $args"
		(cd "$MA_FIXTURES" && "$MA" "$@") > "$log" 2> "$log.err" < /dev/null
		rc=$?
		if [ "$rc" != "$exp" ]; then
			record FAIL "$name" "'$args' exited $rc, expected $exp: $(head -c 200 "$log.err")"
		elif [ -n "$ore" ] && ! grep -Eq -- "$ore" "$log"; then
			record FAIL "$name" "'$args' stdout does not match /$ore/"
		elif [ -n "$ere" ] && ! grep -Eq -- "$ere" "$log.err"; then
			record FAIL "$name" "'$args' stderr does not match /$ere/: $(head -c 200 "$log.err")"
		else
			record ok "$name"
		fi
	done < "$t"
done
rm -f "$log.err"

# --- scripts: e2e and lint --------------------------------------------------
for t in "$top"/tests/lint/*.sh "$top"/tests/e2e/*.sh; do
	[ -e "$t" ] || continue
	name="$(basename "$(dirname "$t")")/$(basename "$t" .sh)"
	want "$name" || continue
	MA_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ma-test.XXXXXX")
	export MA_TMP
	timeout -k 10 900 sh "$t" > "$log" 2>&1 < /dev/null
	rc=$?
	why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
	case $rc in
	0) record ok "$name" ;;
	2) record SKIP "$name" "$why" ;;
	124) record FAIL "$name" "timed out after 900 s"; sed 's/^/    /' "$log" | tail -n 20 ;;
	*) record FAIL "$name" "$why"; sed 's/^/    /' "$log" | tail -n 30 ;;
	esac
	rm -rf "$MA_TMP"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
