// SPDX-License-Identifier: GPL-2.0-only
/*
 * proxy_worker_counters: the request path of an HTTP reverse proxy with
 * two worker threads.  Each worker takes requests from its own accept queue
 * (here: a pre-built array of request headers), hashes the Host header,
 * picks an upstream from the read-only route table, and accounts the request
 * in its own entry of the proxy's per-worker counters (requests, bytes in,
 * bytes out, 4xx, 5xx), which the admin endpoint sums when scraped.
 * BAD: struct worker_counters is 32 bytes, so both workers' entries sit in
 * one cache line and every request's counter update takes the line away
 * from the other core.
 * GOOD: each worker's entry starts a cache line of its own (_Alignas(64)).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS	2
#define QUEUE		4096		/* requests per accept-queue refill */
#define ROUNDS		28000		/* refills per worker */
#define ROUTES		1024
#define UPSTREAMS	16

#ifdef BAD
#define COUNTER_ALIGN
#else
#define COUNTER_ALIGN	_Alignas(64)
#endif

struct request {
	char host[32];
	char request_id[8];	/* X-Request-Id added to the upstream request */
	uint8_t client_addr[16];	/* IPv6, v4-mapped */
	uint32_t body_len;
	uint16_t method;
	uint16_t path_len;
};

struct route {
	uint16_t upstream;
	uint16_t weight;
};

struct upstream {
	uint32_t resp_base;
	uint32_t fail_mask;
};

struct worker_counters {
	COUNTER_ALIGN uint64_t requests;
	uint64_t bytes_in;
	uint64_t bytes_out;
	uint32_t resp_4xx;
	uint32_t resp_5xx;
};

static _Alignas(64) struct worker_counters counters[NWORKERS];
static struct route route_table[ROUTES];
static struct upstream upstreams[UPSTREAMS];

struct worker {
	int id;
	struct request *queue;
};

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The Host header is padded with NULs to 24 bytes: hash it a word at a time. */
static uint32_t host_hash(const char *h)
{
	uint64_t w[3];

	memcpy(w, h, sizeof(w));
	return (uint32_t)(((w[0] * 0x9e3779b97f4a7c15ull ^ w[1]) * 0xff51afd7ed558ccdull
			   ^ w[2]) * 0xc4ceb9fe1a85ec53ull >> 32);
}

/* One request: route it, "forward" it, account it. */
static __attribute__((noinline)) void handle(struct worker_counters *c, struct request *rq, uint64_t seq)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t h = host_hash(rq->host);
	const struct route *r = &route_table[h % ROUTES];
	const struct upstream *u = &upstreams[r->upstream];
	uint32_t out = u->resp_base + (h >> 20) + rq->path_len * r->weight;

	for (int i = 7; i >= 0; i--, seq >>= 4)
		rq->request_id[i] = hex[seq & 15];
	out += rq->request_id[7] & 3;

	c->requests++;
	c->bytes_in += rq->body_len + rq->path_len + 24;
	c->bytes_out += out;
	if ((h & u->fail_mask) == 1)
		c->resp_5xx++;
	else if ((h >> 8 & 63) == 0)
		c->resp_4xx++;
}

static void fill_queue(struct request *q, uint64_t *seed)
{
	static const char *const sites[8] = {
		"api.", "www.", "cdn.", "img.", "auth.", "m.", "shop.", "static."
	};

	for (int i = 0; i < QUEUE; i++) {
		uint64_t x = rng(seed);

		memset(q[i].host, 0, sizeof(q[i].host));
		snprintf(q[i].host, sizeof(q[i].host), "%s%u.example.net",
			 sites[x & 7], (unsigned)(x >> 8) % 1000);
		q[i].body_len = (x >> 20) % 4096;
		q[i].method = (x >> 40) & 3;
		q[i].path_len = 8 + (x >> 44) % 120;
		memset(q[i].client_addr, 0, 10);
		memset(q[i].client_addr + 10, 0xff, 2);
		memcpy(q[i].client_addr + 12, &x, 4);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker_counters *c = &counters[w->id];
	uint64_t seed = 0x2545f4914f6cdd1dull * (w->id + 1);

	fill_queue(w->queue, &seed);
	for (int r = 0; r < ROUNDS; r++) {
		/* a new batch of connections: same hosts, new sizes */
		for (int i = 0; i < QUEUE; i++) {
			struct request *rq = &w->queue[i];

			rq->body_len = (rq->body_len * 1103515245u + 12345u) % 4096;
			handle(c, rq, ((uint64_t)w->id << 48) + (uint64_t)r * QUEUE + i);
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t tid[NWORKERS];
	struct worker w[NWORKERS];
	uint64_t seed = 42, sum = 0;

	for (int i = 0; i < ROUTES; i++) {
		uint64_t x = rng(&seed);

		route_table[i].upstream = x % UPSTREAMS;
		route_table[i].weight = 1 + (x >> 32) % 7;
	}
	for (int i = 0; i < UPSTREAMS; i++) {
		upstreams[i].resp_base = 512 + (uint32_t)rng(&seed) % 8192;
		upstreams[i].fail_mask = i == 3 ? 0x3ff : 0xffff;
	}
	for (int i = 0; i < NWORKERS; i++) {
		w[i].id = i;
		w[i].queue = aligned_alloc(64, QUEUE * sizeof(struct request));
		if (!w[i].queue || pthread_create(&tid[i], NULL, worker_main, &w[i]))
			return 1;
	}
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < NWORKERS; i++) {
		sum = sum * 1000003 + counters[i].requests;
		sum = sum * 1000003 + counters[i].bytes_in;
		sum = sum * 1000003 + counters[i].bytes_out;
		sum = sum * 1000003 + counters[i].resp_4xx;
		sum = sum * 1000003 + counters[i].resp_5xx;
		free(w[i].queue);
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
