#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Mutation fuzzer for 'memadvise layout' over real ELF/DWARF inputs.

Compiles the seeds in tests/fuzz/layout/ with every compiler and DWARF
variant installed (gcc and clang, DWARF 4 and 5, -O0 and -O2, -gsplit-dwarf,
-gz=zlib, type units), then writes mutants of them (bit flips, random bytes,
"interesting" values over LEB128 and offset-looking bytes, corrupted section
headers, truncations; most of them aimed at the .debug_* sections) and runs
'memadvise layout' on each, in rotation whole dump / one type / -j /
--reorganize, under a timeout and a memory limit.

A failure is: death by a signal, an AddressSanitizer/UBSan/LeakSanitizer
report, an exit status other than 0, 1 or 2, a run past the timeout, memory
past the limit, exit 2 without an 'error:' line, or exit 0 with output that
does not parse (JSON for -j, strict UTF-8), a number past 2^48 (a wrapped
offset) or without the type asked for.  Exit 0 with no type at all is
counted ("empty"), not a failure: a mutated abbreviation table can make
well-formed DWARF that has no types.  Each failing input is saved under
OUT/failures/ with the command that replays it.  Mutant I of --seed S is the
same on every machine: '--seed S --only I' makes it again.

Exit status: 0 no failure, 1 failures (listed), 2 cannot run.
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import resource
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED_DIR = os.path.join(TOP, "tests", "fuzz", "layout")

# (name, driver for .c, driver for .cc, flags); a missing compiler skips its rows.
VARIANTS = [
    ("gcc-dw4-O0", "gcc", "g++", "-g -gdwarf-4 -O0"),
    ("gcc-dw4-O2", "gcc", "g++", "-g -gdwarf-4 -O2"),
    ("gcc-dw5-O0", "gcc", "g++", "-g -gdwarf-5 -O0"),
    ("gcc-dw5-O2", "gcc", "g++", "-g -gdwarf-5 -O2"),
    ("gcc-split", "gcc", "g++", "-g -gdwarf-5 -gsplit-dwarf -O0"),
    ("gcc-dw4-split", "gcc", "g++", "-g -gdwarf-4 -gsplit-dwarf -O2"),
    ("gcc-zlib", "gcc", "g++", "-g -gdwarf-5 -O0 -gz=zlib"),
    ("gcc-dw4-types", "gcc", "g++", "-g -gdwarf-4 -O0 -fdebug-types-section"),
    ("clang-dw5-O0", "clang", "clang++", "-g -gdwarf-5 -O0"),
    ("clang-dw5-O2", "clang", "clang++", "-g -gdwarf-5 -O2"),
    ("clang-dw4-O0", "clang", "clang++", "-g -gdwarf-4 -O0"),
    ("clang-split", "clang", "clang++", "-g -gdwarf-5 -gsplit-dwarf -O0"),
    ("clang-zlib", "clang", "clang++", "-g -gdwarf-4 -O2 -gz=zlib"),
    ("clang-dw5-types", "clang", "clang++", "-g -gdwarf-5 -O0 -fdebug-types-section"),
]
MODES = ["dump", "type", "json", "reorganize"]
DEBUG_SECTIONS = [".debug_info", ".debug_abbrev", ".debug_str", ".debug_line",
                  ".debug_str_offsets", ".debug_line_str", ".debug_rnglists",
                  ".debug_addr", ".debug_types", ".debug_ranges", ".debug_loclists"]
ABSURD = 1 << 48
SAN_RE = re.compile(r"ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: \w+Sanitizer|"
                    r"rss limit exceeded|allocator is out of memory|requested allocation size")


def sections(data):
    """{name: (file offset, size, header offset)} of an ELF64 little-endian file."""
    out = {}
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return out
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    if shentsize != 64 or shoff + shnum * 64 > len(data) or shstrndx >= shnum:
        return out
    hdr = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * 64) for i in range(shnum)]
    stroff, strsize = hdr[shstrndx][4], hdr[shstrndx][5]
    for i, h in enumerate(hdr):
        n = data[stroff + h[0]:stroff + strsize].split(b"\0", 1)[0].decode("latin-1")
        if h[1] != 8 and h[4] + h[5] <= len(data):  # not NOBITS
            out[n] = (h[4], h[5], shoff + i * 64)
    return out


# --- mutators: each changes data (a bytearray) in [lo, hi) -------------------

def m_flip(rng, d, lo, hi, secs):
    p = rng.randrange(lo, hi)
    d[p] ^= 1 << rng.randrange(8)


def m_byte(rng, d, lo, hi, secs):
    d[rng.randrange(lo, hi)] = rng.randrange(256)


def m_interesting8(rng, d, lo, hi, secs):
    d[rng.randrange(lo, hi)] = rng.choice([0, 1, 0x7f, 0x80, 0xff])


def m_interesting32(rng, d, lo, hi, secs):
    if hi - lo < 4:
        return m_byte(rng, d, lo, hi, secs)
    p = lo + (rng.randrange(0, hi - lo - 3) & ~3 if rng.random() < 0.7 else rng.randrange(0, hi - lo - 3))
    v = rng.choice([0, 0xffffffff, 0x7fffffff, 0x80000000, 1, 0xfffffff0, hi - lo, 0xffff])
    struct.pack_into("<I", d, p, v)


def m_leb(rng, d, lo, hi, secs):
    """Rewrites a LEB128-looking run (bytes with the high bit set)."""
    start = rng.randrange(lo, hi)
    p = next((i for i in range(start, min(hi, start + 64)) if d[i] & 0x80), start)
    end = p
    while end < hi and d[end] & 0x80:
        end += 1
    choice = rng.randrange(5)
    if choice == 0:      # the longest value the run can hold
        for i in range(p, end):
            d[i] = 0xff
        if end < hi:
            d[end] = 0x7f
    elif choice == 1:    # a run that never ends within the section
        for i in range(p, min(hi, p + rng.randrange(1, 24))):
            d[i] = 0x80 | (d[i] & 0x7f)
    elif choice == 2:    # zero
        d[p] = 0
    elif choice == 3:    # negative / huge one-byte values
        d[p] = rng.choice([0x7f, 0x40, 0x3f, 0x80])
    else:                # an overlong encoding over 10 bytes
        n = min(10, hi - p)
        for i in range(n):
            d[p + i] = 0x80 if i < n - 1 else 0x01


def m_block(rng, d, lo, hi, secs):
    """Copies a block of the region over another place in it."""
    n = rng.randrange(1, min(64, hi - lo) + 1)
    src = rng.randrange(lo, hi - n + 1)
    dst = rng.randrange(lo, hi - n + 1)
    d[dst:dst + n] = d[src:src + n]


def m_shdr(rng, d, lo, hi, secs):
    """Corrupts the size, offset or flags in a debug section's header."""
    names = [n for n in secs if n.startswith((".debug", ".zdebug"))]
    if not names:
        return m_byte(rng, d, lo, hi, secs)
    off, size, h = secs[rng.choice(names)]
    field = rng.choice([(0x18, "<Q"), (0x20, "<Q"), (0x08, "<Q")])
    val = rng.choice([0, 1, size - 1, size + 1, len(d), 1 << 31, (1 << 64) - 1,
                      rng.randrange(0, len(d) + 1), 0x800])
    if field[0] == 0x08:
        val = rng.choice([0x800, 0, 0x2, 0x30])  # SHF_COMPRESSED, none, ALLOC, MERGE|STRINGS
    struct.pack_into(field[1], d, h + field[0], val & ((1 << 64) - 1))


MUTATORS = [(m_flip, 4), (m_byte, 3), (m_interesting8, 2), (m_interesting32, 3),
            (m_leb, 3), (m_block, 1), (m_shdr, 1)]


def mutate(rng, data, secs):
    """Returns the mutated copy of data and a list of what was done."""
    d = bytearray(data)
    done = []
    targets = [n for n in DEBUG_SECTIONS if n in secs and secs[n][1] > 0]
    targets += [n for n in secs if n.startswith(".zdebug") and secs[n][1] > 0]
    nr = 1 + min(int(rng.expovariate(0.7)), 7)
    for _ in range(nr):
        if targets and rng.random() < 0.8:
            name = rng.choice(targets)
            lo, hi = secs[name][0], secs[name][0] + secs[name][1]
        else:
            name, lo, hi = "file", 0, len(d)
        fn = rng.choices([m for m, _ in MUTATORS], [w for _, w in MUTATORS])[0]
        fn(rng, d, lo, hi, secs)
        done.append("%s@%s" % (fn.__name__[2:], name))
    if rng.random() < 0.12:
        if targets and rng.random() < 0.7:
            off, size, _ = secs[rng.choice(targets)]
            cut = rng.randrange(off, off + size)
        else:
            cut = rng.randrange(0, len(d))
        del d[cut:]
        done.append("truncate@%d" % cut)
    return bytes(d), done


# --- seeds -------------------------------------------------------------------

def build_seeds(out, log):
    """Compiles every seed source with every variant; returns the seed list."""
    seeds = []
    for src in sorted(os.listdir(SEED_DIR)):
        if not src.startswith("seed.") or not src.endswith((".c", ".cc")):
            continue
        cxx = src.endswith(".cc")
        for name, cc, cxxc, flags in VARIANTS:
            drv = cxxc if cxx else cc
            if not shutil.which(drv):
                log("skip %s %s: %s is not installed" % (src, name, drv))
                continue
            d = os.path.join(out, "seeds", "%s-%s" % (src.replace(".", "_"), name))
            os.makedirs(d, exist_ok=True)
            cmd = [drv] + flags.split() + ["-o", "prog", os.path.join(SEED_DIR, src)]
            if "split" in name:
                # DW_AT_comp_dir "." makes libdw read the .dwo beside the
                # mutant (the mutated one), not the pristine one here.
                cmd.insert(1, "-fdebug-prefix-map=%s=." % d)
            r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
            if r.returncode:
                if "-gz" in flags:   # a toolchain without zlib sections
                    log("skip %s %s: %s" % (src, name, r.stderr.strip().splitlines()[-1:]))
                    continue
                raise SystemExit("error: cannot build seed %s %s: %s" % (src, name, r.stderr))
            files = ["prog"] + sorted(f for f in os.listdir(d) if f.endswith(".dwo"))
            if "split" in name and len(files) < 2:
                raise SystemExit("error: %s %s wrote no .dwo file" % (src, name))
            seeds.append({"name": "%s/%s" % (src, name), "dir": d, "files": files})
    return seeds


def seed_types(memadvise, seed):
    """The type names of a pristine seed, from 'layout -j'; checks that it loads."""
    path = os.path.join(seed["dir"], "prog")
    r = subprocess.run([memadvise, "layout", "-j", path], capture_output=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit("error: memadvise layout fails on the unmutated seed %s (exit %d): %s"
                         % (seed["name"], r.returncode, r.stderr.decode(errors="replace")[:2000]))
    doc = json.loads(r.stdout)
    names = [s.get("name") for s in doc.get("structs", []) if s.get("name")]
    own = [n for n in names if "fz" in n]
    if not own:  # every seed defines fz_* types: none read is a bug, not a seed
        raise SystemExit("error: memadvise layout lists none of the seed's types in %s"
                         % seed["name"])
    return own


# --- running one mutant ---------------------------------------------------------

class Ctx:
    pass


CTX = Ctx()


def args_for(mode, path, typ):
    if mode == "dump":
        return ["layout", path]
    if mode == "type":
        return ["layout", path, typ]
    if mode == "json":
        return ["layout", "-j", path]
    return ["layout", "--reorganize", path, typ]


def make_mutant(i):
    """Mutant i: (seed, mode, type, {file: bytes}, description), deterministic."""
    rng = random.Random("%d/%d" % (CTX.seed, i))
    seed = CTX.seeds[i % len(CTX.seeds)]
    mode = MODES[(i // len(CTX.seeds)) % len(MODES)]
    typ = rng.choice(seed["types"])
    target = rng.choice(seed["files"]) if len(seed["files"]) > 1 else "prog"
    files = {}
    for f in seed["files"]:
        files[f] = seed["data"][f]
    data, done = mutate(rng, files[target], seed["secs"][target])
    files[target] = data
    return seed, mode, typ, files, "%s: %s" % (target, " ".join(done))


def check_output(mode, typ, rc, out, err):
    """The failure kind of a finished run, or None."""
    if SAN_RE.search(err):
        return "sanitizer"
    if rc < 0:
        return "signal-%d" % -rc
    if rc not in (0, 1, 2):
        return "exit-%d" % rc
    if rc == 2:
        if not re.search(r"^error: ", err, re.M):
            return "no-error-line"
        if not re.search(r"^hint: ", err, re.M):
            return "no-hint-line"
        return None
    if rc == 1:
        return None
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        return "bad-utf8" if mode == "json" else None
    if mode == "json":
        try:
            json.loads(text)
        except ValueError:
            return "bad-json"
    if any(int(n) >= ABSURD for n in re.findall(r"(?<![\w.])\d{15,}(?![\w.])", text)):
        return "absurd-number"
    if mode in ("type", "reorganize") and typ.split("::")[-1].split("<")[0] not in text:
        return "type-missing"
    return None


def run_one(i):
    seed, mode, typ, files, desc = make_mutant(i)
    wd = os.path.join(CTX.out, "work", "w%d" % os.getpid())
    os.makedirs(wd, exist_ok=True)
    for f, data in files.items():
        with open(os.path.join(wd, f), "wb") as fh:
            fh.write(data)
    argv = [CTX.memadvise] + args_for(mode, "./prog", typ)
    t0 = time.monotonic()
    with open(os.path.join(wd, "out"), "w+b") as fo, open(os.path.join(wd, "err"), "w+b") as fe:
        p = subprocess.Popen(argv, cwd=wd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                             env=CTX.env, start_new_session=True, preexec_fn=CTX.limit)
        hung = []

        def kill():
            hung.append(1)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(CTX.timeout, kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        secs = time.monotonic() - t0
        fo.seek(0)
        out = fo.read()
        fe.seek(0)
        err = fe.read().decode("utf-8", errors="replace")
    rss_mb = ru.ru_maxrss / 1024
    if hung:
        kind = "hang"
    elif rss_mb > CTX.mem_mb:
        kind = "memory"
    else:
        kind = check_output(mode, typ, p.returncode, out, err)
    if kind:
        save(i, kind, seed, mode, typ, files, desc, argv, err)
    empty = p.returncode == 0 and not out.strip()
    return i, seed["name"], mode, p.returncode, kind, secs, rss_mb, empty


def save(i, kind, seed, mode, typ, files, desc, argv, err):
    d = os.path.join(CTX.out, "failures", "%06d-%s" % (i, kind))
    os.makedirs(d, exist_ok=True)
    for f, data in files.items():
        with open(os.path.join(d, f), "wb") as fh:
            fh.write(data)
        os.chmod(os.path.join(d, f), 0o755)
    with open(os.path.join(d, "stderr"), "w") as fh:
        fh.write(err[-20000:])
    env = " ".join("%s=%s" % (k, shlex.quote(CTX.env[k]))
                   for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS") if k in CTX.env)
    with open(os.path.join(d, "replay"), "w") as fh:
        fh.write("# %s; seed %s, mode %s, mutations %s\n" % (kind, seed["name"], mode, desc))
        fh.write("cd %s && %s %s\n" % (shlex.quote(d), env, shlex.join(argv)))
        fh.write("# or make the mutant again:\n# python3 %s --memadvise %s --seed %d --only %d --out DIR\n"
                 % (os.path.relpath(__file__, TOP), shlex.quote(CTX.memadvise), CTX.seed, i))


def set_limit():
    resource.setrlimit(resource.RLIMIT_AS, (CTX.mem_mb << 20, CTX.mem_mb << 20))


def init_worker():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memadvise", required=True, help="the binary to test (an ASan build finds most)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("-n", "--runs", type=int, default=10000, help="number of mutants (default 10000)")
    ap.add_argument("--first", type=int, default=0, help="index of the first mutant")
    ap.add_argument("--only", type=int, help="make and run mutant ONLY alone (replay)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per run (default 10)")
    ap.add_argument("--mem-mb", type=int, default=1024, help="memory limit per run (default 1024 MB)")
    ap.add_argument("--out", required=True, help="work directory; failures go to OUT/failures")
    ap.add_argument("--summary", help="write the counts as JSON here")
    a = ap.parse_args()

    if not os.access(a.memadvise, os.X_OK):
        print("error: %s is not an executable" % a.memadvise, file=sys.stderr)
        return 2
    CTX.memadvise = os.path.abspath(a.memadvise)
    CTX.out = os.path.abspath(a.out)
    CTX.seed, CTX.timeout, CTX.mem_mb = a.seed, a.timeout, a.mem_mb
    shutil.rmtree(os.path.join(CTX.out, "work"), ignore_errors=True)
    os.makedirs(CTX.out, exist_ok=True)
    with open(CTX.memadvise, "rb") as fh:
        asan = b"__asan_init" in fh.read()
    env = dict(os.environ, LC_ALL="C")
    if asan:
        # ASan reserves terabytes of address space, so RLIMIT_AS cannot bound
        # it: its own RSS limit does, and the peak RSS is checked afterwards.
        env["ASAN_OPTIONS"] = ("detect_leaks=1:abort_on_error=0:hard_rss_limit_mb=%d:"
                               "malloc_limit_mb=%d:allocator_may_return_null=0" % (a.mem_mb, a.mem_mb))
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        CTX.limit = None
    else:
        CTX.limit = set_limit
    CTX.env = env

    t0 = time.monotonic()
    logf = print if a.only is None else (lambda *x: None)
    seeds = build_seeds(CTX.out, logf)
    if not seeds:
        print("error: no seed could be built (no gcc or clang?)", file=sys.stderr)
        return 2
    for s in seeds:
        s["data"], s["secs"] = {}, {}
        for f in s["files"]:
            with open(os.path.join(s["dir"], f), "rb") as fh:
                s["data"][f] = fh.read()
            s["secs"][f] = sections(s["data"][f])
        s["types"] = seed_types(CTX.memadvise, s)
    CTX.seeds = seeds
    logf("%d seeds (%s), %.1f s to build; %s build, timeout %g s, memory %d MB, %d jobs"
         % (len(seeds), ", ".join("%s %d B" % (s["name"], len(s["data"]["prog"])) for s in seeds),
            time.monotonic() - t0, "sanitizer" if asan else "plain", a.timeout, a.mem_mb, a.jobs))

    idx = [a.only] if a.only is not None else range(a.first, a.first + a.runs)
    stats, fails, t1 = {}, [], time.monotonic()
    slowest = (0.0, None)
    with multiprocessing.Pool(a.jobs, initializer=init_worker) as pool:
        for n, (i, sname, mode, rc, kind, secs, rss, empty) in enumerate(
                pool.imap_unordered(run_one, idx, chunksize=4), 1):
            st = stats.setdefault(sname, {"runs": 0, "exit0": 0, "empty": 0, "exit1": 0, "exit2": 0,
                                          "failures": 0})
            st["runs"] += 1
            st["empty"] += empty
            if rc in (0, 1, 2):
                st["exit%d" % rc] += 1
            if kind:
                st["failures"] += 1
                fails.append((i, kind, sname, mode))
                print("FAIL mutant %d (%s, %s): %s -> %s" % (i, sname, mode, kind,
                      os.path.join(CTX.out, "failures", "%06d-%s" % (i, kind))), flush=True)
            slowest = max(slowest, (secs, i))
            if a.only is None and n % 1000 == 0:
                print("%d mutants, %d failures, %.0f s" % (n, len(fails), time.monotonic() - t1),
                      flush=True)
    elapsed = time.monotonic() - t1
    shutil.rmtree(os.path.join(CTX.out, "work"), ignore_errors=True)
    total = sum(s["runs"] for s in stats.values())
    kinds = {}
    for f in fails:
        kinds[f[1]] = kinds.get(f[1], 0) + 1
    if a.only is None:
        print("%-28s %6s %6s %6s %6s %6s %6s" % ("seed", "runs", "exit0", "empty", "exit1", "exit2",
                                                 "fail"))
        for name in sorted(stats):
            s = stats[name]
            print("%-28s %6d %6d %6d %6d %6d %6d" % (name, s["runs"], s["exit0"], s["empty"],
                                                     s["exit1"], s["exit2"], s["failures"]))
    print("layout fuzz: %d mutants (seed %d, from %d) in %.0f s, %d failures%s; slowest run %.2f s (mutant %s)"
          % (total, a.seed, idx[0], elapsed, len(fails),
             " (" + ", ".join("%s %d" % kv for kv in sorted(kinds.items())) + ")" if kinds else "",
             slowest[0], slowest[1]))
    if a.summary:
        with open(a.summary, "w") as fh:
            json.dump({"seed": a.seed, "first": idx[0], "mutants": total, "seconds": round(elapsed, 1),
                       "failures": [{"mutant": f[0], "kind": f[1], "seed": f[2], "mode": f[3]}
                                    for f in fails],
                       "per_seed": stats, "sanitizers": asan}, fh, indent=1)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
