#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fault injection for memadvise: failing targets and signals at random moments.

For each kind of target (see kinds()) the script runs memadvise N times;
in four runs of five it sends memadvise SIGINT, SIGTERM, SIGHUP or SIGKILL
(once, or twice; a fifth of the SIGINTs as a Ctrl-C on a terminal of its
own, which reaches the target too) at a random moment of a random phase:
before the target starts, while it runs, after it ended (the analysis) or
once the report file is being written.  Every run is checked for:

  hang       memadvise still running 20 s after its target ended (the
             longest time after it seen on a 2-vCPU guest is 5.6 s, under
             ASan; 20 s leaves room for steal time); it is then killed
  exit       the status memadvise(1) promises: the target's own, 128+N when
             the target was killed by signal N (a forwarded SIGINT, SIGTERM
             or SIGHUP included, a second one kills it), 0 with -p; the
             status in the report agrees with it; memadvise itself is never
             killed by a signal it catches, except one that comes before its
             code runs (exec and the dynamic loader: allowed and counted)
  report     the -o file (JSON or text) is there and parses whenever
             memadvise ended by itself, and says 'interrupted' when the
             target ended by the forwarded signal; top -j prints whole JSON
             lines; check -j prints its results (memadvise-check(1) says
             nothing of signals: their default action is accepted there)
  bpf        no BPF program, map or link of memadvise's (names taken from
             bpf/*.bpf.c) newer than the run's start outlives it, unless
             another memadvise holds it
  procs      no process of the run (memadvise, the target and its children,
             found by an environment variable they inherit) left 5 s after
             the target's natural end; an attached process is still alive
  files      no memadvise temporary file or directory left in $TMPDIR (a
             --sim run runs alone, so that what it leaves is its own; the
             cachegrind directory a SIGKILL leaves is counted apart)

Usage: stress.py [-n RUNS] [--seed SEED] [-k KIND[,KIND]] [-j JOBS] [--ma PATH]
Prints the seed (replay with --seed, one run with -k KIND --run I), one
line per failure, and a summary table; exits 1 when any count is not 0.
"""

import argparse
import fcntl
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HANG_S = 20.0
TARGET_MS = 600
SIGS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL]
PHASES = ["start", "run", "analysis", "write"]


def kinds(target, root):
    """name -> (mode, argv of the target, its natural exit status)"""
    ms = str(TARGET_MS)
    return {
        "segv": ("run", [target, "segv", ms], 128 + signal.SIGSEGV),
        "abort": ("run", [target, "abort", ms], 128 + signal.SIGABRT),
        "killed": ("run", [target, "work", "3000", "0"], 128 + signal.SIGKILL),
        "instant": ("run", [target, "work", "0", "3"], 3),
        "exec": ("run", [target, "exec", ms, "7"], 7),
        "threads200": ("run", [target, "threads", ms, "200"], 0),
        "children1000": ("run", [target, "children", ms, "1000"], 0),
        "chroot-setuid": ("run", [target, "chroot", ms, root], 4),
        "fds-closed": ("run", [target, "work", ms, "0"], 0),
        "target-closes-fds": ("run", [target, "closefds", ms], 0),
        "ignint": ("run", [target, "ignint", ms], 0),
        "attach": ("attach", [target, "work", "30000", "0"], 0),
        "top": ("top", [target, "work", ms, "5"], 5),
        # under cachegrind (valgrind runs the target): its private temporary directory
        "sim": ("run", [target, "work", "50", "3"], 3),
        # a workload that crashes: the budget cannot be checked, exit 2
        "check": ("check", [target, "segv", ms], 2),
    }


# ---------------------------------------------------------------- BPF objects

def bpf_names():
    """memadvise's program and map names, as the kernel shows them (15 chars)."""
    progs, maps = set(), set()
    bpfdir = os.path.join(TOP, "bpf")
    for f in sorted(os.listdir(bpfdir)):
        if not (f.endswith(".bpf.c") or f.endswith(".h")):
            continue
        src = open(os.path.join(bpfdir, f)).read()
        for m in re.finditer(r'SEC\("([^"]+)"\)[\s\\]*\n\s*int\s+(?:BPF_\w+\(\s*)?(\w+?)(##n)?\s*[(,)]', src):
            if m.group(3):
                progs.update(m.group(2) + str(i) for i in range(10))
            else:
                progs.add(m.group(2))
        maps.update(re.findall(r'\}\s*(\w+)\s+SEC\("\.maps"\)', src))
        if f.endswith(".bpf.c"):
            # libbpf's internal maps: the object name's first 8 chars, '.' as '_'
            pre = f[:-2][:8].replace(".", "_")
            maps.update(pre + s for s in (".rodata", ".bss", ".data"))
    return {n[:15] for n in progs}, {n[:15] for n in maps}


def bpftool(what):
    try:
        out = subprocess.run(["bpftool", what, "show", "-j"], capture_output=True, timeout=30)
        return json.loads(out.stdout or b"[]")
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def bpf_snapshot(progs, maps):
    """{('prog'|'map'|'link', id): (name, referenced ids)} of memadvise's objects."""
    snap = {}
    p = bpftool("prog")
    m = bpftool("map")
    lk = bpftool("link")
    if p is None or m is None or lk is None:
        return None
    mine = set()
    for o in p:
        if o.get("name") in progs:
            snap[("prog", o["id"])] = (o["name"], [("map", i) for i in o.get("map_ids", [])])
            mine.add(o["id"])
    for o in m:
        if o.get("name") in maps:
            snap[("map", o["id"])] = (o["name"], [])
    for o in lk:
        if o.get("prog_id") in mine:
            snap[("link", o["id"])] = ("link->%d" % o["prog_id"], [("prog", o["prog_id"])])
    return snap


def bpf_holders():
    """{('prog'|'map'|'link', id): {pid}} from every process's fds."""
    held = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        fddir = "/proc/%s/fd" % pid
        try:
            fds = os.listdir(fddir)
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(os.path.join(fddir, fd))
            except OSError:
                continue
            if not link.startswith("anon_inode:bpf"):
                continue
            try:
                info = open("/proc/%s/fdinfo/%s" % (pid, fd)).read()
            except OSError:
                continue
            for key, kind in (("link_id", "link"), ("prog_id", "prog"), ("map_id", "map")):
                mm = re.search(r"^%s:\s*(\d+)" % key, info, re.M)
                if mm:
                    held.setdefault((kind, int(mm.group(1))), set()).add(int(pid))
                    if kind == "link":
                        pm = re.search(r"^prog_id:\s*(\d+)", info, re.M)
                        if pm:
                            held.setdefault(("prog", int(pm.group(1))), set()).add(int(pid))
                    break
    return held


def owner_ok(pid):
    try:
        return open("/proc/%d/comm" % pid).read().strip() in ("memadvise", "bpftool", "unit-tests")
    except OSError:
        return False


def memadvise_alive(exclude):
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in exclude:
            try:
                if open("/proc/%s/comm" % pid).read().strip() == "memadvise":
                    return True
            except OSError:
                pass
    return False


def bpf_orphans(before_max, progs, maps, ours):
    """memadvise's objects newer than BEFORE_MAX that no live process but OURS holds."""
    snap = bpf_snapshot(progs, maps)
    if snap is None:
        return None
    new = {k: v for k, v in snap.items() if k[1] > before_max.get(k[0], 0)}
    if not new:
        return {}
    held = bpf_holders()
    other = memadvise_alive(ours)
    again = bpf_snapshot(progs, maps) or {}
    # what another memadvise holds (or a bpftool reading it, or the unit
    # tests loading it), and what that holds in turn; any other holder got
    # the fd from memadvise: a leak
    live = {k for k, pids in held.items() if any(owner_ok(p) for p in pids - ours)}
    for k in list(live):
        for ref in snap.get(k, (None, []))[1]:
            live.add(ref)
            for ref2 in snap.get(ref, (None, []))[1]:
                live.add(ref2)
    out = {}
    for k, (name, _) in new.items():
        # gone meanwhile, or held: by a link, a program or a process's fd
        if k not in again or k in live:
            continue
        pids = {p for p in held.get(k, set()) if not owner_ok(p)}
        # a program attached through a perf event fd, and its maps, are held by
        # no bpf fd: they are another memadvise's while one runs
        if not pids and k[0] in ("prog", "map") and other:
            continue
        out[k] = "%s %d %s%s" % (k[0], k[1], name, " held by %s" % sorted(pids) if pids else "")
    return out


def bpf_leaks(before_max, progs, maps, ours, wait_s=5.0):
    """The objects still orphaned after WAIT_S (freeing is deferred by RCU)."""
    deadline = time.monotonic() + wait_s
    while True:
        orphans = bpf_orphans(before_max, progs, maps, ours)
        if orphans is None:
            return ["bpftool failed"]
        if not orphans or time.monotonic() >= deadline:
            return [orphans[k] for k in sorted(orphans)]
        time.sleep(0.25)


def bpf_max_ids():
    out = {}
    for what in ("prog", "map", "link"):
        objs = bpftool(what) or []
        out[what] = max([o.get("id", 0) for o in objs] + [0])
    return out


# ---------------------------------------------------------------- processes

def marked(tag):
    """pids whose environment holds STRESS_MARK=TAG."""
    needle = ("STRESS_MARK=%s\0" % tag).encode()
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if needle in f.read() + b"\0":
                    pids.append(int(pid))
        except OSError:
            pass
    return pids


def stop_blocked(pid):
    """Whether memadvise blocks or handles SIGTERM yet (its code has started)."""
    try:
        st = open("/proc/%d/status" % pid).read()
    except OSError:
        return True
    m = re.search(r"^SigBlk:\s*([0-9a-f]+)", st, re.M)
    c = re.search(r"^SigCgt:\s*([0-9a-f]+)", st, re.M)
    bit = 1 << (signal.SIGTERM - 1)
    return bool(m and int(m.group(1), 16) & bit) or bool(c and int(c.group(1), 16) & bit)


def proc_state(pid):
    try:
        st = open("/proc/%d/stat" % pid).read()
        return st[st.rindex(")") + 2]
    except (OSError, ValueError):
        return None


def children(pid):
    out = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                out += [int(c) for c in open("/proc/%d/task/%s/children" % (pid, tid)).read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def exe(pid):
    try:
        return os.readlink("/proc/%d/exe" % pid)
    except OSError:
        return None


# ---------------------------------------------------------------- one run

class Run:
    def __init__(self, args, kind, i):
        self.args = args
        self.kind = kind
        self.i = i
        self.rng = random.Random("%d:%s:%d" % (args.seed, kind, i))
        self.fail = {"hang": [], "exit": [], "report": [], "bpf": [], "procs": [], "files": []}
        self.notes = []
        self.target_seen = None   # monotonic time the target was seen exec'd
        self.target_end = None    # ... seen gone
        self.target_pid = None
        self.sent = []            # (signal, phase, the target could get it)
        self.early = False        # one came before memadvise's code blocked them
        self.sent_t = []
        self.done = threading.Event()

    def plan(self):
        r = self.rng
        self.sig = None if r.random() < 0.2 else r.choice(SIGS)
        self.phase = r.choice(PHASES)
        self.twice = self.sig != signal.SIGKILL and r.random() < 0.25
        self.json = r.random() < 0.5
        self.delay = r.random()
        self.attach_kill = self.kind == "attach" and r.random() < 0.33
        self.quick = r.random() < 0.25
        # a fifth of the SIGINTs come as a Ctrl-C typed on memadvise's terminal
        self.tty = self.sig == signal.SIGINT and r.random() < 0.2

    def command(self, mode, argv, workdir):
        ma = self.args.ma
        if mode == "top":
            return [ma, "top", "-j", "-d", "0.2", "--", *argv]
        if mode == "check":
            return [ma, "check", "-j", "-b", self.args.budget, "--", *argv]
        self.out = os.path.join(workdir, "r.json" if self.json else "r.txt")
        cmd = [ma, "run", "-o", self.out] + (["-j"] if self.json else [])
        if self.kind == "sim":
            cmd.append("--sim")
        if mode == "attach":
            return cmd + ["-p", str(self.attached.pid), "-d", "1s"]
        return cmd + ["--", *argv]

    # watches memadvise's children: when the target runs and when it is gone
    def watch(self, ma):
        ever = False
        empty = 0
        while not self.done.is_set() and self.target_end is None:
            kids = children(ma.pid)
            if kids:
                ever = True
                empty = 0
                for k in kids:
                    if self.target_seen is None and (exe(k) == self.args.target_exe or
                                                     "cachegrind" in (exe(k) or "")):
                        self.target_seen = time.monotonic()
                        self.target_pid = k
            if self.target_pid:
                # a zombie, or reaped
                if proc_state(self.target_pid) in (None, "Z", "X"):
                    self.target_end = time.monotonic()
            elif ever and not kids:
                # never seen after its exec (an instant exit): gone for 3 polls,
                # since a child moves between tasks' lists as its spawner thread ends
                empty += 1
                if empty >= 3:
                    self.target_end = time.monotonic()
            if ma.poll() is not None:
                break
            time.sleep(0.002)

    def wait_for(self, ma, cond, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end and ma.poll() is None:
            if cond():
                return True
            time.sleep(0.002)
        return False

    def inject(self, ma):
        """Sends the planned signal to memadvise at its moment."""
        if self.sig is None:
            return
        r = self.delay
        if self.attached and self.phase != "start":
            # measures for 1 s (-d 1s): during it, or just after it
            time.sleep(0.1 + r * 0.9 if self.phase == "run" else 1.0 + r * 0.1)
        elif self.phase == "start":
            # a quarter of them within 3 ms of the exec: the dynamic loader's time
            time.sleep(r * (0.003 if self.quick else 0.08))
        elif self.phase == "run":
            if not self.wait_for(ma, lambda: self.target_seen, 30):
                return
            time.sleep(r * TARGET_MS / 1000.0)
        elif self.phase == "analysis":
            if not self.wait_for(ma, lambda: self.target_end, 60):
                return
            time.sleep(r * 0.1)
        else:
            out = getattr(self, "out", None)
            if not self.wait_for(ma, lambda: self.target_end, 60):
                return
            if out:
                self.wait_for(ma, lambda: os.path.exists(out) and os.path.getsize(out) > 0, 30)
            else:
                time.sleep(r * 0.3)
        for n in range(2 if self.twice else 1):
            if n:
                time.sleep(0.1 + r * 0.2)
            if ma.poll() is not None:
                return
            alive = self.target_seen is not None and self.target_end is None
            early = not stop_blocked(ma.pid)
            try:
                if self.tty:
                    os.write(self.master, b"\x03")  # VINTR: SIGINT to the foreground group
                else:
                    os.kill(ma.pid, self.sig)
            except (ProcessLookupError, OSError):
                return
            self.sent.append((self.sig, self.phase, alive or self.target_end is None))
            self.sent_t.append(time.monotonic())
            self.early = self.early or early

    def kill_target(self, ma):
        """kind 'killed': SIGKILL to the target from outside, during its run."""
        if not self.wait_for(ma, lambda: self.target_seen, 30):
            return
        time.sleep(0.05 + self.rng.random() * 0.5)
        if self.target_pid and self.target_end is None:
            try:
                os.kill(self.target_pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def allowed_status(self, mode, natural):
        """The exit statuses memadvise(1) allows, given the signals sent."""
        if mode == "attach":
            ok = {0}
        else:
            ok = {natural}
        if not self.sent:
            return ok
        sig = self.sent[0][0]
        target_could_get = any(a for _, _, a in self.sent)
        if self.early and sig != signal.SIGKILL:
            # exec and the dynamic loader, before memadvise's first instruction
            # (its .preinit_array) blocks them: the default action, nothing started
            ok.add(-sig)
        if sig == signal.SIGKILL:
            return ok | {-signal.SIGKILL}
        if mode == "attach":
            return ok
        if target_could_get:
            # ignint ignores SIGINT from its main() on: a Ctrl-C at the start
            # can reach it in exec or the dynamic loader, before that
            if not (self.kind == "ignint" and sig == signal.SIGINT and self.phase != "start"):
                ok.add(128 + sig)
            if len(self.sent) > 1:
                ok.add(128 + signal.SIGKILL)
        if mode == "top":
            ok |= {128 + sig, -sig}
        if mode == "check":
            # memadvise-check(1) promises nothing for signals: their default action
            ok |= {-sig}
        return ok

    def check_report(self, mode, rc):
        # died of a signal: SIGKILL, or one before its code ran (see allowed_status)
        killed = rc < 0
        if mode == "check":
            if rc < 0:
                return
            try:
                d = json.load(open(self.stdout))
                if d["verdict"] != "error":
                    self.fail["report"].append("check: verdict %r for a crashing workload" % d["verdict"])
            except (ValueError, KeyError, TypeError) as e:
                self.fail["report"].append("check -j: stdout does not parse (%s)" % e)
            return
        if mode == "top":
            lines = open(self.stdout).read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            elif lines and killed:
                lines.pop()  # a line cut by SIGKILL
            for ln in lines:
                try:
                    json.loads(ln)
                except ValueError:
                    self.fail["report"].append("top -j: a line is not JSON: %.60r" % ln)
                    return
            if not lines and rc == self.natural:
                self.fail["report"].append("top -j printed nothing")
            return
        if killed:
            if not os.path.exists(self.out) or not os.path.getsize(self.out):
                self.notes.append("report lost to SIGKILL")
            return
        if not os.path.exists(self.out):
            self.fail["report"].append("no report (exit %d)" % rc)
            return
        text = open(self.out, "rb").read()
        status = None
        interrupted = None
        if self.json:
            try:
                d = json.loads(text)
                t = d["target"]
                d["events"]
            except (ValueError, KeyError, TypeError) as e:
                self.fail["report"].append("JSON report does not parse (%s, %d bytes)" % (e, len(text)))
                return
            if mode != "attach":
                status = 128 + t["term_signal"] if t.get("term_signal") else t.get("exit_code")
            interrupted = t.get("interrupted")
            # killed while measured, and no signal ended the measurement first
            if mode == "attach" and self.attach_killed and not t.get("exited") and \
                    all(st > self.attach_killed + 0.2 for st in self.sent_t):
                self.fail["report"].append("attached process killed, report says it did not exit")
        else:
            s = text.decode("utf-8", "replace")
            if not s.startswith("memadvise: ") or "\nCOUNTER " not in s or not s.endswith("\n"):
                self.fail["report"].append("text report incomplete (%d bytes)" % len(text))
                return
            m = re.search(r"killed by signal (\d+)|exited with status (\d+)", s)
            if m and mode != "attach":
                status = 128 + int(m.group(1)) if m.group(1) else int(m.group(2))
            interrupted = "\n  interrupted:" in s
        if mode != "attach" and status is None:
            self.fail["report"].append("the report has no exit status")
        elif mode != "attach" and status != rc:
            self.fail["exit"].append("exit %d but the report says %d" % (rc, status))
        forwarded = self.sent and rc == 128 + self.sent[0][0] and self.natural != rc
        if forwarded and not interrupted:
            self.fail["report"].append("the target died of the forwarded signal; "
                                       "the report is not marked interrupted")

    def execute(self):
        a = self.args
        self.plan()
        mode, argv, self.natural = a.kinds[self.kind]
        tag = "%d-%s-%d" % (a.seed, self.kind, self.i)
        workdir = tempfile.mkdtemp(prefix="run-", dir=a.workdir)
        self.stdout = os.path.join(workdir, "stdout")
        env = dict(os.environ, STRESS_MARK=tag, LC_ALL="C")
        before = bpf_max_ids()
        tmp_before = set(os.listdir(a.tmpdir))
        self.attached = None
        self.attach_killed = False
        if mode == "attach":
            self.attached = subprocess.Popen(argv, env=dict(os.environ, STRESS_MARK=tag + "-attached"),
                                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            time.sleep(0.1)
        cmd = self.command(mode, argv, workdir)
        stdin = subprocess.DEVNULL
        if self.tty:
            # a terminal of its own: memadvise leads a session, the pty is its stdin
            self.master, stdin = os.openpty()

        def pre():
            if self.tty:
                os.setsid()
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            if self.kind == "fds-closed":
                for fd in (0, 1, 2):
                    os.close(fd)
        t0 = time.monotonic()
        with open(self.stdout, "wb") as so, open(os.path.join(workdir, "stderr"), "wb") as se:
            ma = subprocess.Popen(cmd, env=env, stdin=stdin, stdout=so, stderr=se,
                                  preexec_fn=pre, cwd=workdir)
        if self.tty:
            os.close(stdin)
        self.cmd = cmd
        watcher = threading.Thread(target=self.watch, args=(ma,), daemon=True)
        watcher.start()
        injector = threading.Thread(target=self.inject, args=(ma,), daemon=True)
        injector.start()
        if self.kind == "killed":
            threading.Thread(target=self.kill_target, args=(ma,), daemon=True).start()
        if self.attach_kill:
            def kill_attached():
                time.sleep(0.2 + self.rng.random() * 0.6)
                if ma.poll() is None and not self.sent:
                    self.attached.kill()
                    self.attach_killed = time.monotonic()
            threading.Thread(target=kill_attached, daemon=True).start()

        # hang: not ended HANG_S after the target ended (or after the planned end)
        limit = 3.0 + 20 * TARGET_MS / 1000.0 + HANG_S * 2
        while ma.poll() is None:
            now = time.monotonic()
            end = self.target_end
            if mode == "attach":
                end = t0 + 1.0
            if (end and now - end > HANG_S) or now - t0 > limit:
                self.fail["hang"].append("still running %.1f s after the target ended; stack: %s" %
                                         (now - (end or t0), self.stack(ma.pid)))
                ma.kill()
                ma.wait()
                break
            time.sleep(0.05)
        rc = ma.returncode
        self.done.set()
        if self.tty:
            os.close(self.master)
        injector.join(5)
        watcher.join(5)
        self.rc = rc
        self.tail = time.monotonic() - self.target_end if self.target_end else None

        if not self.fail["hang"]:
            ok = self.allowed_status(mode, self.natural)
            if rc not in ok:
                self.fail["exit"].append("exit %s, expected one of %s" %
                                         (fmt(rc), sorted(fmt(s) for s in ok)))
            self.check_report(mode, rc)
        if mode == "attach":
            if not self.attach_killed and self.attached.poll() is not None:
                self.fail["procs"].append("memadvise ended the process it attached to (%s)"
                                          % fmt(self.attached.returncode))
            self.attached.kill()
            self.attached.wait()

        # the run's processes: gone within 5 s of the target's natural end
        grace = time.monotonic() + 5.0 + (TARGET_MS / 1000.0 if rc == -signal.SIGKILL else 0)
        if self.kind == "killed" and rc == -signal.SIGKILL:
            grace += 3.0
        left = marked(tag)
        while left and time.monotonic() < grace:
            time.sleep(0.1)
            left = marked(tag)
        if left:
            desc = ["%d(%s,%s)" % (p, proc_state(p), os.path.basename(exe(p) or "?")) for p in left]
            self.fail["procs"].append("left running: " + " ".join(desc))
            for p in left:
                for s in (signal.SIGCONT, signal.SIGKILL):
                    try:
                        os.kill(p, s)
                    except ProcessLookupError:
                        pass

        leaks = bpf_leaks(before, a.progs, a.maps, {ma.pid} | set(left))
        self.fail["bpf"] += leaks

        new_tmp = [f for f in set(os.listdir(a.tmpdir)) - tmp_before if f.startswith("memadvise")]
        stale = [f for f in new_tmp if not self.still_used(os.path.join(a.tmpdir, f))]
        if stale and rc == -signal.SIGKILL:
            # memadvise could not remove its cachegrind directory: counted apart
            self.notes.append("temporary left by SIGKILL")
            for f in stale:
                shutil.rmtree(os.path.join(a.tmpdir, f), ignore_errors=True)
        elif stale:
            self.fail["files"].append("left in %s: %s" % (a.tmpdir, " ".join(stale)))
        extra = set(os.listdir(workdir)) - {"stdout", "stderr", "r.json", "r.txt"}
        if extra:
            self.fail["files"].append("left in the run's directory: %s" % " ".join(sorted(extra)))
        if not a.keep and not any(self.fail.values()):
            shutil.rmtree(workdir, ignore_errors=True)
        self.workdir = workdir
        return self

    @staticmethod
    def still_used(path):
        """A directory another run's valgrind writes to (its command line names it)."""
        if not os.path.exists(path):
            return True
        needle = path.encode()
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if needle in open("/proc/%s/cmdline" % pid, "rb").read():
                        return True
                except OSError:
                    pass
        return False

    @staticmethod
    def stack(pid):
        try:
            return open("/proc/%d/wchan" % pid).read() or "?"
        except OSError:
            return "?"

    def describe(self):
        sent = ",".join("%s@%s" % (signal.Signals(s).name, p) for s, p, _ in self.sent) or "none"
        if self.tty:
            sent = sent.replace("SIGINT", "CTRL-C")
        planned = ("CTRL-C" if self.tty else signal.Signals(self.sig).name if self.sig else "none") + \
            ("@" + self.phase if self.sig else "")
        tail = " (ended %.2f s after the target)" % self.tail if self.tail is not None else ""
        return "kind=%s run=%d signal=%s (planned %s%s) exit=%s%s cmd: %s" % (
            self.kind, self.i, sent, planned, " x2" if self.twice else "", fmt(self.rc), tail,
            " ".join(self.cmd))


def fmt(rc):
    if rc is None:
        return "?"
    return "sig%d" % -rc if rc < 0 else str(rc)


COLS = [("hang", "hangs"), ("exit", "wrong exit"), ("report", "bad report"),
        ("bpf", "BPF leaks"), ("procs", "leftover procs"), ("files", "leftover files")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=50, help="runs per kind (default 50)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("-k", "--kind", dest="only", default=None,
                    help="comma-separated kinds (default all; --list lists them)")
    ap.add_argument("--run", type=int, default=None, help="only run number I of each kind")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="memadvise runs at once (default 2)")
    ap.add_argument("--ma", default=os.path.join(TOP, ".output", "memadvise"))
    ap.add_argument("--keep", action="store_true", help="keep every run's directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per run")
    ap.add_argument("--list", action="store_true", help="list the kinds")
    a = ap.parse_args()
    a.ma = os.path.abspath(a.ma)  # the runs' working directory is their own
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1, 1 << 31)

    a.tmpdir = os.environ.get("TMPDIR") or "/tmp"
    a.workdir = tempfile.mkdtemp(prefix="ma-stress.", dir=a.tmpdir)
    root = os.path.join(a.workdir, "chroot")
    os.mkdir(root)
    a.target_exe = os.path.join(a.workdir, "target")
    a.kinds = kinds(a.target_exe, root)
    a.budget = os.path.join(a.workdir, "budget.yaml")
    with open(a.budget, "w") as f:
        f.write("version: 1\nworkloads:\n  - name: crash\n    tier: counters\n    repeat: 1\n"
                "    limits:\n      - metric: page_faults\n        max: 100000000\n")
    if a.list:
        print("\n".join(a.kinds))
        shutil.rmtree(a.workdir)
        return 0
    cc = subprocess.run(["cc", "-O2", "-g", "-fno-omit-frame-pointer", "-pthread", "-o", a.target_exe,
                         os.path.join(TOP, "tests", "stress", "target.c")])
    if cc.returncode:
        print("error: cannot build tests/stress/target.c", file=sys.stderr)
        return 2
    names = list(a.kinds)
    if a.only:
        names = a.only.split(",")
        bad = [n for n in names if n not in a.kinds]
        if bad:
            print("error: unknown kind '%s'" % bad[0], file=sys.stderr)
            print("hint: --list lists the kinds", file=sys.stderr)
            return 2
    if shutil.which("bpftool") is None:
        print("error: bpftool is not installed: leaked BPF objects cannot be counted", file=sys.stderr)
        print("hint: apt-get install bpftool", file=sys.stderr)
        return 2
    if "sim" in names and shutil.which("valgrind") is None:
        names.remove("sim")
        print("kind sim left out: valgrind is not installed", flush=True)
    a.progs, a.maps = bpf_names()
    runs = [(k, i) for i in range(a.n) for k in names if a.run is None or a.run == i]
    print("seed %d (replay: %s --seed %d -n %d%s)" % (
        a.seed, sys.argv[0], a.seed, a.n, " -k " + a.only if a.only else ""), flush=True)
    print("memadvise %s, %d kinds x %d runs, %d at once, scratch %s" % (
        a.ma, len(names), a.n, a.jobs, a.workdir), flush=True)
    table = {k: dict({c: 0 for c, _ in COLS}, runs=0, signals=0, lost=0, tmp=0, early=0, tail=0.0) for k in names}
    lock = threading.Lock()
    t0 = time.monotonic()

    solo = threading.Condition()
    busy = {"runs": 0, "solo": False, "waiting": 0}

    def one(ki):
        # a --sim run runs alone: a directory it leaves is then its own
        alone = ki[0] == "sim"
        with solo:
            if alone:
                busy["waiting"] += 1
                solo.wait_for(lambda: not busy["solo"] and not busy["runs"])
                busy["waiting"] -= 1
            else:
                solo.wait_for(lambda: not busy["solo"] and not busy["waiting"])
            busy["runs"] += 1
            busy["solo"] = alone
        try:
            r = Run(a, *ki).execute()
        finally:
            with solo:
                busy["runs"] -= 1
                busy["solo"] = False
                solo.notify_all()
        with lock:
            row = table[r.kind]
            row["runs"] += 1
            row["signals"] += bool(r.sent)
            row["lost"] += "report lost to SIGKILL" in r.notes
            row["tmp"] += "temporary left by SIGKILL" in r.notes
            row["early"] += r.early and r.rc is not None and r.rc < 0 and r.rc != -signal.SIGKILL
            if r.tail is not None and r.rc != -signal.SIGKILL:
                row["tail"] = max(row["tail"], r.tail)
            for c, _ in COLS:
                if r.fail[c]:
                    row[c] += 1
                    print("FAIL %s: %s\n     %s (kept in %s)" % (
                        c, "; ".join(r.fail[c]), r.describe(), r.workdir), flush=True)
            if a.verbose:
                print("run  " + r.describe(), flush=True)
            done = sum(x["runs"] for x in table.values())
            if done % 25 == 0:
                print("... %d/%d runs, %.0f s" % (done, len(runs), time.monotonic() - t0), flush=True)

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        list(ex.map(one, runs))

    hdr = "%-18s %5s %7s" % ("KIND", "RUNS", "SIGNAL") + \
        "".join(" %*s" % (len(t), t) for _, t in COLS) + "  AFTER"
    print("\n" + hdr)
    total = 0
    for k in names:
        row = table[k]
        print("%-18s %5d %7d" % (k, row["runs"], row["signals"]) +
              "".join(" %*d" % (len(t), row[c]) for c, t in COLS) + " %5.2fs" % row["tail"])
        total += sum(row[c] for c, _ in COLS)
    lost = sum(x["lost"] for x in table.values())
    print("(SIGNAL: runs in which memadvise got a signal; AFTER: the longest time it ran on"
          " after its target ended)")
    early = sum(x["early"] for x in table.values())
    tmp = sum(x["tmp"] for x in table.values())
    print("\n%d runs in %.0f s, seed %d; not counted: %d reports and %d cachegrind directories lost"
          " to a SIGKILL of memadvise, %d runs ended by a signal that came before memadvise's code"
          " ran (in exec or the dynamic loader)" % (sum(x["runs"] for x in table.values()),
                                                   time.monotonic() - t0, a.seed, lost, tmp, early))
    if not a.keep and not total:
        shutil.rmtree(a.workdir, ignore_errors=True)
    print("%s: %d failed checks" % ("FAIL" if total else "PASS", total))
    return 1 if total else 0

if __name__ == "__main__":
    sys.exit(main())
