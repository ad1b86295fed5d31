# memadvise run --sim / --watch: argument handling.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
run --sim -p 1 | exit 2 |  | ^error: --sim runs a command under cachegrind
