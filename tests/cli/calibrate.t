# memadvise calibrate: options and bad input.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
calibrate --help | exit 0 | ^Usage: memadvise calibrate | 
calibrate --help | exit 0 | --no-realtime | 
help calibrate | exit 0 | Examples: | 
calibrate --rounds 0 | exit 2 |  | ^error: bad --rounds '0'
calibrate --bogus | exit 2 |  | hint: see 'memadvise calibrate --help'
calibrate extra | exit 2 |  | ^error: unexpected argument 'extra'
calibrate --examples /nonexistent | exit 2 |  | ^error: cannot find the example workloads in /nonexistent
calibrate --quick -o /proc/nope/m.json | exit 2 |  | ^error: cannot create the directory of
