/*
 * webhook_tenant_queues: the dispatcher of a multi-tenant webhook delivery
 * service.  Every tenant has a FIFO of pending deliveries (event, endpoint,
 * payload size, priority, deadline, next attempt).  For fairness the
 * dispatcher serves the 32 tenants round-robin, one request per tenant per
 * round: it takes the head of the tenant's queue, posts it if its retry
 * time has come, drops it once past its deadline, and moves on.  A request
 * whose endpoint fails goes back to the tail with a backoff.  Each tenant's
 * queue is at its limit (the producers are throttled), so a request that
 * leaves is replaced at the tail by the tenant's next event at once: taking
 * the head and appending at the tail is one step of a cursor around a queue
 * of fixed length.
 * BAD keeps every queue as a circular singly linked list of malloc'd
 * 32-byte request nodes, allocated as the events arrived from all tenants
 * interleaved (2.4 M nodes, ~110 MiB of heap); a request that leaves hands
 * its node to the tenant's next event.  The dispatcher keeps each tenant's
 * position in pos[] and advances it with pos[k] = pos[k]->next: each
 * tenant's walk is a chain of dependent loads through nodes that rarely share a
 * cache line with their successor, and nearly every step misses.
 * GOOD keeps each tenant's queue in one array used as a ring of 24-byte
 * records, walked by index: the same requests, the same work.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TENANTS		32
#define REQS		2400000
#define ROUNDS		2000000		/* one round = one tick */
#define TTL		1500000		/* ticks until an undelivered request is dropped */
#define RETRY_BASE	32768		/* ticks before the first retry */

struct req {
#ifdef BAD
	struct req *next;	/* the tenant's queue, circular */
#endif
	uint32_t seq;		/* the tenant's event number */
	uint32_t endpoint;
	uint32_t size;		/* payload bytes */
	uint32_t deadline;	/* drop after this tick */
	uint32_t next_try;	/* tick of the next attempt */
	uint8_t prio;		/* 0 bulk .. 3 urgent */
	uint8_t attempts;
	uint16_t flags;
};

#ifdef BAD
_Static_assert(sizeof(struct req) == 32, "32-byte request node");
#endif

struct tenant {
#ifdef BAD
	struct req *head;
#else
	struct req *ring;
#endif
	uint32_t len;
	uint32_t next_seq;
};

struct tenant_stats {
	uint64_t delivered, dropped, retried, waiting;
	uint64_t bytes_out, bytes_dropped;
	uint64_t prio_bytes[4];	/* payload bytes seen at the head, by priority */
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ull;
	v ^= v >> 33;
	return v;
}

/* The tenant's event number seq, queued at tick now. */
static void req_fill(struct req *r, int k, uint32_t seq, uint32_t now)
{
	uint64_t h = mix((uint64_t)seq * TENANTS + k);

	r->seq = seq;
	r->endpoint = (uint32_t)k << 8 | (uint32_t)(h >> 8) % 200;
	r->size = 256 + (uint32_t)(h >> 16) % 16384;
	r->prio = (uint8_t)(h >> 40) & 3;
	r->attempts = 0;
	r->flags = 0;
	r->next_try = now;
	r->deadline = now + TTL;
}

/* The backlog is old: requests have failed before and wait for a retry. */
static void req_age(struct req *r, uint64_t *x)
{
	uint32_t age = (uint32_t)(rnd(x) % (TTL / 2));

	r->attempts = (uint8_t)(rnd(x) % 5);
	r->next_try = (uint32_t)(rnd(x) % ((uint64_t)RETRY_BASE << r->attempts));
	r->deadline = TTL - age;
}

/* The endpoint's answer: some endpoints are down for a while. */
static int post(const struct req *r, uint32_t now)
{
	return mix((uint64_t)r->endpoint << 32 ^ (now >> 16)) % 4 != 0 &&
	       mix((uint64_t)r->seq << 8 ^ r->attempts ^ r->endpoint) % 3 != 0;
}

static uint32_t backoff(const struct req *r)
{
	unsigned int shift = r->attempts < 5 ? r->attempts : 5;

	return ((uint32_t)RETRY_BASE << shift) >> (r->prio == 3);
}

/*
 * The backlog as the dispatcher finds it: events arrived from all tenants
 * interleaved (a few large tenants, many small ones), each queued at the
 * tail of its tenant's queue.
 */
static int backlog_build(struct tenant *t, uint64_t *x)
{
	uint8_t *owner = malloc(REQS);
	double w[TENANTS], sum = 0;

	if (!owner)
		return -1;
	for (int k = 0; k < TENANTS; k++) {
		w[k] = 1.0 / (1.0 + 0.25 * k);
		sum += w[k];
	}
	for (uint32_t i = 0; i < REQS; i++) {
		double v = (double)(rnd(x) >> 11) / 9007199254740992.0 * sum;
		int k = 0;

		while (k < TENANTS - 1 && v >= w[k])
			v -= w[k++];
		owner[i] = (uint8_t)k;
		t[k].len++;
	}
#ifdef BAD
	struct req *tail[TENANTS] = { 0 };

	for (uint32_t i = 0; i < REQS; i++) {
		int k = owner[i];
		struct req *r = malloc(sizeof(*r));

		if (!r)
			return -1;
		req_fill(r, k, t[k].next_seq++, 0);
		req_age(r, x);
		if (tail[k])
			tail[k]->next = r;
		else
			t[k].head = r;
		tail[k] = r;
	}
	for (int k = 0; k < TENANTS; k++)
		tail[k]->next = t[k].head;
#else
	uint32_t fill[TENANTS] = { 0 };

	for (int k = 0; k < TENANTS; k++) {
		t[k].ring = malloc((size_t)t[k].len * sizeof(struct req));
		if (!t[k].ring)
			return -1;
	}
	for (uint32_t i = 0; i < REQS; i++) {
		int k = owner[i];
		struct req *r = &t[k].ring[fill[k]++];

		req_fill(r, k, t[k].next_seq++, 0);
		req_age(r, x);
	}
#endif
	free(owner);
	return 0;
}

/*
 * Rounds [first, first + rounds): each serves the head of every tenant's
 * queue once.
 */
#ifdef BAD
static __attribute__((noinline)) void dispatch(struct tenant *t, struct req **pos,
					       struct tenant_stats *st,
					       uint32_t first, uint32_t rounds)
{
	for (uint32_t now = first; now < first + rounds; now++) {
		for (int k = 0; k < TENANTS; k++) {
			struct req *r = pos[k];
			struct tenant_stats *s = &st[k];

			s->prio_bytes[r->prio] += r->size;
			if (r->next_try > now) {
				s->waiting++;
			} else if (now >= r->deadline) {
				s->dropped++;
				s->bytes_dropped += r->size;
				req_fill(r, k, t[k].next_seq++, now);
			} else if (post(r, now)) {
				s->delivered++;
				s->bytes_out += r->size;
				req_fill(r, k, t[k].next_seq++, now);
			} else {
				r->attempts++;
				r->next_try = now + backoff(r);
				s->retried++;
			}
			pos[k] = r->next;
		}
	}
}
#else
static __attribute__((noinline)) void dispatch(struct tenant *t, uint32_t *pos,
					       struct tenant_stats *st,
					       uint32_t first, uint32_t rounds)
{
	for (uint32_t now = first; now < first + rounds; now++) {
		for (int k = 0; k < TENANTS; k++) {
			struct req *r = &t[k].ring[pos[k]];
			struct tenant_stats *s = &st[k];

			s->prio_bytes[r->prio] += r->size;
			if (r->next_try > now) {
				s->waiting++;
			} else if (now >= r->deadline) {
				s->dropped++;
				s->bytes_dropped += r->size;
				req_fill(r, k, t[k].next_seq++, now);
			} else if (post(r, now)) {
				s->delivered++;
				s->bytes_out += r->size;
				req_fill(r, k, t[k].next_seq++, now);
			} else {
				r->attempts++;
				r->next_try = now + backoff(r);
				s->retried++;
			}
			pos[k] = pos[k] + 1 == t[k].len ? 0 : pos[k] + 1;
		}
	}
}
#endif

int main(int argc, char **argv)
{
	uint32_t rounds = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : ROUNDS;
	static struct tenant t[TENANTS];
	static struct tenant_stats st[TENANTS];
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

	if (backlog_build(t, &x))
		return 1;
#ifdef BAD
	struct req *pos[TENANTS];

	for (int k = 0; k < TENANTS; k++)
		pos[k] = t[k].head;
#else
	uint32_t pos[TENANTS] = { 0 };
#endif
	/* the stats are reported every 100000 ticks */
	for (uint32_t r = 0; r < rounds; r += 100000) {
		dispatch(t, pos, st, r, rounds - r < 100000 ? rounds - r : 100000);
		for (int k = 0; k < TENANTS; k++)
			sum = sum * 31 + st[k].delivered + 7 * st[k].dropped + st[k].retried;
	}
	for (int k = 0; k < TENANTS; k++) {
		struct tenant_stats *s = &st[k];

		sum += s->waiting + s->bytes_out + s->bytes_dropped;
		for (int p = 0; p < 4; p++)
			sum += s->prio_bytes[p] * (p + 1);
	}
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
