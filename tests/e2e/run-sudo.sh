#!/bin/sh
# Under sudo the target runs as the invoking user, not as root.
. "$MA_TOP/tests/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "no 'nobody' user"
uid=$(id -u nobody) gid=$(id -g nobody)
chmod 755 "$MA_TMP" && mkdir "$MA_TMP/u" && chown "$uid:$gid" "$MA_TMP/u"
SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=nobody "$MA" run -o "$MA_TMP/u/r.txt" -e page_faults -- \
	sh -c 'id -u; id -g; id -G' > "$MA_TMP/id.out" || fail "memadvise run exited $?"
[ "$(sed -n 1p "$MA_TMP/id.out")" = "$uid" ] || fail "target ran as uid $(sed -n 1p "$MA_TMP/id.out"), expected $uid"
[ "$(sed -n 2p "$MA_TMP/id.out")" = "$gid" ] || fail "target ran as gid $(sed -n 2p "$MA_TMP/id.out"), expected $gid"
# the user's groups, not root's
[ "$(sed -n 3p "$MA_TMP/id.out")" = "$(id -G nobody)" ] ||
	fail "target's groups $(sed -n 3p "$MA_TMP/id.out"), expected nobody's: $(id -G nobody)"
grep -Eq '^page_faults +[0-9]+' "$MA_TMP/u/r.txt" || fail "no page_faults counted for the dropped-privilege target"
pass "target ran as uid $uid gid $gid with its groups and was counted"
