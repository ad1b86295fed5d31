# memadvise check: arguments, and a precise FILE:LINE error for each way a budget file can be malformed
check --help | exit 0 | ^Usage: memadvise check | 
check | exit 2 |  | ^error: cannot read the budget file 'memadvise-budget.yaml'
check | exit 2 |  | ^hint: write a budget file
check --frob | exit 2 |  | unrecognized option
check -b $MA_TOP/tests/budgets/yaml-syntax.yaml | exit 2 |  | ^error: .*/yaml-syntax.yaml:5: YAML syntax
check -b $MA_TOP/tests/budgets/unknown-key.yaml | exit 2 |  | ^error: .*/unknown-key.yaml:11: unknown key 'maxx' in a limit
check -b $MA_TOP/tests/budgets/unknown-metric.yaml | exit 2 |  | ^error: .*/unknown-metric.yaml:9: unknown metric 'l1d_mpkj'
check -b $MA_TOP/tests/budgets/bad-geometry.yaml | exit 2 |  | ^error: .*/bad-geometry.yaml:4: geometry D1: cachegrind cannot model it: 96 sets
check -b $MA_TOP/tests/budgets/no-geometry.yaml | exit 2 |  | ^error: .*/no-geometry.yaml:3: workload 'a' is simulated but the file pins no 'geometry'
check -b $MA_TOP/tests/budgets/bad-number.yaml | exit 2 |  | ^error: .*/bad-number.yaml:10: 'max' must be a number
check -b $MA_TOP/tests/budgets/sim-page-faults.yaml | exit 2 |  | ^error: .*/sim-page-faults.yaml:10: 'page_faults' is not simulated
check -b $MA_TOP/tests/budgets/layout-no-limit.yaml | exit 2 |  | ^error: .*/layout-no-limit.yaml:3: layout budget for 's' sets no limit
check -b $MA_TOP/tests/budgets/layout-bad-pair.yaml | exit 2 |  | ^error: .*/layout-bad-pair.yaml:5: items of 'same_line' must be pairs
check -b $MA_TOP/tests/budgets/bad-severity.yaml | exit 2 |  | ^error: .*/bad-severity.yaml:6: fail_on 'fatal' is not one of
check -b $MA_TOP/tests/budgets/bad-version.yaml | exit 2 |  | ^error: .*/bad-version.yaml:1: 'version' must be a whole number from 1 to 1
check -b $MA_TOP/tests/budgets/empty.yaml | exit 2 |  | ^error: .*/empty.yaml:1: file is empty
check -b $MA_TOP/tests/budgets/bad-line.yaml | exit 2 |  | ^error: .*/bad-line.yaml:9: 'line' must be FILE:LINE
check -b $MA_TOP/tests/budgets/layout-missing-binary.yaml | exit 2 | not checked | 
check -b $MA_TOP/tests/budgets/layout-missing-binary.yaml | exit 2 | why: cannot read the layouts of '/nonexistent/prog' | 
check -b $MA_TOP/tests/budgets/no-geometry.yaml --baseline /nonexistent.json | exit 2 |  | no-geometry.yaml:3
check -b $MA_TOP/tests/budgets/no-run.yaml | exit 2 |  | ^error: .*/no-run.yaml:7: workload 'a' has no 'run' and no command was given
check -b $MA_TOP/tests/budgets/no-run.yaml -- /nonexistent/prog | exit 2 | a: l1d_mpki .* error | 
check -b $MA_TOP/tests/budgets/no-run.yaml --junit - -- /bin/true | exit 2 |  | ^error: --junit needs a file name
check -b $MA_TOP/tests/budgets/no-run.yaml --sarif /nonexistent/dir/x.sarif -- /bin/true | exit 2 |  | ^error: cannot open '/nonexistent/dir/x.sarif'
check --repeat 0 | exit 2 |  | ^error: invalid --repeat
