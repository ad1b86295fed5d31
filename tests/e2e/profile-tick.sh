#!/bin/sh
# In a virtual machine the hot code is sampled on the scheduler tick, not on
# cpu-clock (whose every sample is a timer interrupt, with exits to the
# hypervisor): the report names the tick, most samples are the tick's, the
# data-address samples come from it too, children forked by a shell are
# sampled, a program that lives in system calls is seen in kernel mode as
# with cpu-clock, and -F asks for cpu-clock.
. "$MA_TOP/tests/lib.sh"
need_root
grep -qw hypervisor /proc/cpuinfo || skip "bare metal: cpu-clock samples there"
[ -r /sys/kernel/btf/vmlinux ] || skip "no kernel BTF: the tick sampler needs it"
build_prog hot_line
line=$(grep -n '/\* HOT \*/' "$MA_TOP/tests/e2e/progs/hot_line.c" | cut -d: -f1)

# two children of a shell, each 0.5-1 s of the hot loop
"$MA" run -j -o "$MA_TMP/t.json" -- sh -c "'$MA_TMP/hot_line' 150 & '$MA_TMP/hot_line' 150; wait" \
	>/dev/null || fail "memadvise run exited $?"
python3 - "$MA_TMP/t.json" "$line" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1])); line = int(sys.argv[2])
p = d["profile"]; e = p["events"][0]
prov = " ".join(x["detail"] for x in d.get("provenance", []))
ok = e["name"] == "tick" and e["tier"] == "software"
msg = ["event %s/%s" % (e["name"], e["tier"])]
ok &= "scheduler tick at" in prov
# "N of M samples from the tick": most of them
import re
m = re.search(r"(\d+) of (\d+) samples from the tick", prov)
ok &= bool(m) and int(m.group(1)) >= 0.5 * int(m.group(2)) > 0
msg.append("tick samples %s" % (m.group(0) if m else "not said"))
top = p["lines"][0]
ok &= top["file"].endswith("hot_line.c") and top["line"] == line
msg.append("top %s:%d" % (top["file"].split("/")[-1], top["line"]))
kids = [x for x in p.get("processes", []) if x.get("comm") == "hot_line"]
ok &= len(kids) == 2
msg.append("%d hot_line processes" % len(kids))
a = d.get("data_addresses") or {}
ok &= a.get("event") == "tick" and a.get("samples", 0) > 50
msg.append("data addresses: %s, %d samples" % (a.get("event"), a.get("samples", 0)))
print("[%s: %s]" % ("Success" if ok else "Failed", "; ".join(msg)))
sys.exit(0 if ok else 1)
PY

# a program in system calls: kernel mode, told apart as cpu-clock does
"$MA" run -j -o "$MA_TMP/k.json" -- dd if=/dev/zero of=/dev/null bs=64k count=400000 \
	>/dev/null 2>&1 || fail "memadvise run (dd) exited $?"
k=$(json "$MA_TMP/k.json" "'%s %d %d' % (d['profile']['events'][0]['name'], d['profile']['events'][0]['kernel_samples'], d['profile']['events'][0]['samples'])")
set -- $k
[ "$1" = tick ] || fail "dd sampled by '$1', not the tick"
[ "$3" -gt 20 ] && [ $(($2 * 100 / $3)) -ge 70 ] ||
	fail "dd: $2 of $3 tick samples in kernel mode, expected most"

# -F: cpu-clock at that rate
"$MA" run -F 400 -j -o "$MA_TMP/f.json" -- "$MA_TMP/hot_line" 50 >/dev/null ||
	fail "memadvise run -F exited $?"
f=$(json "$MA_TMP/f.json" "'%s %d' % (d['profile']['events'][0]['name'], d['profile']['events'][0]['freq_hz'])")
[ "$f" = "cpu-clock 400" ] || fail "with -F 400 the event is '$f'"
pass "tick in a guest (children, data addresses); dd $2 of $3 in kernel mode; -F gives $f"
