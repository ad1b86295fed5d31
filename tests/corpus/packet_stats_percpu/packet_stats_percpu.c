// SPDX-License-Identifier: GPL-2.0-only
/*
 * Receive-side packet processing with one worker per queue.  Each worker
 * parses the frames of its own queue (Ethernet/IPv4/UDP headers, built once
 * at start and small enough to stay in L1) and keeps per-worker statistics
 * in a shared array indexed by worker id, as drivers keep per-queue stats.
 * With -DBAD the records are 32 bytes and two workers' records share a
 * cache line (the array starts a line, as a page-allocated or line-aligned
 * table does: where the linker happened to place it mid-line, the two
 * records fell on two lines and nothing was shared); otherwise each record
 * is aligned to a line of its own.
 *
 * Usage: packet_stats_percpu [PASSES]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS 2
#define NFRAMES 256
#define FRAME_LEN 128

#ifdef BAD
#define STATS_ALIGN
#else
#define STATS_ALIGN _Alignas(64)
#endif

struct rx_stats {
	STATS_ALIGN uint64_t packets;
	uint64_t bytes;
	uint64_t udp;
	uint64_t drops;
};

#ifdef BAD
static struct rx_stats stats[NWORKERS] __attribute__((aligned(64)));
#else
static struct rx_stats stats[NWORKERS];
#endif

struct queue {
	int id;
	long passes;
	uint8_t frames[NFRAMES][FRAME_LEN];
};

static void queue__fill(struct queue *q, uint32_t seed)
{
	for (int i = 0; i < NFRAMES; i++) {
		uint8_t *f = q->frames[i];

		seed = seed * 1103515245u + 12345u;
		memset(f, 0, FRAME_LEN);
		f[12] = 0x08;				/* ethertype IPv4 */
		f[14] = 0x45;				/* version 4, IHL 5 */
		f[16] = 0;
		f[17] = 64 + (seed >> 20 & 63);		/* total length */
		f[23] = (seed >> 8 & 3) ? 17 : 6;	/* UDP or TCP */
		f[36] = seed >> 12;			/* dst port */
		f[37] = seed >> 4;
	}
}

static void *rx_worker(void *p)
{
	struct queue *q = p;
	volatile struct rx_stats *s = &stats[q->id];

	for (long pass = 0; pass < q->passes; pass++) {
		for (int i = 0; i < NFRAMES; i++) {
			const uint8_t *f = q->frames[i];
			unsigned len = (unsigned)f[16] << 8 | f[17];

			if (f[12] != 0x08 || (f[14] >> 4) != 4) {
				s->drops++;
				continue;
			}
			s->packets++;
			s->bytes += len;
			if (f[23] == 17 && (f[36] | f[37]))
				s->udp++;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 5000000;
	struct queue *q[NWORKERS];
	pthread_t t[NWORKERS];
	uint64_t sum = 0;

	for (int i = 0; i < NWORKERS; i++) {
		q[i] = malloc(sizeof(*q[i]));
		if (!q[i])
			return 1;
		q[i]->id = i;
		q[i]->passes = passes;
		queue__fill(q[i], 42 + i);
	}
	for (int i = 0; i < NWORKERS; i++)
		if (pthread_create(&t[i], NULL, rx_worker, q[i]))
			return 1;
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NWORKERS; i++) {
		sum += stats[i].packets * 3 + stats[i].bytes + stats[i].udp * 7 + stats[i].drops;
		free(q[i]);
	}
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
