# SPDX-License-Identifier: GPL-2.0-only
# Sourced after tests/lib.sh by the tests that drive a full-screen command
# under tmux: a server of their own (-L), a window of fixed geometry, and
# waits that poll the pane up to a deadline instead of sleeping.

TMUX_SOCK="ma-test-$$"
TM() { tmux -L "$TMUX_SOCK" "$@"; }
tmux_cleanup() { TM kill-server 2>/dev/null; }

# tmux_start COLS ROWS CMD: a detached session 't' running CMD in sh.
tmux_start() {
	TM kill-server 2>/dev/null
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
