#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A pipelined set/get load for memcached's text protocol, for
docs/real-programs.md: THREADS connections, each sending batches of BATCH
sets and gets over KEYS keys for SECONDS.

    scripts/memcached-load.py [--port 11211] [--threads 4] [--seconds 8]
"""
import argparse
import random
import socket
import threading
import time


def worker(port, keys, batch, end, out, idx):
    s = socket.create_connection(("127.0.0.1", port))
    rnd = random.Random(idx)
    value = b"x" * 100
    done = 0
    while time.monotonic() < end:
        req = []
        for _ in range(batch):
            k = b"key:%d" % rnd.randrange(keys)
            if rnd.random() < 0.2:
                req.append(b"set %s 0 0 %d noreply\r\n%s\r\n" % (k, len(value), value))
            else:
                req.append(b"get %s\r\n" % k)
        req.append(b"mn\r\n")  # meta no-op: answers MN once all above are done
        s.sendall(b"".join(req))
        buf = b""
        while not buf.endswith(b"MN\r\n"):
            chunk = s.recv(1 << 16)
            if not chunk:
                raise SystemExit("memcached closed the connection")
            buf += chunk
        done += batch
    s.close()
    out[idx] = done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=11211)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--keys", type=int, default=50000)
    ap.add_argument("--batch", type=int, default=100)
    a = ap.parse_args()
    end = time.monotonic() + a.seconds
    out = [0] * a.threads
    ts = [threading.Thread(target=worker, args=(a.port, a.keys, a.batch, end, out, i))
          for i in range(a.threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("%d requests in %.1f s: %.0f/s" % (sum(out), a.seconds, sum(out) / a.seconds))


if __name__ == "__main__":
    main()
