#!/bin/sh
# C++ functions are named as a C++ programmer writes them: demangled, without
# template arguments and parameters (ns::Table::probe), in the text report and
# the JSON, with their source line.
. "$MA_TOP/tests/lib.sh"
need_root
need_cmd g++
g++ -O2 -g -fno-omit-frame-pointer -o "$MA_TMP/cxx_names" "$MA_TOP/tests/e2e/progs/cxx_names.cpp" ||
	fail "cannot build tests/e2e/progs/cxx_names.cpp"
hot=$(grep -n '/\* HOT \*/' "$MA_TOP/tests/e2e/progs/cxx_names.cpp" | cut -d: -f1)
"$MA" run -w -o "$MA_TMP/r.txt" -- "$MA_TMP/cxx_names" 12000 >/dev/null || fail "memadvise run exited $?"
"$MA" run -j -o "$MA_TMP/r.json" -- "$MA_TMP/cxx_names" 12000 >/dev/null || fail "memadvise run exited $?"
grep -q "cxx_names.cpp:$hot ns::Table::probe" "$MA_TMP/r.txt" ||
	fail "the hot line is not named ns::Table::probe: $(sed -n '/^Hot code/,/^$/p' "$MA_TMP/r.txt")"
json "$MA_TMP/r.json" "d['profile']['functions'][0]['function'] == 'ns::Table::probe' and not [f for f in d['profile']['functions'] if f['function'].startswith('_Z')]" |
	grep -q True || fail "functions: $(json "$MA_TMP/r.json" "[f['function'] for f in d['profile']['functions'][:5]]")"
pass "C++ functions demangled: ns::Table::probe at cxx_names.cpp:$hot"
