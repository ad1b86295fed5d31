# memadvise: global options and dispatch.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
--help | exit 0 | ^Usage: memadvise \[OPTIONS\] COMMAND | 
--version | exit 0 | ^memadvise [0-9]+\.[0-9]+\.[0-9]+ | 
-j version | exit 0 | "version": | 
 | exit 2 |  | Usage: memadvise
nosuchcommand | exit 2 |  | ^error: unknown command 'nosuchcommand'
ru | exit 2 |  | ^error: unknown command 'ru'
help run | exit 0 | ^Usage: memadvise run | 
help nosuch | exit 2 |  | unknown command 'nosuch'
--bogus | exit 2 |  | hint: see 'memadvise --help'
run --bogus | exit 2 |  | ^error: unrecognized option '--bogus'
run --bogus | exit 2 |  | ^hint: see 'memadvise run --help'
run -o | exit 2 |  | ^error: option '-o' needs an argument
--bogus | exit 2 |  | ^error: unrecognized option '--bogus'
rules --bogus | exit 2 |  | ^hint: see 'memadvise rules --help'
layout -x | exit 2 |  | ^error: unrecognized option '-x'
calibrate --bogus | exit 2 |  | ^error: unrecognized option '--bogus'
help --help | exit 0 | ^Usage: memadvise | 
layout -C '' /bin/true | exit 2 |  | ^error: -C needs at least one struct name
-j bogus | exit 2 | ^\{"error":"unknown command 'bogus'","hint":"run 'memadvise --help' | ^error: unknown command
-j --bogus | exit 2 | ^\{"error":"unrecognized option '--bogus'" | ^error: unrecognized option
