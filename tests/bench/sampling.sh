#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Sampling overhead, in one run on the same workloads: wall time of
# 'memadvise run' (BPF sampling at its default rate, fault tracing, THP state)
# vs the bare program vs 'perf record -g -F <same rate>' followed by
# 'perf report', and the bytes each wrote to disk (/proc/PID/io write_bytes of
# a shell that ran and reaped them; memadvise must write none, but for the
# block an access-time update charges a reader: see below), and the CPU
# time of everything each ran (the shell's cutime + cstime: tool included),
# which other tenants of a loaded machine disturb less than wall time, and the
# CPU time of the workload alone (a guest's steal time is not in it).
# After one untimed run of each (page cache, access times), interleaved
# rounds, each running the three in turn: BENCH_REPS (default 15) for the
# longest workload, and for a shorter one as many as fit in the same time
# (at most four times as many): its rounds are cheap, and a run of a second
# or two moves by as much as a run of seven, so it needs more of them for
# the same certainty (in a guest, 42 rounds still left a 2 s workload's
# median a 95 % interval 15 % wide).  The rounds follow the orders of a
# Williams design: each command takes each place, and follows each other
# command, equally often (what a run leaves behind, perf report's memory
# say, then weighs on each alike: a plain rotation put bare after perf
# twice as often as memadvise), and none runs right after itself (the order
# reversed every other round ran bare twice in a row at every other
# boundary, the second run on the pages the first had just freed).  The
# overhead is the median over rounds of the round's ratio, with
# the spread of those ratios and a bootstrap interval of their median: in a
# guest two runs of one program differ by 10-40 % (its physical pages, the
# host's load), so the interval says whether a run of the bench can tell
# 1.03 from 1.00 at all.  The ratio of the medians is printed too, and the
# steal time of the runs (the host running something else: /proc/stat)
# with the median ratio of the rounds the host left alone.
# A fault workload also runs under 'perf stat -e page-faults': the cost of
# the kernel's page-fault event alone, which every fault passes once any
# such event exists (sampled or only counted), the floor of any tool that
# counts or samples faults with it.
# Then the cost of each tool's events alone, measured inside one process
# (tests/bench/toggle.c: the tool attached with -p, its perf_event
# descriptors switched off and on around 300 pairs of 20 ms slices): a
# number the run-to-run noise does not reach, without the fixed cost.  On
# the faults slices perf stat -e page-faults is measured alike: the floor of
# counting every fault, in the same units.
# Last, that event's cost split into its parts (tests/bench/fault_event.c):
# an event merely existing somewhere on the system, counting, sampling.  The
# first is paid by every fault while any page-faults event is open, enabled
# or not, and so is in neither tool's on/off ratio: what a tool on the
# fault path cannot go below without closing its event.
# The rate is memadvise's default (the hot-code profile and data-address
# sampling share it: cpu-clock at 1000 Hz on bare metal, the scheduler tick
# in a guest, 250 Hz here); perf samples cpu-clock at the same rate.  The
# tick program is no perf_event descriptor: toggle.c switches it through
# its 'live' flag with the events (the cpu-clock event it replaced stays
# off).
# Where the workload times its own loop (the examples' "result ... ns=" line)
# that time is compared too: it holds the sampling cost and leaves out the
# fixed cost of loading BPF and writing the report.
# BENCH_DUMP=FILE writes every timed run to FILE, one JSON line each.
# Workloads: the calibration examples when built (examples/bin), else the
# e2e test programs: a CPU-bound loop and a page-touching loop.
. "$MA_TOP/tests/lib.sh"
reps=${BENCH_REPS:-15}
hz=${BENCH_HZ:-$(default_hz)}
cc -O2 -o "$MA_TMP/toggle" "$MA_TOP/tests/bench/toggle.c" || exit 1
cc -O2 -o "$MA_TMP/fault_event" "$MA_TOP/tests/bench/fault_event.c" || exit 1
for p in hot_line touch_pages; do
	cc -O2 -g -fno-omit-frame-pointer -pthread -o "$MA_TMP/$p" "$MA_TOP/tests/e2e/progs/$p.c" || exit 1
done
if [ -x "$EXAMPLES/matmul" ] && [ -x "$EXAMPLES/page_faults" ] && [ -x "$EXAMPLES/huge_pages" ]; then
	# the calibration sizes: the paper's N=1000, 1.6 GB of fresh pages (25
	# buffers of 64 MiB: a fresh 8 MiB buffer reuses the same few thousand
	# physical pages batch after batch, and in a guest a process's speed then
	# depends on how the host backs those pages: 12.8 or 17.7 ms per 32 MiB
	# from one process to the next, against +-3 % with 64 MiB), the 512 MiB
	# chase
	set -- "matmul" "$EXAMPLES/matmul --variant naive --size 1000" \
		"page-faults" "$EXAMPLES/page_faults --buffer fresh --size 64M --batches 25" \
		"huge-pages" "$EXAMPLES/huge_pages --thp off --reps 1"
else
	set -- "cpu-loop" "$MA_TMP/hot_line 500" \
		"page-faults" "$MA_TMP/touch_pages 100000"
fi
python3 - "$MA" "$MA_TMP" "$reps" "$hz" "$@" <<'PY'
import itertools, json, os, random, re, statistics, subprocess, sys, time
ma, tmp, reps, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
wl = list(zip(sys.argv[5::2], sys.argv[6::2]))

TICK = os.sysconf("SC_CLK_TCK")

def steal_jiffies():
    # the guest's steal time (/proc/stat, USER_HZ ticks): time the host ran
    # something else while a vCPU had work; all CPUs, then each CPU
    with open("/proc/stat") as f:
        rows = [l.split() for l in f if l.startswith("cpu")]
    return int(rows[0][8]), [int(r[8]) for r in rows[1:]]

def run(cmd):
    # a shell runs CMD and prints its own /proc io and stat, which include
    # its reaped children: bytes written, and CPU time (cutime + cstime)
    # (its stderr comes back through a pipe: a file would count as written)
    sh = cmd + ' >/dev/null; rc=$?; cat /proc/$$/io; echo; cat /proc/$$/stat; exit $rc'
    st0 = steal_jiffies()
    s = time.perf_counter()
    p = subprocess.run(["sh", "-c", sh], cwd=tmp, capture_output=True, text=True)
    t = time.perf_counter() - s
    st1 = steal_jiffies()
    stolen = (st1[0] - st0[0]) / TICK
    # the most any one vCPU lost: a single-threaded workload runs on one at a
    # time, and halted vCPUs accrue none, so this is about what its wall time
    # lost (less if it migrated; memadvise's own thread on the other vCPU
    # counts only where that vCPU lost more)
    stolen_cpu = max(b - a for a, b in zip(st0[1], st1[1])) / TICK
    out = p.stdout
    if p.returncode:
        # a failed run is not a fast run
        sys.exit("bench: '%s' exited %d: %s" % (cmd, p.returncode, p.stderr.strip()[-300:]))
    m = re.search(r"^write_bytes: (\d+)", out, re.M)
    st = out.strip().splitlines()[-1].rsplit(")", 1)[1].split()
    cpu = (int(st[13]) + int(st[14])) / TICK   # fields 16, 17: cutime, cstime
    r = re.search(r"^result .*?\b(ns|ns_per_elem)=([0-9.]+)", p.stderr, re.M)
    ws = re.search(r"^workload-stat .*", p.stderr, re.M)
    wcpu = None
    if ws:
        f = ws.group(0).rsplit(")", 1)[1].split()
        wcpu = (int(f[13]) + int(f[14])) / TICK
    return (t, int(m.group(1)) if m else -1, cpu,
            (r.group(1), float(r.group(2))) if r else None, wcpu, stolen, stolen_cpu)

def median_interval(ratios):
    # a bootstrap 95 % interval of the median (fixed seed: reproducible)
    rng = random.Random(1)
    boot = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    return boot[50], boot[1949]

def wrapped(prog):
    # the workload under a shell that reports the CPU time of the workload
    # alone: a guest's steal time is not in it, nor is memadvise's own work
    return ("sh -c '%s; rc=$?; echo workload-stat $(cat /proc/$$/stat) >&2; exit $rc'" % prog)

def commands(name, prog):
    w_prog = wrapped(prog)
    cmds = {
        "bare": w_prog,
        "memadvise": f"{ma} run -- {w_prog}",
        "perf": f"perf record -q -g -F {hz} -o perf.data -- {w_prog} && perf report --stdio -i perf.data",
    }
    if "fault" in name:
        # the floor for a fault storm: the kernel's page-faults event only
        # counting, no sampling, no program (every fault passes its hook)
        cmds["perf-stat"] = f"perf stat -x, -e page-faults -o /dev/null -- {w_prog}"
    return cmds

def untimed(cmds):
    # one untimed run of each first: it fills the page cache, and the first
    # read of a file changed since it was last read (a binary just rebuilt)
    # updates its access time, which is a write (its inode's block) charged
    # to whoever read it.  Returns how long the round took.
    s = time.perf_counter()
    for k, c in cmds.items():
        run(c)
        if os.path.exists(os.path.join(tmp, "perf.data")):
            os.unlink(os.path.join(tmp, "perf.data"))
    return time.perf_counter() - s

def williams(k):
    # orders of 0..k-1 in which each follows each other equally often
    # (within the orders): the rows of a Williams square, and for an odd k
    # their mirrors too; then put in a sequence where no order starts with
    # the command the one before it ended with
    first = [0]
    for i in range(1, k):
        first.append((first[-1] + (i if i % 2 else k - i)) % k)
    rows = [[(x + r) % k for x in first] for r in range(k)]
    if k % 2:
        rows += [row[::-1] for row in rows]
    for seq in itertools.permutations(rows):
        if all(a[-1] != b[0] for a, b in zip(seq, seq[1:] + seq[:1])):
            return list(seq)
    return rows

ok = True
verdicts = []
# BENCH_DUMP=FILE: every timed run as a JSON line, for looking at what the
# medians hide (the place in the round, drifts, outliers)
dump = open(os.environ["BENCH_DUMP"], "w", buffering=1) if os.environ.get("BENCH_DUMP") else None
plan = [(name, prog, commands(name, prog)) for name, prog in wl]
took = [untimed(cmds) for _, _, cmds in plan]
# (a multiple of the design's orders: each command takes each place, and
# follows each other one, as often)
nreps = []
for x, (_, _, c) in zip(took, plan):
    n, d = min(4 * reps, max(reps, round(reps * max(took) / x))), len(williams(len(c)))
    nreps.append(-(-n // d) * d)
print(f"sampling overhead at {hz} Hz, interleaved rounds: "
      + ", ".join(f"{n} {r}" for (n, _, _), r in zip(plan, nreps))
      + f" (BENCH_REPS={reps} for the longest workload, as many in the same time for a shorter one)")
for (name, prog, cmds), reps in zip(plan, nreps):
    t = {k: [] for k in cmds}
    w = {k: [] for k in cmds}
    cpu = {k: [] for k in cmds}
    inner = {k: [] for k in cmds}
    wcpu = {k: [] for k in cmds}
    steal = {k: [] for k in cmds}
    unstolen = {k: [] for k in cmds}
    design = williams(len(cmds))
    for rnd in range(reps):
        order = [list(cmds.items())[i] for i in design[rnd % len(design)]]
        for pos, (k, c) in enumerate(order):
            a, b, u, n, wc, sl, slc = run(c)
            if dump:
                dump.write(json.dumps({"workload": name, "round": rnd, "place": pos, "cmd": k,
                                       "wall": a, "loop": n[1] if n else None, "cpu": u,
                                       "workload_cpu": wc, "steal": sl, "wrote": b}) + "\n")
            t[k].append(a)
            steal[k].append(sl / a)
            unstolen[k].append(a - slc)
            w[k].append(b)
            cpu[k].append(u)
            if n is not None:
                inner[k].append(n)
            if wc is not None:
                wcpu[k].append(wc)
            if k == "perf" and os.path.exists(os.path.join(tmp, "perf.data")):
                w[k][-1] = max(b, os.path.getsize(os.path.join(tmp, "perf.data")))
                os.unlink(os.path.join(tmp, "perf.data"))
    m = {k: statistics.median(v) for k, v in t.items()}
    c = {k: statistics.median(v) for k, v in cpu.items()}
    wb = {k: max(v) for k, v in w.items()}
    nw = {k: sum(1 for x in v if x) for k, v in w.items()}
    print(f"{name}: {prog.split('/')[-1]}  ({reps} rounds)")
    for k in cmds:
        print(f"  {k:10s} wall {m[k]*1000:8.1f} ms  cpu {c[k]*1000:8.1f} ms  wrote {wb[k]:>9d} B"
              + (f" (most in a run; {nw[k]} of {reps} runs wrote)" if k != "perf" and nw[k] else ""))
    pr = {k: statistics.median(a / b for a, b in zip(t[k], t["bare"])) for k in cmds}
    r = pr["memadvise"]
    print(f"  wall ratio memadvise/bare {r:.3f}   perf/bare {pr['perf']:.3f}   "
          f"memadvise/perf {statistics.median(a / b for a, b in zip(t['memadvise'], t['perf'])):.3f}"
          f"   (median of the rounds' ratios)")
    print(f"  ratio of the medians: memadvise/bare {m['memadvise']/m['bare']:.3f}   "
          f"perf/bare {m['perf']/m['bare']:.3f}")
    print(f"  cpu  ratio memadvise/bare {c['memadvise']/c['bare']:.3f}   "
          f"perf/bare {c['perf']/c['bare']:.3f}   (all processes, tool included)")
    if "perf-stat" in cmds:
        print(f"  floor: perf stat -e page-faults/bare wall {pr['perf-stat']:.3f}"
              f"   (counting the faults with the kernel's event, nothing else)")
    if all(len(v) == reps for v in inner.values()):
        i = {k: statistics.median(x[1] for x in v) for k, v in inner.items()}
        print(f"  loop ratio memadvise/bare {i['memadvise']/i['bare']:.3f}   "
              f"perf/bare {i['perf']/i['bare']:.3f}"
              + (f"   perf-stat/bare {i['perf-stat']/i['bare']:.3f}" if "perf-stat" in i else "")
              + "   (the workload's own timed loop)")
        if inner["bare"][0][0] == "ns":
            fixed = (m["memadvise"] - i["memadvise"] / 1e9) - (m["bare"] - i["bare"] / 1e9)
            print(f"  memadvise's fixed cost (wall outside the loop, over bare) {fixed * 1000:.0f} ms")
    if all(len(v) == reps for v in wcpu.values()):
        x = {k: statistics.median(v) for k, v in wcpu.items()}
        print(f"  workload cpu ratio memadvise/bare {x['memadvise']/x['bare']:.3f}   "
              f"perf/bare {x['perf']/x['bare']:.3f}"
              + (f"   perf-stat/bare {x['perf-stat']/x['bare']:.3f}" if "perf-stat" in x else "")
              + "   (the program's own CPU time: no steal, no tool)")
    # how far the median can be trusted: the spread of the rounds' ratios and
    # a bootstrap 95 % interval of their median (fixed seed: reproducible)
    rr = sorted(a / b for a, b in zip(t["memadvise"], t["bare"]))
    q = statistics.quantiles(rr, n=4)
    lo, hi = median_interval(rr)
    print(f"  rounds' ratios memadvise/bare: q25 {q[0]:.3f}  q75 {q[2]:.3f}  "
          f"min {rr[0]:.3f}  max {rr[-1]:.3f};  95 % interval of the median {lo:.3f}-{hi:.3f}")
    # rounds where the host left both runs alone: steal time under 2 % of
    # their wall time (measured from /proc/stat around each run)
    qr = sorted(a / b for a, b, x, y in zip(t["memadvise"], t["bare"], steal["memadvise"],
                                            steal["bare"]) if x <= 0.02 and y <= 0.02)
    print(f"  steal: median {statistics.median(steal['bare']) * 100:.1f} % of a bare run's wall, "
          f"{statistics.median(steal['memadvise']) * 100:.1f} % of memadvise's;  "
          + (f"{len(qr)} quiet rounds (both under 2 %): median ratio {statistics.median(qr):.3f}"
             if qr else "no quiet round (both under 2 %)"))
    # the wall time each run would have had on a host that stole none of it
    # (its wall less its vCPU's steal): the host's other tenants taken out
    ur = sorted(a / b for a, b in zip(unstolen["memadvise"], unstolen["bare"]))
    ulo, uhi = median_interval(ur)
    print(f"  wall less steal, ratio memadvise/bare {statistics.median(ur):.3f}   "
          f"perf/bare {statistics.median(a / b for a, b in zip(unstolen['perf'], unstolen['bare'])):.3f}"
          + (f"   perf-stat/bare {statistics.median(a / b for a, b in zip(unstolen['perf-stat'], unstolen['bare'])):.3f}"
             if "perf-stat" in cmds else "")
          + f";  95 % interval {ulo:.3f}-{uhi:.3f}")
    verdict = "met" if r <= 1.03 else "NOT met"
    if f"{r:.3f}" == "1.030":
        verdict += f" ({r:.4f})"  # rounded, a miss would read as the goal itself
    if lo <= 1.03 < hi:
        verdict += " (the interval spans 1.03: this machine's noise decides)"
    print(f"  overhead goal wall ratio <= 1.03: {verdict}")
    verdicts.append((name, r, r <= 1.03, lo <= 1.03 < hi))
    # A read can write: where a file's access time is more than a day old
    # (relatime), the kernel updates it, and on ext4 without a journal the
    # reader is charged the inode table's block, 4096 bytes, once per file per
    # day. The bare program gets these too. A tool that writes its data writes
    # in every run; so memadvise passes where it wrote at most one block in a
    # run, and in at most one run more than the bare program did.
    if wb["memadvise"] > 4096 or nw["memadvise"] > nw["bare"] + 1:
        print(f"  memadvise wrote up to {wb['memadvise']} bytes in {nw['memadvise']} of {reps} runs,"
              f" the bare program up to {wb['bare']} in {nw['bare']} (must be 0)")
        ok = False
    elif wb["memadvise"]:
        print(f"  memadvise wrote no data: {nw['memadvise']} of its {reps} runs were charged one"
              f" 4096-byte block, as were {nw['bare']} of the bare program's (access-time updates)")

# the goal holds for a run of the bench when it holds on every workload
missed = [f"{n} {r:.4f}" + (" (noise decides)" if span else "") for n, r, met, span in verdicts if not met]
print(f"overhead goal, all {len(verdicts)} workloads in this run: "
      + ("met" if not missed else "NOT met: " + ", ".join(missed)))

def in_process(kind, tool):
    # the toggle workload takes the tool's perf_event descriptors and
    # switches them off and on around its own slices of work
    tg = subprocess.Popen([os.path.join(tmp, "toggle"), kind, "300"], cwd=tmp,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    pid = tg.stdout.readline().strip()
    if tool == "memadvise":
        # with its page-faults event open throughout (no fault windows):
        # the cost of the events when on, which is what this measures
        cmd = [ma, "run", "--all-faults", "-p", pid, "-d", "300s", "-o", "/dev/null"]
    elif tool == "perf-stat":
        cmd = ["perf", "stat", "-e", "page-faults", "-p", pid, "-o", "/dev/null"]
    else:
        cmd = ["perf", "record", "-q", "-g", "-F", hz, "-p", pid, "-o", "perf.data"]
    pr = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    tg.stdin.write(f"{pr.pid}\n")
    tg.stdin.flush()
    out = tg.stdout.readline().split()
    tg.wait()
    pr.send_signal(2)
    pr.wait()
    if os.path.exists(os.path.join(tmp, "perf.data")):
        os.unlink(os.path.join(tmp, "perf.data"))
    if len(out) != 5 or out[0] != "ratio":
        return None
    return [float(x) for x in out[1:4]]

print(f"in-process cost of the events at {hz} Hz (300 pairs of slices in one process, "
      "events on/off: median [q25-q75])")
for kind, what, tools in (("faults", "first-touch faults", ("memadvise", "perf", "perf-stat")),
                          ("compute", "a multiply-add loop", ("memadvise", "perf"))):
    line = []
    for tool in tools:
        x = in_process(kind, tool)
        line.append(f"{tool} {x[0]:.3f} [{x[1]:.3f}-{x[2]:.3f}]" if x else f"{tool} n/a")
    print(f"  {what:20s} " + "   ".join(line))

# The page-faults event's cost split into its parts (tests/bench/fault_event.c):
# 'exists' is paid by every fault on the system while any such event is open,
# enabled or not, and is in neither tool's on/off ratio above.
parts = {}
fe = subprocess.run([os.path.join(tmp, "fault_event"), "300"], stdout=subprocess.PIPE, text=True)
for l in fe.stdout.splitlines():
    f = l.split()
    if len(f) == 4 and f[1] != "error":
        parts[f[0]] = f"{float(f[1]):.3f} [{float(f[2]):.3f}-{float(f[3]):.3f}]"
    elif f:
        parts[f[0]] = " ".join(f[1:])
print("the kernel's page-faults event on first-touch faults, in one process (median [q25-q75]):")
print(f"  an event open anywhere, even disabled, vs none  {parts.get('exists', 'n/a')}")
print(f"  counting (perf stat), enabled vs disabled       {parts.get('counting', 'n/a')}")
print(f"  sampling at 4000 Hz, enabled vs disabled        {parts.get('sampling', 'n/a')}")
print(f"  sampling that takes no sample                   {parts.get('no-sample', 'n/a')}")
sys.exit(0 if ok else 1)
PY
