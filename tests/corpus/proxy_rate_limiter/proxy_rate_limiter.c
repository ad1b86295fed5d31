// SPDX-License-Identifier: GPL-2.0-only
/*
 * The admission controller of an HTTP reverse proxy: a token bucket per
 * client.  The request thread replays a captured batch of request lines
 * ("<client address> <arrival ms> <response KiB>", the address as sent in
 * X-Forwarded-For).  For each line it parses the fields, hashes the client
 * address with the limiter's seed, finds the client's bucket in an
 * open-addressing table, refills the bucket lazily from the elapsed time
 * (rate and burst from the limiter), charges the request's cost and admits
 * it or answers 429.  The verdicts go into the connection's status buffer,
 * which is folded into a digest when it is flushed.
 *
 * A second thread, pinned to its own core and busy-polling as in a
 * data-plane proxy, tops up the budgets of the backend pools every tick and
 * publishes the tick and the tokens it has issued in the limiter, so that
 * the /status endpoint can report them.  The request thread never reads
 * those fields, and the verdicts depend only on the request batch and the
 * configuration, so the result does not depend on how far the refill
 * thread has got.
 *
 * The limiter is allocated on the heap with cache-line alignment.  With
 * -DBAD the refill fields follow the configuration in the same 64-byte
 * line; otherwise they start a line of their own.
 *
 * Usage: proxy_rate_limiter [ROUNDS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (1u << 14)	/* client table slots (16 B each, 256 KiB) */
#define NCLIENTS 9000
#define NREQ 32768		/* requests in the replayed batch */
#define REQ_LINE_MAX 40
#define NPOOLS 32		/* backend pools topped up by the refill thread */
#define STATUS_BUF 4096

struct bucket {
	uint32_t addr;		/* client IPv4 address, 0 = empty slot */
	uint32_t last_ms;	/* time of the last refill */
	int64_t tokens;		/* milli-tokens */
};

struct limiter {
	struct bucket *clients;	/* request thread: read on every request */
	uint64_t mask;
	uint64_t seed;
	uint32_t rate;		/* milli-tokens per ms */
	uint32_t burst;		/* milli-tokens */
	uint32_t base_cost;	/* milli-tokens per request */
	uint32_t kib_cost;	/* milli-tokens per KiB of response */
#ifndef BAD
	_Alignas(64)
#endif
	uint64_t last_refill_tick;	/* refill thread: stored every tick */
	uint64_t tokens_issued;
	uint64_t pools_topped;		/* top-ups that added tokens */
};

struct request {
	uint32_t addr;
	uint32_t at_ms;		/* arrival, relative to the batch start */
	uint32_t kib;
};

struct pool {
	int64_t budget;
	int64_t cap;
	int64_t per_tick;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t xorshift(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static inline uint64_t client_slot(const struct limiter *lim, uint32_t addr)
{
	uint64_t h = ((uint64_t)addr ^ lim->seed) * 0xff51afd7ed558ccdULL;

	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return h & lim->mask;
}

static struct bucket *client_bucket(const struct limiter *lim, uint32_t addr)
{
	struct bucket *tab = lim->clients;
	uint64_t i = client_slot(lim, addr);

	while (tab[i].addr != addr) {
		if (tab[i].addr == 0) {
			tab[i].addr = addr;
			tab[i].last_ms = 0;
			tab[i].tokens = lim->burst;
			break;
		}
		i = (i + 1) & lim->mask;
	}
	return &tab[i];
}

/* Admit or refuse one request; writes the status code into out. */
static int admit(const struct limiter *lim, const struct request *rq, uint32_t now,
		 char *out)
{
	struct bucket *b = client_bucket(lim, rq->addr);
	int64_t t = b->tokens + (int64_t)(now - b->last_ms) * lim->rate;
	int64_t cost = lim->base_cost + (int64_t)rq->kib * lim->kib_cost;

	if (t > lim->burst)
		t = lim->burst;
	b->last_ms = now;
	if (t >= cost) {
		b->tokens = t - cost;
		memcpy(out, "200 ", 4);
		return 1;
	}
	b->tokens = t;
	memcpy(out, "429 ", 4);
	return 0;
}

/* Parse "a.b.c.d at kib\n"; returns the start of the next line. */
static const char *parse_request(const char *p, struct request *rq)
{
	uint32_t addr = 0, v;

	for (int octet = 0; octet < 4; octet++) {
		for (v = 0; *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (uint32_t)(*p - '0');
		addr = addr << 8 | v;
		p++;			/* '.' or ' ' */
	}
	for (v = 0; *p != ' '; p++)
		v = v * 10 + (uint32_t)(*p - '0');
	rq->at_ms = v;
	for (v = 0, p++; *p != '\n'; p++)
		v = v * 10 + (uint32_t)(*p - '0');
	rq->kib = v;
	rq->addr = addr;
	return p + 1;
}

struct worker {
	struct limiter *lim;
	const char *batch;	/* the captured request lines */
	char *status;		/* the connection's status buffer */
	long rounds;
	uint64_t span_ms;	/* duration of one batch */
	uint64_t digest;
	uint64_t admitted;
};

static uint64_t flush_status(uint64_t digest, const char *buf, size_t len)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, buf + i, 8);
		digest = (digest ^ w) * 0x100000001b3ULL;
		digest ^= digest >> 31;
	}
	return digest;
}

static void *serve_requests(void *arg)
{
	struct worker *w = arg;
	const struct limiter *lim = w->lim;
	char *out = w->status;
	uint64_t digest = 0xcbf29ce484222325ULL, admitted = 0;

	for (long r = 0; r < w->rounds; r++) {
		uint32_t base = (uint32_t)((uint64_t)r * w->span_ms);
		const char *p = w->batch;
		size_t used = 0;

		for (int i = 0; i < NREQ; i++) {
			struct request rq;

			p = parse_request(p, &rq);
			admitted += admit(lim, &rq, base + rq.at_ms, out + used);
			used += 4;
			if (used == STATUS_BUF) {
				digest = flush_status(digest, out, used);
				used = 0;
			}
		}
		digest = flush_status(digest, out, used);
	}
	w->digest = digest;
	w->admitted = admitted;
	return NULL;
}

static int serving_done;	/* set by main when the request thread is done */

struct refiller {
	struct limiter *lim;
	struct pool *pools;
};

static void *refill_pools(void *arg)
{
	struct refiller *rf = arg;
	struct pool *pools = rf->pools;
	uint64_t *tick_slot = &rf->lim->last_refill_tick;
	uint64_t *issued_slot = &rf->lim->tokens_issued;
	uint64_t *topped_slot = &rf->lim->pools_topped;
	uint64_t tick = 0, issued = 0, topped = 0;

	while (!__atomic_load_n(&serving_done, __ATOMIC_ACQUIRE)) {
		tick++;
		for (int i = 0; i < NPOOLS; i++) {
			int64_t add = pools[i].per_tick;

			if (pools[i].budget + add > pools[i].cap)
				add = pools[i].cap - pools[i].budget;
			pools[i].budget += add;
			pools[i].budget -= pools[i].budget >> 6;	/* unused grants lapse */
			issued += (uint64_t)add;
			topped += add != 0;
		}
		__atomic_store_n(issued_slot, issued, __ATOMIC_RELAXED);
		__atomic_store_n(topped_slot, topped, __ATOMIC_RELAXED);
		__atomic_store_n(tick_slot, tick, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1600;
	struct limiter *lim = aligned_alloc(64, sizeof(*lim));
	uint32_t *addrs = malloc(NCLIENTS * sizeof(*addrs));
	char *batch = malloc((size_t)NREQ * REQ_LINE_MAX);
	char *status = aligned_alloc(64, STATUS_BUF);
	struct pool *pools = aligned_alloc(64, NPOOLS * sizeof(*pools));
	pthread_t tr, tf;

	if (!lim || !addrs || !batch || !status || !pools)
		return 1;
	memset(lim, 0, sizeof(*lim));
	memset(pools, 0, NPOOLS * sizeof(*pools));
	lim->clients = calloc(SLOTS, sizeof(*lim->clients));
	if (!lim->clients)
		return 1;
	lim->mask = SLOTS - 1;
	lim->seed = 0x5bd1e9955bd1e995ULL;
	lim->rate = 20;			/* 20 tokens per second */
	lim->burst = 40000;		/* 40 tokens */
	lim->base_cost = 1000;
	lim->kib_cost = 15;

	for (int i = 0; i < NCLIENTS; i++)
		addrs[i] = 0x0a000000u | (uint32_t)(xorshift() & 0xffffff) | 1u;
	uint32_t at = 0;
	size_t len = 0;
	for (int i = 0; i < NREQ; i++) {
		uint64_t x = xorshift();
		/* a third of the traffic comes from 64 heavy clients */
		int c = x % 3 ? (int)((x >> 8) % NCLIENTS) : (int)((x >> 8) % 64);

		at += (uint32_t)((x >> 40) & 1);
		uint32_t a = addrs[c];

		len += (size_t)sprintf(batch + len, "%u.%u.%u.%u %u %u\n", a >> 24,
				       a >> 16 & 255, a >> 8 & 255, a & 255, at,
				       (unsigned)((x >> 20) % 256));
	}
	for (int i = 0; i < NPOOLS; i++) {
		pools[i].cap = 1000 + 37 * i;
		pools[i].per_tick = 3 + i % 7;
	}

	struct worker w = { .lim = lim, .batch = batch, .status = status,
			    .rounds = rounds, .span_ms = at + 1 };
	struct refiller rf = { .lim = lim, .pools = pools };

	pthread_create(&tr, NULL, serve_requests, &w);
	pthread_create(&tf, NULL, refill_pools, &rf);
	pthread_join(tr, NULL);
	__atomic_store_n(&serving_done, 1, __ATOMIC_RELEASE);
	pthread_join(tf, NULL);

	printf("checksum %016llx admitted %llu of %llu\n", (unsigned long long)w.digest,
	       (unsigned long long)w.admitted, (unsigned long long)rounds * NREQ);
	free(lim->clients);
	free(lim);
	free(addrs);
	free(batch);
	free(status);
	free(pools);
	return 0;
}
