#!/bin/sh
# memadvise top and the terminal: a resize redraws to the new size; with
# NO_COLOR it draws no colours (and with colours it does); SIGTERM and a
# crash (SIGSEGV) leave the alternate screen and restore the tty modes;
# TERM=dumb prints text frames and says so.
. "$MA_TOP/tests/lib.sh"
. "$MA_TOP/tests/lib/tmux.sh"
need_root
need_cmd tmux
trap 'tmux_cleanup' EXIT

# run_top ENV...: top in the pane, its pid in $MA_TMP/pid, exit status and tty modes kept
run_top() {
	rm -f "$MA_TMP/pid" "$MA_TMP/exit" "$MA_TMP/stty0" "$MA_TMP/stty1"
	tmux_start 100 30 "stty -g > $MA_TMP/stty0; sh -c 'echo \$\$ > $MA_TMP/pid; exec env $* $MA top -d 0.5'; echo \$? > $MA_TMP/exit; stty -g > $MA_TMP/stty1"
	wait_file 10 "$MA_TMP/pid" || fail "top did not start"
	wait_pane 15 '/^ +PID +CPU%v/ { found = 1 }' || { pane; fail "no process table ($*)"; }
}

# ends_restored SIG STATUS
ends_restored() {
	kill -"$1" "$(cat "$MA_TMP/pid")"
	wait_file 10 "$MA_TMP/exit" || fail "SIG$1 did not end top"
	[ "$(cat "$MA_TMP/exit")" = "$2" ] || fail "SIG$1: exit status $(cat "$MA_TMP/exit"), not $2"
	[ "$(alt_screen)" = 0 ] || fail "the alternate screen is still on after SIG$1"
	cmp -s "$MA_TMP/stty0" "$MA_TMP/stty1" || fail "the tty modes differ after SIG$1"
}

# colours, a resize, SIGTERM
run_top TERM=screen
TM capture-pane -e -p -t t | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m" ||
	fail "no colours drawn without NO_COLOR"
TM resize-window -t t -x 72 -y 20
wait_pane 10 'NR == 20 && /^Enter drill/ { bottom = 1 } length($0) > 72 { wide = 1 } END { found = bottom && !wide }' ||
	{ pane; fail "after a resize to 72x20 the screen was not redrawn to that size"; }
ends_restored TERM 143

# NO_COLOR, then a crash
run_top TERM=screen NO_COLOR=1
TM capture-pane -e -p -t t | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m" &&
	fail "colours drawn with NO_COLOR set"
grep -q '^ *PID' "$MA_TMP/pane" || fail "no column header with NO_COLOR"
ends_restored SEGV 139

# TERM=dumb: text frames on the terminal, and a warning that says why
rm -f "$MA_TMP/exit"
tmux_start 100 30 "TERM=dumb $MA top -n 2 -d 0.3 2> $MA_TMP/dumb.err; echo \$? > $MA_TMP/exit"
wait_file 15 "$MA_TMP/exit" || fail "TERM=dumb: top did not end after -n 2"
[ "$(cat "$MA_TMP/exit")" = 0 ] || fail "TERM=dumb: exit status $(cat "$MA_TMP/exit")"
grep -q 'TERM=dumb' "$MA_TMP/dumb.err" || fail "TERM=dumb: no warning on stderr"
[ "$(alt_screen)" = 0 ] || fail "TERM=dumb: the alternate screen was used"
TM capture-pane -p -S -200 -t t | grep -c '^memadvise top - ' > "$MA_TMP/n"
[ "$(cat "$MA_TMP/n")" = 2 ] || fail "TERM=dumb: $(cat "$MA_TMP/n") text frames, not 2"
pass "resize, NO_COLOR, SIGTERM and SIGSEGV restore the terminal, TERM=dumb prints text frames"
