#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Test helper of tests/e2e/stress-short.sh: takes an fd of the BPF program
named NAME that process PID loads and holds it for SECONDS, as a process
that inherited memadvise's fds would.  Usage: holder.py PID NAME SECONDS"""
import ctypes
import json
import os
import re
import struct
import subprocess
import sys
import time

BPF_PROG_GET_FD_BY_ID = 13
NR_BPF = 321  # x86-64


def prog_ids(pid):
    ids = set()
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return ids
    for fd in fds:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) != "anon_inode:bpf-prog":
                continue
            m = re.search(r"^prog_id:\s*(\d+)", open("/proc/%d/fdinfo/%s" % (pid, fd)).read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(int(m.group(1)))
    return ids


pid, name, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True)
end = time.monotonic() + 30
while time.monotonic() < end:
    for i in sorted(prog_ids(pid)):
        out = subprocess.run(["bpftool", "prog", "show", "id", str(i), "-j"], capture_output=True).stdout
        try:
            if json.loads(out or b"{}").get("name") != name:
                continue
        except ValueError:
            continue
        attr = ctypes.create_string_buffer(struct.pack("III", i, 0, 0), 16)
        fd = libc.syscall(ctypes.c_long(NR_BPF), ctypes.c_long(BPF_PROG_GET_FD_BY_ID), attr,
                          ctypes.c_long(12))
        if fd >= 0:
            time.sleep(seconds)
            sys.exit(0)
    time.sleep(0.01)
sys.exit(1)
