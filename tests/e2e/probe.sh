#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# memadvise probe: valid JSON naming the PMU state, and every answer checked
# against what the system itself says (sysfs, procfs, tracefs, PATH).
. "$MA_TOP/tests/lib.sh"

"$MA" probe -j > "$MA_TMP/p.json" 2> "$MA_TMP/err" || fail "probe -j exited $?: $(cat "$MA_TMP/err")"
python3 -m json.tool "$MA_TMP/p.json" > /dev/null || fail "probe -j is not valid JSON"

# What the system says, handed to the checks below.
hw=0
for d in /sys/bus/event_source/devices/cpu*; do [ -e "$d" ] && hw=1; done
uid=$(id -u)
capeff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
tp=0
[ -r /sys/kernel/tracing/events/exceptions/page_fault_user/id ] && tp=1
vg=""
command -v valgrind > /dev/null 2>&1 && vg=$(valgrind --version | sed 's/^valgrind-//')
# the scheduler tick samples 'run' in a guest without a PMU, with BTF, as
# root (the BPF object must load), at the kernel's HZ
khz=""
grep -qw hypervisor /proc/cpuinfo && [ "$hw" = 0 ] && [ "$uid" = 0 ] &&
	[ -r /sys/kernel/btf/vmlinux ] && ! grep -qw fred /proc/cpuinfo && khz=$(kernel_hz)
export hw uid capeff tp vg khz

python3 - "$MA_TMP/p.json" > "$MA_TMP/check" 2>&1 <<'EOF'
import json, os, re, sys
d = json.load(open(sys.argv[1]))
hw = os.environ["hw"] == "1"; root = os.environ["uid"] == "0"
capeff = int(os.environ["capeff"] or "0", 16); tp = os.environ["tp"] == "1"
def bad(msg):
    print(msg); sys.exit(1)
def no_bare_no(o, path):
    """every check that says no carries a reason and an errno name"""
    if isinstance(o, dict):
        if o.get("available") is False or o.get("hardware") is False:
            if not o.get("reason"):
                bad("%s: 'no' without a reason" % path)
            if "errno" in o and not re.match(r"^E[A-Z0-9]+$", o["errno"]):
                bad("%s: errno %r is not a name" % (path, o["errno"]))
        for k, v in o.items():
            if not re.match(r"^[a-z][a-z0-9_]*$", k) and path != ".events":
                bad("%s: key %r is not snake_case" % (path, k))
            no_bare_no(v, path + "." + k)
    elif isinstance(o, list):
        for i, v in enumerate(o):
            no_bare_no(v, "%s[%d]" % (path, i))

if d.get("schema_version") != 1: bad("schema_version %r" % d.get("schema_version"))
pmu = d.get("pmu")
if not isinstance(pmu, dict) or not isinstance(pmu.get("hardware"), bool): bad("no pmu.hardware")
if "libpfm_pmu" not in pmu: bad("pmu.libpfm_pmu missing")
no_bare_no(d, "")
hwev = ["cycles", "instructions", "l1d_miss", "dtlb_miss", "llc_miss", "branch_miss"]
swev = ["task_clock", "page_faults", "minor_faults", "major_faults", "context_switches", "cpu_migrations"]
for e in hwev + swev:
    if e not in d["events"]: bad("event %s missing" % e)
if not hw:
    if pmu["hardware"]: bad("hardware PMU reported but sysfs has no cpu PMU")
    if "no hardware PMU" not in pmu["reason"]: bad("pmu reason: %r" % pmu["reason"])
    for e in hwev:
        ev = d["events"][e]
        if ev["available"] or "no hardware PMU" not in ev["reason"]:
            bad("%s on a machine without a PMU: %r" % (e, ev))
    if d["precise_sampling"]["available"]: bad("precise sampling without a PMU")
for e in swev:
    if not d["events"][e]["available"]: bad("software event %s: %s" % (e, d["events"][e]))
    if not d["events"][e]["encoding"].startswith("perf::PERF_COUNT_SW_"): bad("%s encoding" % e)
if root and capeff >> 39 & 1:   # CAP_BPF
    for k in ("bpf", "btf", "uprobes", "watchpoints"):
        if not d[k]["available"]: bad("%s not detected as root with CAP_BPF: %s" % (k, d[k]))
if root and not (capeff >> 39 & 1) and not (capeff >> 21 & 1) and d["bpf"]["available"]:
    bad("bpf available without CAP_BPF or CAP_SYS_ADMIN")
if tp != d["tracepoints"]["exceptions_page_fault_user"]["available"]:
    bad("page_fault_user: tracefs readable=%s, probe says %s" % (tp, d["tracepoints"]["exceptions_page_fault_user"]))
if tp and not d["tracepoints"]["huge_memory"]["available"]: bad("huge_memory:* not detected")
if not os.path.exists("/sys/bus/event_source/devices/kprobe"):
    if d["kprobes"]["available"] or "CONFIG_KPROBES" not in d["kprobes"]["reason"]: bad("kprobes: %s" % d["kprobes"])
tk = d["tick_sampling"]; khz = os.environ["khz"]
if bool(khz) != tk["available"] or (khz and tk["hz"] != int(khz)):
    bad("tick_sampling %r, expected %s" % (tk, khz + " Hz" if khz else "none"))
par = int(open("/proc/sys/kernel/perf_event_paranoid").read())
if d["privileges"]["perf_event_paranoid"] != par: bad("paranoid %r != %d" % (d["privileges"]["perf_event_paranoid"], par))
if d["privileges"]["root"] != root: bad("root flag")
thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip()
if d["thp"]["enabled"] != re.search(r"\[(\w+)\]", thp).group(1): bad("thp %r vs %r" % (d["thp"]["enabled"], thp))
c0 = "/sys/devices/system/cpu/cpu0/cache/index0/"
if os.path.exists(c0):
    size = open(c0 + "size").read().strip()
    exp = int(size[:-1]) * 1024 if size.endswith("K") else int(size)
    if not d["caches"] or d["caches"][0]["size"] != exp: bad("cache size %r vs sysfs %s" % (d["caches"][:1], size))
    if d["caches"][0]["line"] != int(open(c0 + "coherency_line_size").read()): bad("line size")
vg = os.environ["vg"]
if bool(vg) != d["tools"]["valgrind"]["available"]: bad("valgrind presence")
if vg and d["tools"]["valgrind"]["version"] != vg: bad("valgrind version %r vs %r" % (d["tools"]["valgrind"]["version"], vg))
print("pmu hardware=%s (%s); libpfm4 model %s" % (pmu["hardware"], pmu.get("reason", "present"), pmu["libpfm_pmu"]))
EOF
[ $? -eq 0 ] || fail "$(tail -n 1 "$MA_TMP/check")"
summary=$(tail -n 1 "$MA_TMP/check")

# The text form: same facts, fits 80 columns.
"$MA" probe > "$MA_TMP/p.txt" || fail "probe (text) exited $?"
awk 'length($0) > 80 { print "line " NR " is " length($0) " columns: " $0; bad=1 } END { exit bad }' \
	"$MA_TMP/p.txt" > "$MA_TMP/wide" || fail "$(head -n 1 "$MA_TMP/wide")"
grep -Eq '^  hardware PMU +(yes|no) ' "$MA_TMP/p.txt" || fail "text has no hardware PMU line"

# Without privileges every 'no' still says why (root only: setpriv drops them).
if [ "$uid" -eq 0 ] && command -v setpriv > /dev/null 2>&1; then
	chmod 755 "$MA_TMP"
	cp "$MA" "$MA_TMP/ma" && chmod 755 "$MA_TMP/ma"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		"$MA_TMP/ma" probe -j > "$MA_TMP/u.json" 2> "$MA_TMP/uerr" ||
		fail "unprivileged probe exited $?: $(cat "$MA_TMP/uerr")"
	python3 - "$MA_TMP/u.json" > "$MA_TMP/ucheck" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["bpf"]
if b["available"]: print("bpf available to nobody without capabilities"); sys.exit(1)
if b.get("errno") not in ("EPERM", "EACCES") or "CAP_BPF" not in b.get("hint", ""):
    print("unprivileged bpf answer lacks errno or hint: %s" % b); sys.exit(1)
if d["privileges"]["root"] or d["privileges"]["capabilities"].get("cap_bpf"):
    print("privileges not reported as dropped"); sys.exit(1)
EOF
	[ $? -eq 0 ] || fail "$(tail -n 1 "$MA_TMP/ucheck")"
fi
pass "$summary"
