#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Rule hot-cold-split fires on its calibration BAD workloads, pointing where the label
# says, and stays quiet on the GOOD twins (labels: examples/labels/*.yaml).
exec python3 "$MA_TOP/tests/lib/rule_check.py" hot-cold-split
