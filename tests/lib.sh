# SPDX-License-Identifier: GPL-2.0-only
# Sourced by tests/e2e/*.sh.  Exit 0 pass, 1 fail, 2 skip; the last line says why.
set -u
: "${MA:?run through tests/run.sh}" "${MA_TMP:?}" "${MA_TOP:?}"

pass() { echo "[Success] $*"; exit 0; }
fail() { echo "[Failed: $*]"; exit 1; }
skip() { echo "[Skipped: $*]"; exit 2; }

# build_prog NAME [CFLAGS...]: tests/e2e/progs/NAME.c -> $MA_TMP/NAME
build_prog() {
	n=$1
	shift
	cc -O2 -g -fno-omit-frame-pointer -pthread "$@" -o "$MA_TMP/$n" "$MA_TOP/tests/e2e/progs/$n.c" -lm ||
		fail "cannot build tests/e2e/progs/$n.c"
}

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1 (not installed)"; }

# json FILE EXPR: evaluates a Python expression over the document 'd'.
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# counter FILE NAME: a counter's value from a run report, or "not supported".
counter() { json "$1" "[e['value'] for e in d['events'] if e['name']=='$2'][0]"; }
