#!/bin/sh
# -p PID: data-address sampling and watchpoints also cover the threads that
# were running before memadvise attached (not only later children).
. "$MA_TOP/tests/lib.sh"
need_root
[ -d /sys/bus/event_source/devices/breakpoint ] || skip "no breakpoint PMU (hardware watchpoints)"
build_prog fshare
"$MA_TMP/fshare" 2000000000 >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
# wait until both workers exist (main + 2 threads)
n=0
while [ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -lt 3 ] && [ $n -lt 100 ]; do
	sleep 0.05
	n=$((n + 1))
done
[ "$(ls /proc/$pid/task | wc -l)" -ge 3 ] || fail "the workers did not start"
"$MA" run -p "$pid" -d 700ms --watch counters -j -o "$MA_TMP/r.json" 2>/dev/null ||
	fail "memadvise run -p exited $?"
python3 - "$MA_TMP/r.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
w, a = d.get("watchpoints"), d.get("data_addresses")
if w is None or a is None:
    print("[Failed: missing sections: %s]" % d.get("provenance")); sys.exit(1)
pts = {p["name"]: p for p in w["points"]}
wt = {t["tid"] for n in ("counters.a", "counters.b") for t in pts.get(n, {}).get("threads", [])}
st = set()
for i in a["ips"]:
    if i.get("file", "").endswith("fshare.c") and i.get("access") == "write":
        st.add(i["threads"])
fs = [l for l in a["shared_lines"] if len(l["threads"]) >= 2]
ok = len(wt) == 2 and bool(fs)
print("[%s: attached: watchpoints saw %d writer threads, sw-addr %d shared line(s)]" % (
    "Success" if ok else "Failed", len(wt), len(fs)))
sys.exit(0 if ok else 1)
PY
