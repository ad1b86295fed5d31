# SPDX-License-Identifier: GPL-2.0-only
# Sourced after tests/lib.sh by the tests that drive a full-screen command
# under tmux: a server of their own (-L), a window of fixed geometry, and
# waits that poll the pane up to a deadline instead of sleeping.

TMUX_N=0
TMUX_SOCK="ma-test-$$-0"
TM() { tmux -L "$TMUX_SOCK" "$@"; }
tmux_cleanup() {
	_i=0
	while [ $_i -le $TMUX_N ]; do
		tmux -L "ma-test-$$-$_i" kill-server 2>/dev/null
		_i=$((_i + 1))
	done
}

# tmux_start COLS ROWS CMD: a detached session 't' running CMD in sh, on a
# server of its own (one that is still going away would refuse it).
tmux_start() {
	TM kill-server 2>/dev/null
	TMUX_N=$((TMUX_N + 1))
	TMUX_SOCK="ma-test-$$-$TMUX_N"
	TM new-session -d -x "$1" -y "$2" -s t "$3" || fail "tmux cannot start a session"
	TM set-option -t t remain-on-exit on >/dev/null 2>&1
}

pane() { TM capture-pane -p -t t; }

# wait_pane SECS AWK-CONDITION: polls the pane until awk's condition holds
# on it (awk exits 0: 'found' set by the program); 1 at the deadline.
wait_pane() {
	_end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -le "$_end" ]; do
		pane > "$MA_TMP/pane"
		awk "$2"' END { exit !found }' "$MA_TMP/pane" && return 0
		sleep 0.2
	done
	return 1
}

# wait_file SECS FILE: until FILE exists and is not empty.
wait_file() {
	_end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -le "$_end" ]; do
		[ -s "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

alt_screen() { TM display -p -t t '#{alternate_on}'; }
