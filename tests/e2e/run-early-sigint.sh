#!/bin/sh
# SIGINT at any moment of memadvise's start, from its first instruction on
# (the dynamic loader's millisecond before it is out of anyone's reach), ends
# the run as a later one does: memadvise is not killed by it, the report is
# written and says interrupted when the program was still running.  In attach
# mode a second SIGINT after the first one does not kill it either (exit 0).
. "$MA_TOP/tests/lib.sh"
need_root
python3 - "$MA" "$MA_TMP" <<'PY' || fail "an early SIGINT was not handled"
import json, os, signal, subprocess, sys, time

ma, tmp = sys.argv[1], sys.argv[2]
bad = 0

def started(pid):
    """memadvise runs its own code: SIGINT (bit 1 of SigBlk) is blocked."""
    for _ in range(20000):
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("SigBlk:") and int(line.split()[1], 16) & 2:
                        return True
        except OSError:
            return False
    return False

for rnd in range(2):
    for ms in (0, 5, 10, 20, 40):
        out = os.path.join(tmp, "r%d-%d.json" % (rnd, ms))
        p = subprocess.Popen([ma, "run", "-j", "-o", out, "--", "sleep", "2"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not started(p.pid):
            print("memadvise never blocked SIGINT")
            bad += 1
        time.sleep(ms / 1000)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=15)[1].decode(errors="replace")
        took = time.monotonic() - t0
        if p.returncode < 0:
            print("SIGINT after %d ms killed memadvise (signal %d)" % (ms, -p.returncode))
            bad += 1
            continue
        try:
            d = json.load(open(out))
        except (OSError, ValueError) as e:
            print("SIGINT after %d ms: no parsable report (exit %d): %s %s"
                  % (ms, p.returncode, e, err))
            bad += 1
            continue
        # sleep 2 ran on past the signal unless memadvise ended it
        if took < 1.5 and not d["target"]["interrupted"]:
            print("SIGINT after %d ms: the report does not say interrupted" % ms)
            bad += 1

# attach mode: two SIGINTs, the second after the report is on its way
tgt = subprocess.Popen(["sleep", "30"])
out = os.path.join(tmp, "attach.json")
p = subprocess.Popen([ma, "run", "-j", "-o", out, "-p", str(tgt.pid)],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.3)
p.send_signal(signal.SIGINT)
for _ in range(50):
    if p.poll() is not None:
        break
    time.sleep(0.005)
    p.send_signal(signal.SIGINT)
p.wait(timeout=15)
tgt.kill()
tgt.wait()
if p.returncode != 0:
    print("attach: a second SIGINT gave exit %d" % p.returncode)
    bad += 1
elif not json.load(open(out))["target"]["interrupted"]:
    print("attach: the report does not say interrupted")
    bad += 1
sys.exit(1 if bad else 0)
PY
pass "early and repeated SIGINTs end the run cleanly"
