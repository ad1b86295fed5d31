// SPDX-License-Identifier: GPL-2.0-only
/*
 * spsc_ring_indices: the hand-off between the capture thread and the
 * analysis thread of a network monitor.  The capture thread turns each
 * received packet into a 16-byte event (flow hash, length, timestamp) and
 * pushes it into a single-producer single-consumer ring of 4096 slots; the
 * analysis thread pops events and updates a small per-flow table.
 * Each side keeps a private copy of the other side's index and rereads the
 * shared index only when its copy says the ring is full (producer) or
 * empty (consumer), so in the steady state neither side reads what the
 * other writes.
 * BAD: the four indices share one cache line: every push stores head and
 * every pop stores tail into the line the other thread also uses for its
 * private copy, so the line keeps moving between the cores.
 * GOOD: the producer's fields and the consumer's fields each start a cache
 * line of their own (_Alignas(64)).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RING	4096
#define EVENTS	(100u * 1000 * 1000)
#define FLOWS	1024
#define BATCH	256

#ifdef BAD
#define SIDE
#else
#define SIDE	_Alignas(64)
#endif

struct event {
	uint32_t flow;
	uint32_t len;
	uint64_t ts;
};

struct ring {
	SIDE uint32_t head;	/* producer: next slot to fill */
	uint32_t tail_seen;	/* producer: its copy of tail */
	SIDE uint32_t tail;	/* consumer: next slot to drain */
	uint32_t head_seen;	/* consumer: its copy of head */
	_Alignas(64) struct event slot[RING];
};

static struct ring ring;
static uint64_t flow_bytes[FLOWS];

static void backoff(unsigned int *spins)
{
	if (++*spins % 64)
		__builtin_ia32_pause();
	else
		sched_yield();
}

/* When full, waits for a batch of free slots, not for one. */
static __attribute__((noinline)) void ring_push(struct ring *r, const struct event *ev)
{
	uint32_t h = r->head;
	unsigned int spins = 0;

	while (h - r->tail_seen == RING) {
		r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		if (h - r->tail_seen > RING - BATCH)
			r->tail_seen = h - RING;
		if (h - r->tail_seen == RING)
			backoff(&spins);
	}
	r->slot[h % RING] = *ev;
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
}

/* When empty, waits for a batch of events (or the last ones), not for one. */
static __attribute__((noinline)) void ring_pop(struct ring *r, struct event *ev, uint32_t left)
{
	uint32_t t = r->tail;
	uint32_t want = left < BATCH ? left : BATCH;
	unsigned int spins = 0;

	while (t == r->head_seen) {
		r->head_seen = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		if (r->head_seen - t < want)
			r->head_seen = t;
		if (t == r->head_seen)
			backoff(&spins);
	}
	*ev = r->slot[t % RING];
	__atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
}

static void *capture(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)arg;
	for (uint32_t i = 0; i < EVENTS; i++) {
		struct event ev;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ev.flow = (uint32_t)(x % FLOWS);
		ev.len = 64 + (uint32_t)(x >> 40) % 1400;
		ev.ts = i;
		ring_push(&ring, &ev);
	}
	return NULL;
}

static void *analyse(void *arg)
{
	uint64_t *sum = arg;

	for (uint32_t i = 0; i < EVENTS; i++) {
		struct event ev;

		ring_pop(&ring, &ev, EVENTS - i);
		flow_bytes[ev.flow] += ev.len;
		*sum += ev.ts ^ ev.flow;
	}
	return NULL;
}

int main(void)
{
	pthread_t prod, cons;
	uint64_t sum = 0;

	if (pthread_create(&cons, NULL, analyse, &sum) ||
	    pthread_create(&prod, NULL, capture, NULL))
		return 1;
	pthread_join(prod, NULL);
	pthread_join(cons, NULL);
	for (int f = 0; f < FLOWS; f++)
		sum = sum * 31 + flow_bytes[f];
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
