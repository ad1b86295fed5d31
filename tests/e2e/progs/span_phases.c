// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two phases over one table of 96-byte records, one loop each, both in
 * main(): the lookup phase reads each probed record's key (its first line),
 * the ageing phase each record's expiry (its second line).  No loop uses
 * both: moving expiry next to key would save no line fetch.  With -DTOGETHER
 * one loop reads both for each probed record, which does span two lines.
 *
 * Usage: span_phases [ROUNDS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct record {
	uint64_t key;
	uint64_t owner;
	char name[56];
	uint64_t expiry;	/* bytes 72-79: the second line */
	uint32_t hits;
	uint32_t flags;
};

#define NREC	(1u << 19)	/* 48 MiB of records */

static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 6;
	struct record *t = aligned_alloc(64, NREC * sizeof(*t));
	uint64_t x = 0x9e3779b97f4a7c15ull, found = 0, aged = 0;

	if (!t)
		return 1;
	for (uint32_t i = 0; i < NREC; i++) {
		t[i].key = i * 2654435761u;
		t[i].owner = i;
		t[i].name[0] = 0;
		t[i].expiry = i % 1000;
		t[i].hits = 0;
		t[i].flags = 0;
	}
	for (long r = 0; r < rounds; r++) {
#ifdef TOGETHER
		for (uint32_t i = 0; i < 2 * NREC; i++) {
			const struct record *p = &t[next_rand(&x) % NREC];

			found += (p->key & 7) == 3 && p->expiry > (uint64_t)r;
		}
#else
		for (uint32_t i = 0; i < NREC; i++)
			found += (t[next_rand(&x) % NREC].key & 7) == 3;
		for (uint32_t i = 0; i < NREC; i++)
			aged += t[next_rand(&x) % NREC].expiry > (uint64_t)r;
#endif
	}
	printf("%lu %lu\n", (unsigned long)found, (unsigned long)aged);
	free(t);
	return 0;
}
