#!/bin/sh
# make install honours PREFIX and DESTDIR, and the installed binary runs.
. "$MA_TOP/tests/lib.sh"
d="$MA_TMP/dest"
make -s -C "$MA_TOP" install OUTPUT="$MA_OUTPUT" PREFIX=/opt/ma DESTDIR="$d" > "$MA_TMP/log" 2>&1 ||
	fail "make install failed: $(tail -n 3 "$MA_TMP/log")"
[ -x "$d/opt/ma/bin/memadvise" ] || fail "no $d/opt/ma/bin/memadvise"
[ -f "$d/opt/ma/share/man/man1/memadvise-run.1" ] || fail "man pages not installed under PREFIX"
"$d/opt/ma/bin/memadvise" --version | grep -q '^memadvise ' || fail "installed binary does not run"
[ -e /opt/ma ] && fail "install wrote outside DESTDIR"
pass "installed under DESTDIR/PREFIX"
