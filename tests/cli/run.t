# memadvise run: argument handling.  ARGS | exit N | STDOUT-ERE | STDERR-ERE
run --help | exit 0 | ^Usage: memadvise run | 
run | exit 2 |  | ^error: no command to run
run -- /nonexistent/prog | exit 2 |  | ^error: cannot run '/nonexistent/prog': no such file or directory
run -- /etc/passwd | exit 2 |  | ^error: cannot run '/etc/passwd': permission denied
run -- /tmp | exit 2 |  | it is a directory
run -- no-such-command-xyz | exit 2 |  | hint: it is not in PATH
run -- $MA_TOP/tests/cli/progs/not-elf | exit 2 |  | ^error: cannot run '.*/not-elf': not an executable format
run -- $MA_TOP/tests/cli/progs/bad-interp | exit 2 |  | ^error: cannot run '.*/bad-interp': no such file or directory
run -p 0 | exit 2 |  | ^error: invalid pid '0'
run -p -5 | exit 2 |  | ^error: invalid pid
run -p 4194303 | exit 2 |  | no process 4194303
run -p 1 -- true | exit 2 |  | give either a command or -p PID, not both
run -d 10s -- true | exit 2 |  | -d/--duration goes with -p PID
run -p 1 -d soon | exit 2 |  | invalid duration 'soon'
run -F 0 -- true | exit 2 |  | invalid sampling frequency
run --min-gain 150 -- true | exit 2 |  | invalid --min-gain
run --min-gain abc -- true | exit 2 |  | hint: give a share of the run in per cent
run -e , -- true | exit 2 |  | invalid event list
run -e no_such_event -- true | exit 2 |  | ^error: unknown event 'no_such_event'
run --bogus -- true | exit 2 |  | hint: see 'memadvise run --help'
run --no-sample -e page_faults -- true | exit 0 | page_faults +[0-9]+ +software | 
run --no-sample -e page_faults -- false | exit 1 | exited with status 1 | 
run --no-sample -e page_faults -- sh -c "exit 42" | exit 42 |  | 
--rules $MA_TOP/tests/rules-bad run -- sh -c "exit 42" | exit 2 |  | ^error: .*/tests/rules-bad/.*[.]yaml:[0-9]+: 
run --no-sample -e page_faults -- sh -c "kill -KILL \$\$" | exit 137 | killed by signal 9 | 
run --no-sample -j -e page_faults,cycles -- true | exit 0 | "schema_version": ?1 | 
run -p 2 | exit 2 |  | hint: a kernel thread has no user address space
run -p 2 | exit 2 |  | ^error: cannot attach to pid 2: it is a kernel thread
run --stream-budget 0 -- true | exit 2 |  | error: invalid stream budget
run --stream-budget 101 -- true | exit 2 |  | hint: give a percentage
--rules /nonexistent run -- true | exit 2 |  | ^hint: --rules .* names a directory
run -j -o /nonexistent/dir/r.json -- true | exit 2 | ^\{"error":"cannot open '/nonexistent/dir/r.json' \(-o\) for writing.*"hint":"the directory | ^error: cannot open
run -j --bogus | exit 2 | ^\{"error":"unrecognized option '--bogus'","hint":"see 'memadvise run --help'","exit_status":2\}$ | 
