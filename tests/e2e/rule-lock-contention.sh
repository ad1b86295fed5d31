#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Rule lock-contention fires on its calibration BAD workload, naming the mutex
# where the label says, and stays quiet on the GOOD twin (examples/labels).
exec python3 "$MA_TOP/tests/lib/rule_check.py" lock-contention
