// SPDX-License-Identifier: GPL-2.0-only
/*
 * A chat server's session table: 24576 sessions, each a 64-byte record
 * (user id, last-seen time, message and byte counters), reached through an
 * array of pointers by session number.  Messages arrive for sessions in no
 * particular order, and each updates its session's record.
 *
 * With -DBAD every session is allocated with its own mmap (a page each, as
 * an allocator that maps large or "isolated" objects separately does), so
 * the 24576 records sit on 24576 pages and each update needs a TLB entry of
 * its own, far more than the TLB holds.  Otherwise the records come from
 * one array: 1.5 MiB on 384 pages, inside the TLB's reach.  Both touch the
 * same number of cache lines.
 *
 * Usage: session_page_objects [MESSAGES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NSESSIONS 24576

struct session {
	uint64_t user;
	uint64_t last_seen;
	uint64_t messages;
	uint64_t bytes;
	char nick[32];
};

static struct session **table;

static struct session *session_new(uint32_t i)
{
#ifdef BAD
	struct session *s = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (s == MAP_FAILED)
		return NULL;
#else
	static struct session *pool;

	if (!pool && !(pool = calloc(NSESSIONS, sizeof(*pool))))
		return NULL;
	struct session *s = &pool[i];
#endif
	s->user = 1000000 + i;
	snprintf(s->nick, sizeof(s->nick), "user%u", i);
	return s;
}

int main(int argc, char **argv)
{
	long messages = argc > 1 ? atol(argv[1]) : 200000000;
	uint64_t x = 0x9e3779b97f4a7c15ULL, sum = 0;

	table = calloc(NSESSIONS, sizeof(*table));
	if (!table)
		return 1;
	for (uint32_t i = 0; i < NSESSIONS; i++)
		if (!(table[i] = session_new(i)))
			return 1;
	for (long m = 0; m < messages; m++) {
		struct session *s;

		/* the next message's session: xorshift, uniform over the table */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s = table[x % NSESSIONS];
		s->last_seen = (uint64_t)m;
		s->messages++;
		s->bytes += 40 + (x >> 58);
	}
	for (uint32_t i = 0; i < NSESSIONS; i++)
		sum += table[i]->messages * 3 + table[i]->bytes + table[i]->user;
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
