// SPDX-License-Identifier: GPL-2.0-only
/*
 * ipfix_packed_flows: the aggregation stage of a flow collector.  Routers
 * export flow records in batches; the collector keeps the last 6144
 * records of its busiest exporter in a buffer (about 264 KiB, in L2) and
 * recomputes the window's totals (octets, packets, flow time, elephant
 * flows) after every batch of 64 records.
 * BAD parses the records in place in their wire layout, a packed 44-byte
 * struct: the 8-byte counters and timestamps sit at odd offsets (3, 11,
 * 27, 35), none is 8-byte aligned, and about one load in eight straddles a
 * 64-byte line (and now and then a 4 KiB page), so it needs two cache
 * accesses.
 * GOOD keeps the same fields in a naturally aligned struct (48 bytes, the
 * 8-byte members first), as the collector would store them when a batch
 * arrives: no load crosses a line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOW	6144
#define BATCHES	500000
#define PER_BATCH 64
#define ELEPHANT 900000

#ifdef BAD
struct __attribute__((packed)) flow_rec {
	uint8_t version;
	uint16_t length;
	uint64_t octets;
	uint64_t packets;
	uint32_t src_addr;
	uint32_t dst_addr;
	uint64_t first_ms;
	uint64_t last_ms;
	uint8_t proto;
};
_Static_assert(sizeof(struct flow_rec) == 44, "wire layout");
#else
struct flow_rec {
	uint64_t octets;
	uint64_t packets;
	uint64_t first_ms;
	uint64_t last_ms;
	uint32_t src_addr;
	uint32_t dst_addr;
	uint16_t length;
	uint8_t version;
	uint8_t proto;
};
_Static_assert(sizeof(struct flow_rec) == 48, "aligned layout");
#endif

struct window_stats {
	uint64_t octets;
	uint64_t packets;
	uint64_t duration_ms;
	uint64_t elephants;	/* flows above ELEPHANT octets */
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void flow_fill(struct flow_rec *f, uint64_t *x, uint64_t now)
{
	f->version = 10;
	f->length = sizeof(*f);
	f->octets = 64 + rnd(x) % 1000000;
	f->packets = 1 + rnd(x) % 1000;
	f->src_addr = (uint32_t)rnd(x);
	f->dst_addr = (uint32_t)rnd(x);
	f->first_ms = now - rnd(x) % 60000;
	f->last_ms = now;
	f->proto = (uint8_t)(rnd(x) % 4 ? 6 : 17);
}

/* The window's totals. */
static __attribute__((noinline)) void window_aggregate(const struct flow_rec *w,
						       struct window_stats *st)
{
	uint64_t octets = 0, packets = 0, duration = 0, elephants = 0;

	for (int i = 0; i < WINDOW; i++) {
		const struct flow_rec *f = &w[i];

		octets += f->octets;
		packets += f->packets;
		duration += f->last_ms - f->first_ms;
		elephants += f->octets > ELEPHANT;
	}
	st->octets = octets;
	st->packets = packets;
	st->duration_ms = duration;
	st->elephants = elephants;
}

int main(void)
{
	struct flow_rec *w = aligned_alloc(64, WINDOW * sizeof(*w));
	struct window_stats st;
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0, now = 1700000000000ull;

	if (!w)
		return 1;
	for (int i = 0; i < WINDOW; i++)
		flow_fill(&w[i], &x, now);
	for (int b = 0; b < BATCHES; b++) {
		now += 1000;
		for (int i = 0; i < PER_BATCH; i++)	/* the batch replaces the oldest */
			flow_fill(&w[(b * PER_BATCH + i) % WINDOW], &x, now);
		window_aggregate(w, &st);
		sum += st.octets + st.packets + st.duration_ms + st.elephants;
	}
	printf("%llu\n", (unsigned long long)sum);
	free(w);
	return 0;
}
