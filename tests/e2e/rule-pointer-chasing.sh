#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Rule pointer-chasing fires on its calibration BAD workload (a list walked in
# a random order over 64 MiB), pointing at the walk, and stays quiet when the
# same list is linked in memory order (labels: examples/labels/*.yaml).
exec python3 "$MA_TOP/tests/lib/rule_check.py" pointer-chasing
