// SPDX-License-Identifier: GPL-2.0-only
/*
 * segment_index_span: the in-memory index of a time-series store.  Every
 * flushed segment has a 48-byte descriptor (start time, file, offset,
 * size, sample count, ...) in one array, and the descriptors form a binary
 * search tree by start time (children named by index, built by inserting
 * the segments as they were flushed).  A query descends the tree to the
 * segment holding its timestamp: each step reads the node's key and, from
 * the comparison, which of the two child indices to follow, so every load
 * waits for the one before it.  The 65536 descriptors (3 MiB) stay in L3.
 * With 48-byte descriptors a node starts at offset 0, 48, 32 or 16 of a
 * cache line.
 * BAD: the key is the first member and the child indices the last, so for
 * nodes starting at offset 32 or 48 the two lie on different lines: half
 * the steps of a descent wait for two lines, one after the other.
 * GOOD: the same members with key and children first: 16 bytes that never
 * cross a line, one line per step.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NSEG		(64 * 1024)
#define QUERIES		(10 * 1000 * 1000)
#define NIL		UINT32_MAX

#ifdef BAD
struct segment {
	uint64_t start_ns;	/* search key */
	uint32_t file_no;
	uint32_t nsamples;
	uint64_t file_off;
	uint64_t min_value;
	uint64_t max_value;
	uint32_t child[2];	/* earlier, later segments */
};
#else
struct segment {
	uint64_t start_ns;	/* search key */
	uint32_t child[2];	/* earlier, later segments */
	uint32_t file_no;
	uint32_t nsamples;
	uint64_t file_off;
	uint64_t min_value;
	uint64_t max_value;
};
#endif

_Static_assert(sizeof(struct segment) == 48, "48-byte descriptors");

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void index_insert(struct segment *seg, uint32_t n)
{
	uint32_t *link = NULL, at = 0;

	seg[n].child[0] = seg[n].child[1] = NIL;
	if (n == 0)
		return;
	while (at != NIL) {
		link = &seg[at].child[seg[n].start_ns >= seg[at].start_ns];
		at = *link;
	}
	*link = n;
}

/* The segment with the largest start time <= t (the root when none is). */
static __attribute__((noinline)) uint32_t index_find(const struct segment *seg, uint64_t t)
{
	uint32_t at = 0, found = 0;

	while (at != NIL) {
		int later = seg[at].start_ns <= t;

		found = later ? at : found;
		at = seg[at].child[later];
	}
	return found;
}

int main(void)
{
	struct segment *seg = aligned_alloc(64, NSEG * sizeof(*seg));
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0, span = 1ull << 40;

	if (!seg)
		return 1;
	for (uint32_t i = 0; i < NSEG; i++) {	/* flushed out of time order */
		seg[i].start_ns = rnd(&x) % span;
		seg[i].file_no = i / 1024;
		seg[i].nsamples = 4096 + (uint32_t)(rnd(&x) % 4096);
		seg[i].file_off = (uint64_t)(i % 1024) << 20;
		seg[i].min_value = rnd(&x) % 1000;
		seg[i].max_value = seg[i].min_value + rnd(&x) % 1000;
		index_insert(seg, i);
	}
	for (uint32_t q = 0; q < QUERIES; q++) {
		uint32_t s = index_find(seg, rnd(&x) % span);

		sum += seg[s].file_off + seg[s].nsamples;
	}
	printf("%llu\n", (unsigned long long)sum);
	free(seg);
	return 0;
}
