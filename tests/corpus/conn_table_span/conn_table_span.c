// SPDX-License-Identifier: GPL-2.0-only
/*
 * The connection table of an event-driven server: 64 K connections of 128
 * bytes (8 MiB), aligned to cache lines.  For every event the loop looks the
 * connection up, checks that it is open (fd) and whether it has been idle
 * too long (last_seen), and stamps it.  With -DBAD last_seen sits after the
 * peer name and the byte counters, on the second line of the connection, so
 * every event touches two lines; otherwise it sits beside fd and an event
 * touches one.
 *
 * Usage: conn_table_span [EVENTS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NCONN (64 * 1024)
#define IDLE_LIMIT 5000000

struct conn {
	int32_t fd;
	uint32_t flags;
#ifndef BAD
	uint64_t last_seen;
#endif
	char peer[48];
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint64_t opened_at;
#ifdef BAD
	uint64_t last_seen;
#endif
	uint32_t requests;
	uint32_t errors;
	char user_agent[32];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct conn) == 128, "two lines per connection");

static struct conn *table;

static uint64_t serve_events(long events)
{
	uint64_t rng = 88172645463325252ull, expired = 0;

	for (long now = 1; now <= events; now++) {
		struct conn *c;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		c = &table[rng % NCONN];
		if (c->fd < 0)
			continue;
		if ((uint64_t)now - c->last_seen > IDLE_LIMIT)
			expired++;
		c->last_seen = (uint64_t)now;
	}
	return expired;
}

int main(int argc, char **argv)
{
	long events = argc > 1 ? atol(argv[1]) : 250000000;
	uint64_t expired, sum = 0;

	table = aligned_alloc(64, NCONN * sizeof(*table));
	if (!table)
		return 1;
	for (int i = 0; i < NCONN; i++) {
		table[i] = (struct conn){ .fd = (i % 97) ? i + 3 : -1, .opened_at = (uint64_t)i };
		snprintf(table[i].peer, sizeof(table[i].peer), "10.%d.%d.%d:%d", i >> 16 & 255,
			 i >> 8 & 255, i & 255, 1024 + i % 50000);
	}
	expired = serve_events(events);
	for (int i = 0; i < NCONN; i++)
		sum += table[i].last_seen;
	printf("checksum %llu\n", (unsigned long long)(expired + sum));
	free(table);
	return 0;
}
