#!/bin/sh
# Under sudo the target runs as the invoking user, not as root.
. "$MA_TOP/tests/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "no 'nobody' user"
uid=$(id -u nobody) gid=$(id -g nobody)
SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=nobody "$MA" run -o "$MA_TMP/r.txt" -e page_faults -- id -u > "$MA_TMP/id.out" ||
	fail "memadvise run exited $?"
[ "$(cat "$MA_TMP/id.out")" = "$uid" ] || fail "target ran as uid $(cat "$MA_TMP/id.out"), expected $uid"
grep -Eq '^page_faults +[0-9]+' "$MA_TMP/r.txt" || fail "no page_faults counted for the dropped-privilege target"
pass "target ran as uid $uid and was counted"
