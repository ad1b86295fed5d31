#!/bin/sh
# -p PID measures PID and what it starts after the attach, not a child that
# ran before: a shell whose older child spins, attached while it only waits,
# gives ~0 hot-spot and data-address samples and names no such child.
. "$MA_TOP/tests/lib.sh"
need_root
build_prog hot_line
sh -c "\"$MA_TMP/hot_line\" 4000 & wait" &
spid=$!
sleep 0.5
cpid=$(pgrep -P $spid | head -n 1)
[ -n "$cpid" ] || { kill $spid; fail "the shell's child did not start"; }
"$MA" run -j -o "$MA_TMP/r.json" -p $spid -d 1s > /dev/null ||
	{ kill $cpid $spid; fail "memadvise run -p exited $?"; }
kill $cpid $spid 2>/dev/null
n=$(json "$MA_TMP/r.json" "sum(h.get('samples', 0) for h in d.get('profile', {}).get('hotspots', []))")
a=$(json "$MA_TMP/r.json" "d.get('data_addresses', {}).get('samples', 0)")
echo "hot-spot samples $n, data-address samples $a"
[ "$n" -le 5 ] || fail "$n hot-spot samples from a child that ran before the attach"
[ "$a" -le 5 ] || fail "$a data-address samples from a child that ran before the attach"
[ "$(json "$MA_TMP/r.json" "$cpid in [p['pid'] for p in d.get('profile', {}).get('processes', [])]")" = False ] ||
	fail "the report's processes name the older child ($cpid)"
pass "a child older than the attach is not measured"
