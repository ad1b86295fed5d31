/*
 * pcap_ring_writer: a packet capture agent updates per-flow statistics in
 * a 3 MiB flow table (L3-resident) for every packet and appends a capture
 * record (16-byte header + 112 bytes of packet data) to a 256 MiB ring
 * that a separate exporter would drain; this process never reads the ring
 * back. BAD appends with ordinary stores: every ring line is read for
 * ownership, and the ring streams through the caches and evicts the flow
 * table, so flow updates miss to memory. GOOD writes the records with
 * non-temporal stores (_mm_stream_si128) and fences once per batch
 * (_mm_sfence), so the ring bypasses the caches and the table stays in L3.
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RING	(256ul << 20)
#define RECSZ	128
#define NFLOW	(1u << 16)	/* x 48 bytes = 3 MiB */

struct flow_stat {
	uint64_t packets, bytes, first, last;
	uint32_t syn, fin, rst, pad;
};

struct cap_hdr {
	uint32_t ts_sec;
	uint32_t ts_usec;
	uint32_t caplen;
	uint32_t origlen;
};

struct ring {
	char *base;
	size_t head;
	struct flow_stat *flows;
};

static __attribute__((noinline)) uint64_t capture_batch(struct ring *r, uint32_t *seq, int n)
{
	uint64_t sum = 0;

	for (int p = 0; p < n; p++) {
		uint32_t s = (*seq)++;
		struct cap_hdr h = { s / 100000, s % 100000, 112, 60 + (s & 1023) };
		__m128i rec[RECSZ / 16];
		char *dst = r->base + r->head;

		rec[0] = _mm_loadu_si128((const __m128i *)&h);
		for (int i = 1; i < RECSZ / 16; i++)
			rec[i] = _mm_set_epi32((int)(s * 2654435761u), (int)(s ^ i), i, (int)s);
		for (int i = 0; i < RECSZ / 16; i++) {
#ifdef BAD
			_mm_store_si128((__m128i *)dst + i, rec[i]);
#else
			_mm_stream_si128((__m128i *)dst + i, rec[i]);
#endif
		}
		struct flow_stat *f = &r->flows[(s * 2654435761u) >> 14 & (NFLOW - 1)];

		f->packets++;
		f->bytes += h.origlen;
		f->last = s;
		sum += f->packets;
		r->head = (r->head + RECSZ) & (RING - 1);
	}
#ifndef BAD
	_mm_sfence();
#endif
	return sum;
}

int main(int argc, char **argv)
{
	long batches = argc > 1 ? atol(argv[1]) : 15000;
	struct ring r = { aligned_alloc(4096, RING), 0, calloc(NFLOW, sizeof(struct flow_stat)) };
	uint32_t seq = 0;
	uint64_t check = 0;

	if (!r.base || !r.flows)
		return 1;
	for (long b = 0; b < batches; b++)
		check += capture_batch(&r, &seq, 1024);
	printf("checksum %llu\n", (unsigned long long)check);
	free(r.base);
	free(r.flows);
	return 0;
}
