// SPDX-License-Identifier: GPL-2.0-only
/*
 * A logging library's append path: worker threads produce log records
 * (a timestamp, a level and a short formatted message) and append them to
 * one shared in-memory log, which a flush would write out.  With -DBAD
 * every record is formatted and copied into the log while the log's mutex
 * is held, so the three workers queue on it record after record.
 * Otherwise each worker formats into a batch of its own and takes the
 * mutex once per batch of 128 records, only to copy the batch in: the same
 * records in the same log, with the lock held a short time, rarely.
 *
 * Usage: log_append_mutex [RECORDS_PER_THREAD]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 3
#define LOG_BYTES (4u << 20)	/* a ring: old records are overwritten */
#define BATCH 128
#define REC_MAX 96

struct log {
	pthread_mutex_t lock;
	size_t head;		/* bytes appended so far */
	uint64_t records;
	char *ring;
};

static struct log app_log = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A record's text: what snprintf in a logger's hot path costs. */
static int format_record(char *out, uint64_t seq, int tid, int level)
{
	static const char *const levels[] = { "debug", "info", "warn", "error" };

	return snprintf(out, REC_MAX, "%llu t%d %s request=%llu status=%d bytes=%llu\n",
			(unsigned long long)seq, tid, levels[level & 3],
			(unsigned long long)(seq * 2654435761u % 1000003), (int)(seq % 7) * 100 + 200,
			(unsigned long long)(seq * 40503u % 65536));
}

static void ring_copy(struct log *l, const char *p, size_t n)
{
	size_t at = l->head % LOG_BYTES, first = n < LOG_BYTES - at ? n : LOG_BYTES - at;

	memcpy(l->ring + at, p, first);
	memcpy(l->ring, p + first, n - first);	/* the wrap, if any */
	l->head += n;
}

#ifdef BAD
static void log_append(struct log *l, uint64_t seq, int tid)
{
	char rec[REC_MAX];
	int n;

	pthread_mutex_lock(&l->lock);
	n = format_record(rec, seq, tid, (int)(seq % 4));
	ring_copy(l, rec, (size_t)n);
	l->records++;
	pthread_mutex_unlock(&l->lock);
}
#endif

struct worker {
	int tid;
	long records;
};

static void *work(void *arg)
{
	struct worker *w = arg;
#ifndef BAD
	static __thread char batch[BATCH * REC_MAX];
	size_t used = 0;
	int inbatch = 0;
#endif

	for (long i = 0; i < w->records; i++) {
		uint64_t seq = (uint64_t)i * THREADS + (uint64_t)w->tid;
#ifdef BAD
		log_append(&app_log, seq, w->tid);
#else
		used += (size_t)format_record(batch + used, seq, w->tid, (int)(seq % 4));
		if (++inbatch == BATCH || i + 1 == w->records) {
			pthread_mutex_lock(&app_log.lock);
			ring_copy(&app_log, batch, used);
			app_log.records += (uint64_t)inbatch;
			pthread_mutex_unlock(&app_log.lock);
			used = 0;
			inbatch = 0;
		}
#endif
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long records = argc > 1 ? atol(argv[1]) : 1500000;
	struct worker w[THREADS];
	pthread_t t[THREADS];
	uint64_t sum = 0;

	app_log.ring = calloc(LOG_BYTES, 1);
	if (!app_log.ring || records <= 0)
		return 1;
	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ .tid = i, .records = records };
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	for (size_t i = 0; i < LOG_BYTES; i += 4096)
		sum += (unsigned char)app_log.ring[i];
	printf("records %llu bytes %zu sample %llu\n", (unsigned long long)app_log.records,
	       app_log.head, (unsigned long long)sum);
	return 0;
}
