#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Rules whose evidence needs a hardware PMU, decided on recorded inputs
# (tests/golden/*.json, replay: never a measurement): they fire with the
# PMU's counts and say inconclusive with what this machine has.
set -u
fail=0
check() { # file rule status|quiet
	out=$("$MA" -j rules eval --replay "$MA_TOP/tests/golden/$1") || { echo "$1: eval failed"; fail=1; return; }
	got=$(printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r.get("replay") is True
f = [x for x in r["findings"] if x["id"] == sys.argv[1]]
assert all(x.get("replay") for x in r["findings"])
print(f[0]["status"] if f else "quiet")' "$2") || { echo "$1: bad JSON"; fail=1; return; }
	if [ "$got" != "$3" ]; then
		echo "$1: $2 is $got, expected $3"
		fail=1
	fi
}
check tlb-bad-pmu.json tlb-pressure fired
check tlb-good-pmu.json tlb-pressure quiet
check tlb-bad-here.json tlb-pressure inconclusive
check tlb-good-here.json tlb-pressure inconclusive
check branch-bad-pmu.json branch-mispredict fired
check branch-bad-here.json branch-mispredict inconclusive
# the text says it is a replay
"$MA" rules eval --replay "$MA_TOP/tests/golden/tlb-bad-pmu.json" | grep -q "replayed test facts, not a measurement" ||
	{ echo "text output does not say the facts are replayed"; fail=1; }
[ $fail -eq 0 ] || { echo "recorded-input checks failed"; exit 1; }
echo "PMU rules fire on recorded PMU inputs and are inconclusive here"
