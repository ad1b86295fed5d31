# memadvise probe: arguments and output formats.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
probe --help | exit 0 | ^Usage: memadvise probe | 
probe -h | exit 0 | ^Examples: | 
help probe | exit 0 | ^Usage: memadvise probe | 
probe --bogus | exit 2 |  | ^error: unrecognized option '--bogus'
probe extra | exit 2 |  | ^error: unexpected argument 'extra'
probe | exit 0 | ^hardware counters$ | 
probe | exit 0 | ^  cycles +(yes|no) | 
probe | exit 0 | ^  page_faults +(yes|no) | 
probe -j | exit 0 | ^\{"schema_version":1, | 
probe -j | exit 0 | "pmu":\{"hardware":(true|false), | 
-j probe | exit 0 | "libpfm_pmu": | 
probe --pretty | exit 0 | ^  "schema_version":1,$ | 
--pretty probe | exit 0 | ^    "hardware":(true|false),$ | 
probe -j extra | exit 2 | ^\{"error":"unexpected argument 'extra'" | 
