/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Exact address streams (tier uprobe-stream): uprobes on the hot memory
 * instructions that data-address sampling names, attached for short bursts
 * inside a budget of the run's time (see streams.c).
 */
#ifndef __MA_STREAMS_H
#define __MA_STREAMS_H

#include "collect/collector.h"

extern const struct collector collector_streams;

#endif
