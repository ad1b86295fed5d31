# memadvise layout: arguments and bad input.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
layout --help | exit 0 | ^Usage: memadvise layout | 
layout | exit 2 |  | ^error: no binary or object file given
layout /nonexistent/prog | exit 2 |  | ^error: cannot open '/nonexistent/prog': No such file
layout /etc/passwd | exit 2 |  | ^error: '/etc/passwd' is not an ELF file
layout /bin/true | exit 2 |  | ^error: no DWARF debug info in '/bin/true'
layout /bin/true | exit 2 |  | ^hint: rebuild with -g
layout $MA no_such_type_here | exit 2 |  | ^error: no struct, union or class 'no_such_type_here'
layout -c 100 $MA | exit 2 |  | ^error: invalid cache-line size '100'
layout --hot a $MA | exit 2 |  | ^error: --hot needs --reorganize
layout -s $MA | exit 0 | ^layout_reorg	
layout -c 128 $MA layout_reorg | exit 0 | cachelines: 1, members: 
layout -j $MA layout_reorg | exit 0 | "cacheline_size_bytes"
layout -R --hot nr_hot $MA layout_reorg | exit 0 | ^/\* saved 
layout -R --hot nosuch $MA layout_reorg | exit 2 |  | ^error: 'nosuch' is not a member
layout -C report $MA | exit 0 | struct sampling \* +sampling; | 
layout $MA -C target_info | exit 0 | ^struct target_info \{ | 
layout $MA 'no::Such<char, 5>' | exit 2 |  | ^error: no struct, union or class 'no::Such<char, 5>'
layout -C 'no::Such<char, 5>,layout_reorg' $MA | exit 2 |  | ^error: no struct, union or class 'no::Such<char, 5>'
layout -C ',layout_reorg,' -s $MA | exit 0 | ^layout_reorg	
layout -j /bin/true | exit 2 | ^\{"error":"no DWARF debug info in '/bin/true' \(stripped\?\)","hint":"rebuild with -g | ^error: no DWARF
layout -j $MA no_such_type_here | exit 2 | ^\{"error":"no struct, union or class 'no_such_type_here' in .*"exit_status":2\}$ | 
