// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small in-memory key-value cache with a memcached-like text protocol.
 * The request thread parses a batch of "get k<key>\r\n" lines, looks each
 * key up in an open-addressing table (hash seeded per instance, linear
 * probing) and formats "VALUE <v>\r\n" or "END\r\n" into a response
 * buffer that is folded into a running FNV-1a digest when it is "sent".
 * While requests are served, a maintenance thread runs the expiry clock:
 * it walks the per-slot expiry stamps, re-arms the ones that are due
 * (refresh-ahead) and publishes the position of its clock hand and the
 * sweep epoch in the cache header, so that a stats command can report
 * them.  The request thread never looks at the stamps, so the responses
 * do not depend on how far the clock has got.
 *
 * The cache header is allocated on the heap with cache-line alignment.
 * The request thread reads the table pointers, the mask, the seed and the
 * probe limit on every lookup; it never reads the clock hand.  With -DBAD
 * the clock hand and the epoch sit right after those fields in the same
 * 64-byte line; otherwise they start a line of their own.
 *
 * Usage: kv_lookup_clock_hand [ROUNDS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (1u << 14)	/* table slots, half of them used */
#define NKEYS (SLOTS / 2)
#define NREQ 32768		/* requests in the replayed batch */
#define EMPTY 0
#define WBUF_SIZE 4096

struct kv_cache {
	uint64_t *keys;		/* request thread: read on every lookup */
	uint32_t *vals;
	uint64_t mask;
	uint64_t seed;
	uint32_t max_probe;
	uint32_t nitems;
#ifndef BAD
	_Alignas(64)
#endif
	uint64_t clock_hand;	/* maintenance thread: stored every step */
	uint64_t sweep_epoch;
	uint32_t *expire_at;
};

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;

static uint64_t xorshift(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static inline uint64_t slot_of(const struct kv_cache *c, uint64_t key)
{
	uint64_t h = (key ^ c->seed) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 29;
	return h & c->mask;
}

static void cache_insert(struct kv_cache *c, uint64_t key, uint32_t val)
{
	uint64_t i = slot_of(c, key);

	while (c->keys[i] != EMPTY && c->keys[i] != key)
		i = (i + 1) & c->mask;
	if (c->keys[i] == EMPTY)
		c->nitems++;
	c->keys[i] = key;
	c->vals[i] = val;
}

/* Format one response line for a key into out; returns its length. */
static int cache_get(const struct kv_cache *c, uint64_t key, char *out)
{
	uint64_t i = slot_of(c, key);
	char digits[12];
	int n = 0, len = 0;

	for (uint32_t p = 0; p < c->max_probe; p++) {
		uint64_t k = c->keys[i];

		if (k == key) {
			uint32_t v = c->vals[i];

			memcpy(out, "VALUE ", 6);
			len = 6;
			do {
				digits[n++] = (char)('0' + v % 10);
				v /= 10;
			} while (v);
			while (n)
				out[len++] = digits[--n];
			out[len++] = '\r';
			out[len++] = '\n';
			return len;
		}
		if (k == EMPTY)
			break;
		i = (i + 1) & c->mask;
	}
	memcpy(out, "END\r\n", 5);
	return 5;
}

struct server {
	struct kv_cache *cache;
	const char *req;
	size_t req_len;
	char *wbuf;		/* the connection's response buffer */
	long rounds;
	uint64_t digest;
	uint64_t hits;
};

static uint64_t send_response(uint64_t digest, const char *buf, int len)
{
	for (int i = 0; i < len; i++)
		digest = (digest ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
	return digest;
}

static void *serve_requests(void *arg)
{
	struct server *s = arg;
	const struct kv_cache *c = s->cache;
	char *out = s->wbuf;
	uint64_t digest = 0xcbf29ce484222325ULL, hits = 0;

	for (long r = 0; r < s->rounds; r++) {
		const char *p = s->req, *end = s->req + s->req_len;
		int used = 0;

		while (p < end) {
			uint64_t key = 0;

			p += 5;			/* "get k" */
			while (*p != '\r')
				key = key * 10 + (uint64_t)(*p++ - '0');
			p += 2;
			int len = cache_get(c, key, out + used);

			hits += out[used] == 'V';
			used += len;
			if (used > WBUF_SIZE - 32) {
				digest = send_response(digest, out, used);
				used = 0;
			}
		}
		digest = send_response(digest, out, used);
	}
	s->digest = digest;
	s->hits = hits;
	return NULL;
}

static int serving_done;	/* set by main when the request thread is done */

static void *run_expiry_clock(void *arg)
{
	struct kv_cache *c = arg;
	uint32_t *exp = c->expire_at;
	uint64_t hand = 0, mask = SLOTS - 1;
	uint32_t now = 1;

	while (!__atomic_load_n(&serving_done, __ATOMIC_ACQUIRE)) {
		do {
			if (exp[hand] <= now) {
				uint32_t h = (uint32_t)(hand * 2654435761u) ^ now;

				exp[hand] = now + 1 + ((h >> 7) & 7);
			}
			hand = (hand + 1) & mask;
			__atomic_store_n(&c->clock_hand, hand, __ATOMIC_RELAXED);
		} while (hand != 0);
		now++;
		__atomic_store_n(&c->sweep_epoch, now, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1200;
	struct kv_cache *c = aligned_alloc(64, sizeof(*c));
	uint64_t *present = malloc(NKEYS * sizeof(*present));
	char *req = malloc((size_t)NREQ * 32);
	char *wbuf = malloc(WBUF_SIZE);
	size_t len = 0;
	pthread_t tr, tw;

	if (!c || !present || !req || !wbuf)
		return 1;
	memset(c, 0, sizeof(*c));
	c->keys = calloc(SLOTS, sizeof(*c->keys));
	c->vals = calloc(SLOTS, sizeof(*c->vals));
	c->expire_at = calloc(SLOTS, sizeof(*c->expire_at));
	if (!c->keys || !c->vals || !c->expire_at)
		return 1;
	c->mask = SLOTS - 1;
	c->seed = 0x7f4a7c159e3779b9ULL;
	c->max_probe = 64;

	for (unsigned i = 0; i < NKEYS; i++) {
		present[i] = 1 + xorshift() % 100000000u;
		cache_insert(c, present[i], (uint32_t)(xorshift() % 1000000u));
	}
	for (int i = 0; i < NREQ; i++) {
		/* 80% of the requests ask for a cached key */
		uint64_t key = xorshift() % 5 ? present[xorshift() % NKEYS]
					      : 1 + xorshift() % 100000000u;

		len += (size_t)sprintf(req + len, "get k%llu\r\n", (unsigned long long)key);
	}

	struct server srv = { .cache = c, .req = req, .req_len = len,
			      .wbuf = wbuf, .rounds = rounds };

	pthread_create(&tr, NULL, serve_requests, &srv);
	pthread_create(&tw, NULL, run_expiry_clock, c);
	pthread_join(tr, NULL);
	__atomic_store_n(&serving_done, 1, __ATOMIC_RELEASE);
	pthread_join(tw, NULL);

	printf("checksum %016llx hits %llu items %u\n", (unsigned long long)srv.digest,
	       (unsigned long long)srv.hits, c->nitems);
	free(c->keys);
	free(c->vals);
	free(c->expire_at);
	free(c);
	free(present);
	free(req);
	free(wbuf);
	return 0;
}
