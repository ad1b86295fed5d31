#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Fault injection for memadvise: the failing targets and signals at random
# moments of tests/stress/stress.py (read its header), 50 runs per kind by
# default.  Run as root, niced, on an otherwise idle build:
#   nice sh tests/stress/stress.sh [-n RUNS] [--seed SEED] [-k KIND] [-j JOBS]
exec python3 "$(dirname "$0")/stress.py" "$@"
