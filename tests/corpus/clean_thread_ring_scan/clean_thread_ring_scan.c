// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_thread_ring_scan: the receive side of a two-queue packet engine.
 * Each worker thread owns one RX queue: a ring of 224 packet descriptors
 * of 128 bytes (a 28 KiB block the thread allocates itself).  In its poll
 * loop a worker takes the completions the device posted since the last
 * poll (emulated here: the worker writes them into the ring) and then
 * sweeps the whole ring, reading three header fields of every descriptor
 * (status flags, packet length, receive timestamp) to account occupancy,
 * pending bytes, errors and descriptors that waited past the timeout.
 * The counts go to the worker's own statistics record, aligned to a
 * cache line of its own.
 * A clean control: the 128-byte stride walks a ring that stays in the
 * worker's L1d/L2, and no line is written by both threads.
 *
 * Usage: clean_thread_ring_scan [POLLS_PER_THREAD]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS	2
#define RING_SIZE	224
#define RING_KEEP	168		/* the stack refills the oldest beyond this many */
#define STALE_NS	20000		/* a descriptor older than this counts as stale */

#define DESC_DONE	0x0001
#define DESC_EOP	0x0002
#define DESC_ERR	0x0004
#define DESC_VLAN	0x0008

struct rx_desc {
	uint64_t buf_addr;
	uint32_t buf_len;
	uint16_t pkt_len;
	uint16_t flags;
	uint64_t rx_ts;
	uint32_t rss_hash;
	uint16_t vlan_tci;
	uint8_t l3_off, l4_off;
	uint8_t hdr[96];		/* header split: first bytes of the frame */
};

struct rx_stats {
	_Alignas(64) uint64_t polls;
	uint64_t posted;
	uint64_t dropped;		/* completions lost to a full ring */
	uint64_t done;			/* summed over sweeps: ring occupancy */
	uint64_t pending_bytes;
	uint64_t errors;
	uint64_t stale;
	uint64_t size_class[8];
};

static struct rx_stats stats[NWORKERS];

struct worker {
	int id;
	long polls;
};

static inline uint32_t xorshift(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* The device side: completes the descriptor at *tail and advances it. */
static void post(struct rx_desc *ring, unsigned *tail, uint64_t now, uint32_t *rng)
{
	struct rx_desc *d = &ring[*tail];
	uint32_t r = xorshift(rng);

	d->pkt_len = (uint16_t)(64 + (r & 1023) + ((r >> 10 & 7) == 0 ? 400 : 0));
	d->flags = DESC_DONE | DESC_EOP | ((r >> 13 & 255) == 0 ? DESC_ERR : 0) |
		   ((r >> 21 & 3) == 0 ? DESC_VLAN : 0);
	d->rx_ts = now - (r >> 24);
	d->rss_hash = r * 2654435761u;
	*tail = (*tail + 1) % RING_SIZE;
}

/* The worker side: one sweep over the whole ring. */
static __attribute__((noinline)) void sweep(const struct rx_desc *ring, struct rx_stats *st,
					    uint64_t now)
{
	uint64_t done = 0, bytes = 0, errors = 0, stale = 0;

	for (int i = 0; i < RING_SIZE; i++) {
		const struct rx_desc *d = &ring[i];
		uint16_t f = d->flags;

		if (!(f & DESC_DONE))
			continue;
		done++;
		bytes += d->pkt_len;
		errors += (f & DESC_ERR) != 0;
		stale += now - d->rx_ts > STALE_NS;
		st->size_class[d->pkt_len >> 8 & 7]++;
	}
	st->done += done;
	st->pending_bytes += bytes;
	st->errors += errors;
	st->stale += stale;
	st->polls++;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct rx_stats *st = &stats[w->id];
	struct rx_desc *ring = aligned_alloc(64, RING_SIZE * sizeof(*ring));
	uint32_t rng = 0x2545f491u + (uint32_t)w->id * 0x9e3779b9u;
	uint64_t now = 1000000;
	unsigned head = 0, tail = 0, used = 0;

	if (!ring)
		return NULL;
	memset(ring, 0, RING_SIZE * sizeof(*ring));
	for (int i = 0; i < RING_SIZE; i++) {
		ring[i].buf_addr = 0x100000000ull + (uint64_t)(w->id * RING_SIZE + i) * 2048;
		ring[i].buf_len = 2048;
	}
	for (long p = 0; p < w->polls; p++) {
		now += 150 + (p & 63);
		for (int k = (int)(xorshift(&rng) & 3); k > 0; k--) {
			if (used == RING_SIZE) {
				st->dropped++;
				continue;
			}
			post(ring, &tail, now, &rng);
			used++;
			st->posted++;
		}
		sweep(ring, st, now);
		while (used > RING_KEEP) {	/* hand the oldest buffers back to the device */
			ring[head].flags = 0;
			ring[head].pkt_len = 0;
			head = (head + 1) % RING_SIZE;
			used--;
		}
	}
	free(ring);
	return NULL;
}

int main(int argc, char **argv)
{
	long polls = argc > 1 ? atol(argv[1]) : 3000000;
	pthread_t tid[NWORKERS];
	struct worker w[NWORKERS];

	_Static_assert(sizeof(struct rx_desc) == 128, "descriptor size");
	for (int i = 0; i < NWORKERS; i++) {
		w[i] = (struct worker){ i, polls };
		if (pthread_create(&tid[i], NULL, worker_main, &w[i]))
			return 1;
	}
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < NWORKERS; i++) {
		const struct rx_stats *s = &stats[i];

		printf("queue %d: polls %llu posted %llu dropped %llu done %llu bytes %llu err %llu"
		       " stale %llu large %llu\n", i, (unsigned long long)s->polls,
		       (unsigned long long)s->posted, (unsigned long long)s->dropped,
		       (unsigned long long)s->done,
		       (unsigned long long)s->pending_bytes, (unsigned long long)s->errors,
		       (unsigned long long)s->stale, (unsigned long long)s->size_class[5]);
	}
	return 0;
}
