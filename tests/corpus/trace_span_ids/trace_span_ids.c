// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_span_ids: the span recorder of an in-process tracing library.
 * Two request threads run instrumented handlers; every instrumented call
 * opens a span, which needs a process-unique 64-bit span id, and closes it
 * into the thread's own ring of span records (later shipped to the
 * collector).  The ids come from one global allocator, span_ids.next.
 * BAD: every span takes its id with an atomic fetch-and-add on
 * span_ids.next, so both threads do a locked read-modify-write on the same
 * line for every span.
 * GOOD: each thread reserves a block of SPAN_BLOCK ids with one
 * fetch-and-add and hands them out locally (ids stay unique, the set of
 * ids is the same, only which thread gets which id differs).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS	2
#define SPANS		(64u * 1024 * 1024)	/* per thread, a multiple of SPAN_BLOCK */
#define SPAN_BLOCK	1024
#define RING		4096
#define NAMES		64

struct span {
	uint64_t id;
	uint64_t parent;
	uint32_t name_hash;	/* for the collector's per-name aggregation */
	uint32_t start;
	uint32_t duration;
	uint16_t name;
	uint16_t flags;
};

struct tracer {
	_Alignas(64) struct span *ring;	/* one line per thread */
	uint64_t head;
	uint64_t id_next;	/* GOOD: the thread's reserved block */
	uint64_t id_end;
	uint64_t id_sum;
	uint64_t id_xor;
	uint64_t payload;
	uint64_t seed;
};

/* The allocator fills a line of its own: nothing else lives next to it. */
struct span_id_allocator {
	_Alignas(64) uint64_t next;
};

static struct span_id_allocator span_ids = { 1 };
static const char *const span_names[8] = {
	"http.server.request", "db.query.select", "db.query.update", "cache.get",
	"cache.set", "http.client.request", "template.render", "auth.check_session",
};
static const uint16_t name_cost[NAMES] = {
	3, 9, 1, 4, 12, 7, 2, 5, 8, 6, 11, 3, 2, 9, 4, 1,
	5, 7, 13, 2, 6, 3, 8, 4, 10, 1, 2, 7, 5, 9, 3, 6,
	4, 8, 2, 11, 1, 6, 3, 5, 7, 2, 9, 4, 12, 3, 1, 8,
	6, 5, 2, 10, 7, 3, 4, 9, 1, 8, 5, 2, 6, 11, 3, 7,
};

static __attribute__((noinline)) uint64_t span_id_alloc(struct tracer *t)
{
#ifdef BAD
	(void)t;
	return __atomic_fetch_add(&span_ids.next, 1, __ATOMIC_RELAXED);
#else
	if (t->id_next == t->id_end) {
		t->id_next = __atomic_fetch_add(&span_ids.next, SPAN_BLOCK, __ATOMIC_RELAXED);
		t->id_end = t->id_next + SPAN_BLOCK;
	}
	return t->id_next++;
#endif
}

static inline uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Opens and closes one span of the current request. */
static void record_span(struct tracer *t, uint64_t parent, uint32_t clock)
{
	uint64_t x = rng(&t->seed);
	struct span *s = &t->ring[t->head++ % RING];
	uint32_t name = x % NAMES;

	s->id = span_id_alloc(t);
	s->parent = parent;
	s->name = name;
	s->start = clock;
	s->duration = name_cost[name] * (1 + (uint32_t)(x >> 58));
	s->flags = (x >> 32 & 0xff) == 0;	/* sampled for the slow log */
	s->name_hash = 2166136261u ^ name;
	for (const char *c = span_names[name % 8]; *c; c++)
		s->name_hash = (s->name_hash ^ (uint8_t)*c) * 16777619u;
	t->id_sum += s->id;
	t->id_xor ^= s->id * 0x9e3779b97f4a7c15ull;
	t->payload = t->payload * 31 + s->duration + (s->flags << 20) + s->name_hash;
}

static void *request_thread(void *arg)
{
	struct tracer *t = arg;
	uint64_t parent = 0;
	uint32_t clock = 0;

	for (uint32_t i = 0; i < SPANS; i++) {
		if (i % 16 == 0)
			parent = 0;	/* a new request: its root span */
		record_span(t, parent, clock);
		parent = t->ring[(t->head - 1) % RING].id;
		clock += t->ring[(t->head - 1) % RING].duration;
	}
	return NULL;
}

int main(void)
{
	pthread_t tid[NTHREADS];
	static struct tracer tr[NTHREADS];
	uint64_t sum = 0, x = 0, payload = 0;

	for (int i = 0; i < NTHREADS; i++) {
		tr[i].ring = aligned_alloc(64, RING * sizeof(struct span));
		tr[i].seed = 0x243f6a8885a308d3ull + 977 * i;
		if (!tr[i].ring || pthread_create(&tid[i], NULL, request_thread, &tr[i]))
			return 1;
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(tid[i], NULL);
		sum += tr[i].id_sum;
		x ^= tr[i].id_xor;
		payload = payload * 1000003 + tr[i].payload;
		free(tr[i].ring);
	}
	printf("checksum %016llx\n",
	       (unsigned long long)(sum ^ x ^ payload ^ (span_ids.next << 40)));
	return 0;
}
