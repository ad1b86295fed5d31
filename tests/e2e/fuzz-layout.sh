#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A short run of the layout mutation fuzzer (tests/fuzz/layout-fuzz.py):
# 280 mutants of the seeds compiled by gcc and clang (DWARF 4 and 5,
# -gsplit-dwarf, -gz=zlib, type units), ten per seed, each run under
# 'layout' in rotation dump / one type / -j / --reorganize, after checking
# that the oracle catches a memadvise that crashes.  'make fuzz' runs 10,000.
. "$MA_TOP/tests/lib.sh"
need_cmd python3
command -v gcc >/dev/null 2>&1 || command -v clang >/dev/null 2>&1 || skip "needs gcc or clang"
# The oracle first: a memadvise that dies of SIGSEGV on everything but -j
# (which the seeds' type lists need) must give failures with replay files.
printf '#!/bin/sh\ncase " $* " in *" -j "*) exec "%s" "$@" ;; esac\nkill -SEGV $$\n' "$MA" \
	>"$MA_TMP/crashy"
chmod +x "$MA_TMP/crashy"
python3 "$MA_TOP/tests/fuzz/layout-fuzz.py" --memadvise "$MA_TMP/crashy" -n 8 --jobs 2 \
	--out "$MA_TMP/self" >"$MA_TMP/self.log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a crashing memadvise: fuzzer exit $rc: $(tail -n 3 "$MA_TMP/self.log")"
grep -q ' 8 failures (signal-11 8)' "$MA_TMP/self.log" ||
	fail "a crashing memadvise: $(tail -n 1 "$MA_TMP/self.log")"
ls "$MA_TMP"/self/failures/*-signal-11/replay >/dev/null 2>&1 || fail "no replay file saved"
# The same mutants on every run; MA_FUZZ_SEED=N tries others.
seed=${MA_FUZZ_SEED:-1}
python3 "$MA_TOP/tests/fuzz/layout-fuzz.py" --memadvise "$MA" --seed "$seed" -n 280 \
	--jobs 2 --timeout 10 --out "$MA_TMP/fuzz" >"$MA_TMP/log" 2>&1
rc=$?
last=$(tail -n 1 "$MA_TMP/log")
if [ $rc -ne 0 ]; then
	grep -E '^(FAIL|error)' "$MA_TMP/log" | head -n 10
	for f in "$MA_TMP"/fuzz/failures/*/replay; do
		[ -e "$f" ] && sed -n 1,2p "$f" && head -n 5 "$(dirname "$f")/stderr"
	done | head -n 30
	fail "layout fuzz (seed $seed) found failures: $last"
fi
pass "$last"
