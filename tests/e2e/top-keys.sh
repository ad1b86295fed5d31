#!/bin/sh
# memadvise top under tmux (120x40): a page-faulting workload appears with
# non-zero faults/s; sorting by PID and inverting it reorder the rows; a
# filter leaves the workload's row only; Enter drills into it and shows its
# hot function and the page-fault-storm finding; q exits 0 with the
# alternate screen left and the tty modes as they were.
. "$MA_TOP/tests/lib.sh"
. "$MA_TOP/tests/lib/tmux.sh"
need_root
need_cmd tmux
[ -x "$EXAMPLES/page_faults" ] || skip "examples not built (make examples)"

# a copy under a name of its own: other page_faults may run on the machine
name="pfkeys$$"
cp "$EXAMPLES/page_faults" "$MA_TMP/$name" || fail "cannot copy page_faults"
"$MA_TMP/$name" -n 16000000 > /dev/null 2>&1 &
wl=$!
trap 'kill $wl 2>/dev/null; tmux_cleanup' EXIT
# the pane, and what top wrote to stderr, for a failure's log
show() { pane; [ -s "$MA_TMP/top.err" ] && sed 's/^/stderr: /' "$MA_TMP/top.err"; }

tmux_start 120 40 "stty -g > $MA_TMP/stty0; $MA top -d 0.5 2> $MA_TMP/top.err; echo \$? > $MA_TMP/exit; stty -g > $MA_TMP/stty1"

wait_pane 20 '/^ +PID +CPU%v/ { found = 1 }' || { show; fail "no process table"; }
[ "$(alt_screen)" = 1 ] || fail "top did not switch to the alternate screen"

# sort: '<' from CPU% reaches PID (descending), then I inverts it
TM send-keys -t t '<'
wait_pane 10 '/^ +PIDv/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { n++; if (n > 1 && $1 > last) bad = 1; last = $1 } END { found = on && n > 2 && !bad }' ||
	{ show; fail "after '<' the rows are not sorted by PID, descending"; }
TM send-keys -t t I
wait_pane 10 '/^ +PID\^/ { on = 1; next } on && $1 ~ /^[0-9]+$/ { n++; if (n > 1 && $1 < last) bad = 1; last = $1 } END { found = on && n > 2 && !bad }' ||
	{ show; fail "after 'I' the rows are not sorted by PID, ascending"; }

# I back to descending; F6: the sort menu, two down from PID is MINFLT/s; the workload's row with
# faults/s > 0 (column 3; "-" on its first refresh) is among the first shown
TM send-keys -t t I F6
wait_pane 10 '/^Sort by/ { found = 1 }' || { show; fail "F6 shows no sort menu"; }
TM send-keys -t t Down Down Enter
wait_pane 20 "/MINFLT\/sv/ { on = 1 } on && \$1 == $wl && \$3 != \"-\" && \$3 != \"0\" { found = 1 }" ||
	{ show; fail "sorted by MINFLT/s, no row for pid $wl with non-zero faults/s"; }

# filter: only the workload's row
TM send-keys -t t /
TM send-keys -t t -l "$name"
TM send-keys -t t Enter
wait_pane 10 "/^Filter: $name/ { f = 1 } /^ +PID/ { on = 1; next } on && \$1 ~ /^[0-9]+\$/ { n++; if (\$1 == $wl) me = 1 } END { found = f && n == 1 && me }" ||
	{ show; fail "the filter '$name' does not leave the workload's row alone"; }

# drill-down: hot function and the finding
TM send-keys -t t Enter
wait_pane 25 "/^Process $wl / { p = 1 } /^ +[0-9.]+% +[0-9]+ +fill_and_sum/ { h = 1 } /page-fault-storm/ { f = 1 } END { found = p && h && f }" ||
	{ show; fail "the drill-down shows no fill_and_sum hot function and page-fault-storm finding"; }
grep -q 'Faulting lines' "$MA_TMP/pane" || fail "the drill-down has no faulting lines"

# back, help, quit
TM send-keys -t t Escape
wait_pane 10 '/^ +PID/ { found = 1 }' || { show; fail "Esc did not go back to the list"; }
TM send-keys -t t h
wait_pane 10 '/^memadvise top: keys/ { found = 1 }' || { show; fail "h shows no help"; }
TM send-keys -t t Space
TM send-keys -t t q
wait_file 10 "$MA_TMP/exit" || fail "q did not end memadvise top"
[ "$(cat "$MA_TMP/exit")" = 0 ] || fail "q: exit status $(cat "$MA_TMP/exit"), not 0"
[ "$(alt_screen)" = 0 ] || fail "the alternate screen is still on after q"
cmp -s "$MA_TMP/stty0" "$MA_TMP/stty1" || fail "the tty modes differ after q"
[ -s "$MA_TMP/top.err" ] && { cat "$MA_TMP/top.err"; fail "top wrote to stderr"; }
pass "rows, faults/s, sort, filter, drill-down with finding, help, q restores the terminal"
