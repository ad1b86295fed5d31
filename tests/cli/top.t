# memadvise top: options and bad input.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
top --help | exit 0 | ^Usage: memadvise top | 
help top | exit 0 | Examples: | 
top --help | exit 0 | --batch | 
top -d 0 | exit 2 |  | ^error: invalid delay '0'
top -d abc | exit 2 |  | ^hint: give seconds from 0.2 to 3600
top -p abc | exit 2 |  | ^error: invalid pid 'abc' in -p
top -p 1,x | exit 2 |  | ^error: invalid pid 'x' in -p
top -p 999999999 | exit 2 |  | ^error: no process 999999999
top -s nosuch | exit 2 |  | ^error: unknown sort column 'nosuch'
top -n 0 | exit 2 |  | ^error: invalid iteration count '0'
top -b -j | exit 2 |  | ^error: --batch and --json cannot be used together
top -p 1 -- true | exit 2 |  | ^error: -p and a command cannot be used together
top --bogus | exit 2 |  | ^error: unrecognized option '--bogus'
top --bogus | exit 2 |  | ^hint: see 'memadvise top --help'
top -b -n 1 -- /nonexistent/prog | exit 2 |  | ^error: cannot run '/nonexistent/prog'
top -b -n 1 --no-sample -p 1 | exit 0 | ^memadvise top - .*1 processes | 
top -b -n 1 --no-sample -p 1 | exit 0 | Hot code: n/a: sampling off | 
