/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A process's mappings as perf's PERF_RECORD_MMAP2 records told them
 * (attr.mmap + attr.mmap2, and attr.mmap_data for data), for a process that
 * is gone by the time its samples are read: a short-lived child of the
 * target, whose /proc/PID/maps no longer exists.  They give its code bytes
 * (read from the mapped file), a memory map a symboliser can use, and the
 * regions its data addresses and faults were in.  The kernel writes no
 * record when the stack grows, nor when a mapping goes (munmap): a range
 * keeps the last mapping recorded there.
 */
#ifndef __MA_MAPRECS_H
#define __MA_MAPRECS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "symbols/procmaps.h"

struct maprec {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;	/* PROT_*, MAP_* */
	char *path;			/* "//anon" for anonymous memory, "[heap]" */
};

struct maprecs {
	struct maprec *v;	/* sorted by start, not overlapping */
	size_t n, cap;
	bool changed;		/* since maprecs__procmaps() */
};

/*
 * Parses a PERF_RECORD_MMAP2 record: its pid and mapping (r->path points
 * into the record).  False for another record or a malformed one.
 */
bool maprec__parse(const struct perf_event_header *h, pid_t *pid, struct maprec *r);
/*
 * Adds mapping R as the kernel made it: those it overlaps leave.  For an
 * ELF image's executable segment, the read-only mapping of its first pages
 * (which the records do not show: it is not executable) is added too, from
 * the file's program headers: a symboliser takes the image's base from it.
 */
void maprecs__add(struct maprecs *s, const struct maprec *r, size_t page_size);
/* A forked child's start: its parent's mappings. */
void maprecs__copy(struct maprecs *dst, const struct maprecs *src);
/* The mapping holding ADDR, or NULL. */
const struct maprec *maprecs__find(const struct maprecs *s, uint64_t addr);
/*
 * The page at ADDR (page aligned) read from the file it was mapped from,
 * PAGE_SIZE bytes into BUF (past the file's end: zeros, as in memory).
 * False when unmapped, anonymous, or the file changed (another inode).
 */
bool maprecs__read_page(const struct maprecs *s, uint64_t addr, size_t page_size, uint8_t *buf);
/* The mappings as a memory-map snapshot (procmaps__parse); NULL when none. */
struct procmaps *maprecs__procmaps(struct maprecs *s, pid_t pid);
void maprecs__clear(struct maprecs *s);

#endif
