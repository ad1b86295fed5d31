// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two HTTP worker threads parse request lines (method, path hash, version)
 * and account every request in the server's global statistics.  With -DBAD
 * each request does two atomic additions on the shared totals; otherwise
 * each worker counts in its own variables and adds them to the totals once,
 * when it finishes.
 *
 * Usage: http_request_counter [REQUESTS_PER_WORKER]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const requests[] = {
	"GET /index.html HTTP/1.1",
	"GET /static/app.js HTTP/1.1",
	"POST /api/v1/orders HTTP/1.1",
	"GET /img/logo.png HTTP/1.0",
	"PUT /api/v1/users/42 HTTP/1.1",
	"GET /favicon.ico HTTP/1.1",
	"DELETE /api/v1/sessions/7 HTTP/1.1",
	"HEAD / HTTP/1.1",
};
#define NREQ (sizeof(requests) / sizeof(requests[0]))

static uint64_t total_requests;
static uint64_t total_bytes;

struct worker {
	long requests;
	uint64_t path_hash;
};

static void *handle_requests(void *p)
{
	struct worker *w = p;
	uint64_t path_hash = 0;
#ifndef BAD
	uint64_t my_requests = 0, my_bytes = 0;
#endif

	for (long i = 0; i < w->requests; i++) {
		const char *r = requests[(i * 7 + (i >> 3)) % NREQ];
		const char *path = strchr(r, ' ') + 1;
		uint64_t h = 1469598103934665603ull;
		size_t len = 0;

		for (const char *c = path; *c != ' '; c++, len++)
			h = (h ^ (uint8_t)*c) * 1099511628211ull;
		path_hash += h;
#ifdef BAD
		__atomic_fetch_add(&total_requests, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&total_bytes, len, __ATOMIC_RELAXED);
#else
		my_requests++;
		my_bytes += len;
#endif
	}
	w->path_hash = path_hash;
#ifndef BAD
	__atomic_fetch_add(&total_requests, my_requests, __ATOMIC_RELAXED);
	__atomic_fetch_add(&total_bytes, my_bytes, __ATOMIC_RELAXED);
#endif
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 180000000;
	struct worker w[2] = { { .requests = n }, { .requests = n } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, handle_requests, &w[i]))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("checksum %llu\n", (unsigned long long)(total_requests + total_bytes +
							(w[0].path_hash ^ w[1].path_hash)));
	return 0;
}
