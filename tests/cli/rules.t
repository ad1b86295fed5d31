# memadvise rules: subcommands, and a precise FILE:LINE error for each way a rule file can be malformed
rules --help | exit 0 | ^Usage: memadvise rules list | 
rules | exit 2 |  | error: no subcommand
rules frobnicate | exit 2 |  | unknown subcommand 'frobnicate'
rules list | exit 0 | ^false-sharing +critical +member | 
rules show false-sharing | exit 0 | ^when: +member.false_sharing | 
rules show no-such-rule | exit 2 |  | error: no rule 'no-such-rule'
rules show | exit 2 |  | show takes one rule id
-j rules show tlb-pressure | exit 0 | "id":"tlb-pressure" | 
rules metrics | exit 0 | ^member.writer_threads +addr_samples | 
rules lint $MA_TOP/tests/rules-bad/does-not-exist | exit 2 |  | cannot read the rules directory
rules eval | exit 2 |  | eval needs --replay FILE
rules lint $MA_TOP/tests/rules-bad/yaml-syntax.yaml | exit 2 |  | error: .*/yaml-syntax.yaml:3: YAML syntax: did not find expected key
rules lint $MA_TOP/tests/rules-bad/not-mapping.yaml | exit 2 |  | error: .*/not-mapping.yaml:1: a rule file holds one mapping of keys
rules lint $MA_TOP/tests/rules-bad/empty.yaml | exit 2 |  | error: .*/empty.yaml:1: file is empty
rules lint $MA_TOP/tests/rules-bad/missing-key.yaml | exit 2 |  | error: .*/missing-key.yaml:1: 'when' is missing
rules lint $MA_TOP/tests/rules-bad/unknown-key.yaml | exit 2 |  | error: .*/unknown-key.yaml:7: unknown key 'whne'
rules lint $MA_TOP/tests/rules-bad/duplicate-key.yaml | exit 2 |  | error: .*/duplicate-key.yaml:4: 'title' is given twice \(first on line 2\)
rules lint $MA_TOP/tests/rules-bad/bad-severity.yaml | exit 2 |  | error: .*/bad-severity.yaml:4: severity 'high' is not one of info, warning, critical
rules lint $MA_TOP/tests/rules-bad/bad-for-each.yaml | exit 2 |  | error: .*/bad-for-each.yaml:6: for-each 'object' is not one of run, struct, member, region, line, function, lock
rules lint $MA_TOP/tests/rules-bad/bad-gain-of.yaml | exit 2 |  | error: .*/bad-gain-of.yaml:14: gain_of .seconds. is not one of cpu, wall
rules lint $MA_TOP/tests/rules-bad/bad-requires.yaml | exit 2 |  | error: .*/bad-requires.yaml:5: 'requires' names 'pmu', which is not a kind of evidence
rules lint $MA_TOP/tests/rules-bad/unknown-kind-alt.yaml | exit 2 |  | error: .*/unknown-kind-alt.yaml:5: 'requires' names 'pebs'
rules lint $MA_TOP/tests/rules-bad/when-syntax.yaml | exit 2 |  | error: .*/when-syntax.yaml:7: 'when': unexpected '>' where a value was expected at character 14
rules lint $MA_TOP/tests/rules-bad/when-unknown-metric.yaml | exit 2 |  | error: .*/when-unknown-metric.yaml:7: 'when' uses 'struct.sise', which is not a metric
rules lint $MA_TOP/tests/rules-bad/wrong-scope.yaml | exit 2 |  | error: .*/wrong-scope.yaml:7: 'when' uses 'line.stride', a line metric, in a rule for each struct
rules lint $MA_TOP/tests/rules-bad/bad-function.yaml | exit 2 |  | error: .*/bad-function.yaml:7: 'when': unknown function 'sqrt'
rules lint $MA_TOP/tests/rules-bad/evidence-unknown.yaml | exit 2 |  | error: .*/evidence-unknown.yaml:8: 'evidence' uses 'struct.colour'
rules lint $MA_TOP/tests/rules-bad/evidence-empty.yaml | exit 2 |  | error: .*/evidence-empty.yaml:8: 'evidence' names no metric
rules lint $MA_TOP/tests/rules-bad/evidence-mapping.yaml | exit 2 |  | error: .*/evidence-mapping.yaml:8: 'evidence' must be a list, not a mapping
rules lint $MA_TOP/tests/rules-bad/empty-advice.yaml | exit 2 |  | error: .*/empty-advice.yaml:10: 'advice' is empty
rules lint $MA_TOP/tests/rules-bad/bad-placeholder.yaml | exit 2 |  | error: .*/bad-placeholder.yaml:9: 'message' has an unknown placeholder \{colour\}
rules lint $MA_TOP/tests/rules-bad/min-samples-nan.yaml | exit 2 |  | error: .*/min-samples-nan.yaml:9: 'min_samples': 'many' is not a number
rules lint $MA_TOP/tests/rules-bad/min-samples-list.yaml | exit 2 |  | error: .*/min-samples-list.yaml:8: 'min_samples' must be a mapping
rules lint $MA_TOP/tests/rules-bad/title-list.yaml | exit 2 |  | error: .*/title-list.yaml:2: 'title' must be a single value, not a list
rules lint $MA_TOP/tests/rules-bad/id-mismatch.yaml | exit 2 |  | error: .*/id-mismatch.yaml:1: id 'other-id' does not match the file name 'id-mismatch.yaml'
rules lint $MA_TOP/tests/rules-bad/bad-id.yaml | exit 2 |  | error: .*/bad-id.yaml:1: id 'Bad_Id' must be lowercase letters, digits and dashes
rules lint $MA_TOP/tests/rules-bad/two-docs.yaml | exit 2 |  | error: .*/two-docs.yaml:15: a second YAML document: one rule per file
rules lint $MA_TOP/tests/rules-bad/gain-syntax.yaml | exit 2 |  | error: .*/gain-syntax.yaml:13: 'gain': expression ends where a value was expected
rules lint $MA_TOP/tests/rules-bad/inconclusive-unknown.yaml | exit 2 |  | error: .*/inconclusive-unknown.yaml:8: 'inconclusive_when' uses 'profile.nothing'
rules lint $MA_TOP/tests/rules-bad/tab-indent.yaml | exit 2 |  | error: .*/tab-indent.yaml:12: YAML syntax: found a tab character
rules lint --examples $MA_TOP/examples $MA_TOP/tests/rules-bad/missing-example.yaml | exit 2 |  | example 'no_such_workload' is neither
rules lint $MA_TOP/tests/rules-bad/dup | exit 2 |  | error: .*/dup/b/dup-id.yaml:1: id 'dup-id' is also used by .*/dup/a/dup-id.yaml
rules lint $MA_TOP/tests/rules-bad/cause | exit 2 |  | error: .*/cause/effect.yaml:12: caused_by names .no-such-rule., which is no rule here
--rules $MA_TOP/tests/rules-bad/dup run -- /bin/true | exit 2 |  | dup-id.yaml:1: id 'dup-id' is also used by
--rules $MA_TOP/tests/rules-bad/when-syntax.yaml run -- /bin/true | exit 2 |  | when-syntax.yaml:7: .when.: unexpected
--rules $MA_TOP/tests/rules-bad/nope run -- /bin/true | exit 2 |  | cannot read the rules directory
rules lint --examples $MA_TOP/examples $MA_TOP/tests/rules-bad/wrong-example.yaml | exit 2 |  | example .tlb. is labelled for rule .tlb-pressure., not .wrong-example.
