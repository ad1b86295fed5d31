// SPDX-License-Identifier: GPL-2.0-only
/*
 * gateway_token_cache: the bearer-token check of an API gateway.  Two
 * request threads look every request's token up in a shared cache of
 * verified tokens (a direct-mapped table of 2^17 entries); on a miss the
 * thread verifies the token itself (a keyed hash standing in for the
 * signature check, done outside any lock) and inserts the result.
 * BAD: one pthread mutex guards the whole table, so every lookup of both
 * threads goes through the same lock and the threads queue on it.
 * GOOD: lock striping: 64 mutexes, each on its own cache line, each
 * guarding every 64th entry; the two threads rarely want the same stripe.
 * The table, the hashing and the verification are the same in both.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS	2
#define REQUESTS	(11u * 1000 * 1000)	/* per thread */
#define TOKENS		(1u << 16)		/* distinct tokens in use */
#define CACHE_BITS	17
#define CACHE_SIZE	(1u << CACHE_BITS)
#define STRIPES		64

struct token_entry {
	uint64_t key;		/* hash of the token text, 0 = empty */
	uint32_t user_id;
	uint32_t scopes;
};

struct verdict {
	uint32_t user_id;
	uint32_t scopes;
};

static struct token_entry cache[CACHE_SIZE];

#ifdef BAD
static _Alignas(64) pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
#define ENTRY_LOCK(idx)	(&cache_lock)
#else
struct stripe {
	_Alignas(64) pthread_mutex_t lock;
};
static struct stripe stripes[STRIPES];
#define ENTRY_LOCK(idx)	(&stripes[(idx) % STRIPES].lock)
#endif

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* The "signature check": slow on purpose, done without a lock. */
static struct verdict verify_token(uint64_t key)
{
	uint64_t h = key;
	struct verdict v;

	for (int i = 0; i < 60; i++)
		h = mix64(h + i);
	v.user_id = (uint32_t)h % 5000000;
	v.scopes = (uint32_t)(h >> 40) & 0x3f;
	return v;
}

/* The token text of the Authorization header, 40 bytes of base64url. */
static void make_token(char tok[40], uint32_t n)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	uint64_t x = mix64(n + 0x5bd1e995ull);

	for (int i = 0; i < 40; i++) {
		if (i % 10 == 0)
			x = mix64(x + i);
		tok[i] = b64[x & 63];
		x >>= 6;
	}
}

static uint64_t token_key(const char tok[40])
{
	uint64_t w[5], h = 0x9e3779b97f4a7c15ull;

	memcpy(w, tok, sizeof(w));
	for (int i = 0; i < 5; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	return mix64(h) | 1;
}

static __attribute__((noinline)) struct verdict check_token(const char tok[40])
{
	uint64_t key = token_key(tok);
	uint32_t idx = (uint32_t)key & (CACHE_SIZE - 1);
	pthread_mutex_t *lock = ENTRY_LOCK(idx);
	struct verdict v;
	int hit;

	pthread_mutex_lock(lock);
	hit = cache[idx].key == key;
	v.user_id = cache[idx].user_id;
	v.scopes = cache[idx].scopes;
	pthread_mutex_unlock(lock);
	if (hit)
		return v;

	v = verify_token(key);
	pthread_mutex_lock(lock);
	cache[idx].key = key;
	cache[idx].user_id = v.user_id;
	cache[idx].scopes = v.scopes;
	pthread_mutex_unlock(lock);
	return v;
}

/* The API's routes and the scope each one needs (read-only). */
static const struct api_route {
	const char *path;
	uint32_t scope;
} api_routes[8] = {
	{ "/v2/accounts/{id}/statements", 0x01 }, { "/v2/payments/outgoing/batch", 0x02 },
	{ "/v2/cards/{id}/limits", 0x04 }, { "/v2/customers/search?q=", 0x08 },
	{ "/v2/accounts/{id}/balance", 0x01 }, { "/v2/fx/quotes/latest", 0x10 },
	{ "/v2/payments/{id}/status", 0x02 }, { "/v2/audit/events?since=", 0x20 },
};

/* Routing and authorisation of the request line: no shared state. */
static uint32_t authorize(uint64_t x, struct verdict v)
{
	const struct api_route *r = &api_routes[(x >> 20) & 7];
	uint32_t h = 2166136261u ^ (uint32_t)(x >> 24);

	for (const char *c = r->path; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	return (v.scopes & r->scope) ? h : 403;
}

struct worker {
	uint64_t seed;
	uint64_t sum;
	char (*tokens)[40];
};

static void *request_thread(void *arg)
{
	struct worker *w = arg;
	uint64_t sum = 0, x = w->seed;

	for (uint32_t i = 0; i < REQUESTS; i++) {
		uint32_t n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* skewed: most requests come from the busiest clients */
		n = (uint32_t)(x >> 40) % TOKENS;
		if (x & 7)
			n %= TOKENS / 32;
		struct verdict v = check_token(w->tokens[n]);

		sum = sum * 31 + v.user_id + ((uint64_t)authorize(x, v) << 32);
	}
	w->seed = x;
	w->sum = sum;
	return NULL;
}

int main(void)
{
	pthread_t tid[NTHREADS];
	struct worker w[NTHREADS];
	char (*tokens)[40] = malloc((size_t)TOKENS * 40);
	uint64_t sum = 0;

	if (!tokens)
		return 1;
#ifndef BAD
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&stripes[i].lock, NULL);
#endif
	for (uint32_t n = 0; n < TOKENS; n++)
		make_token(tokens[n], n);
	for (int i = 0; i < NTHREADS; i++) {
		w[i].seed = 0x9e3779b97f4a7c15ull * (i + 3);
		w[i].tokens = tokens;
		if (pthread_create(&tid[i], NULL, request_thread, &w[i]))
			return 1;
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(tid[i], NULL);
		sum = sum * 1000003 + w[i].sum;
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	free(tokens);
	return 0;
}
