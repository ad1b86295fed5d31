# memadvise run --sim / --watch: argument handling.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
run --sim -p 1 | exit 2 |  | ^error: --sim runs a command under cachegrind
run --sim --watch x -- true | exit 2 |  | ^error: --watch cannot be used with --sim
run --watch a --watch b --watch c --watch d --watch e -- true | exit 2 |  | ^error: too many --watch
run --help | exit 0 | --watch VAR | 
run --help | exit 0 | --sim | 
run --watch no_such_var -- true | exit 2 |  | ^error: cannot watch 'no_such_var': no global variable
run --watch x..y -- true | exit 2 |  | ^error: cannot watch 'x..y': bad name
run --watch 0x1003/4 -- true | exit 2 |  | unaligned|bad address
run --help | exit 0 | watch auto|.auto. watches | 
