#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A machine profile asked for by MEMADVISE_PROFILE that cannot be read is
# said on stderr and in the findings that needed it, not passed over as if
# none had been asked for; the run still reports.
. "$MA_TOP/tests/lib.sh"
MEMADVISE_PROFILE=$MA_TMP/no-such-profile.json "$MA" run -j -o "$MA_TMP/r.json" -- true \
	2> "$MA_TMP/err" || fail "memadvise run exited $?"
grep -q "^warning: the machine profile .*no-such-profile.json could not be read" "$MA_TMP/err" ||
	fail "no warning naming the profile: $(head -n 3 "$MA_TMP/err")"
echo '{"levels": 3' > "$MA_TMP/broken.json"
MEMADVISE_PROFILE=$MA_TMP/broken.json "$MA" run -j -o "$MA_TMP/r2.json" -- true \
	2> "$MA_TMP/err2" || fail "memadvise run exited $? with a broken profile"
grep -q "broken.json could not be read (not a JSON profile)" "$MA_TMP/err2" ||
	fail "a broken profile is not said: $(head -n 3 "$MA_TMP/err2")"
[ -s "$MA_TMP/r.json" ] && [ -s "$MA_TMP/r2.json" ] || fail "no report written"
pass "an unreadable or broken MEMADVISE_PROFILE is said, and the run still reports"
