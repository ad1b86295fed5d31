// SPDX-License-Identifier: GPL-2.0-only
/*
 * A log-structured store keeps a segment in memory as it is laid out on
 * disk: a segment header followed by fixed 64-byte records.  Reads verify a
 * random record (key, sequence number, length and a checksum over the
 * payload).  The segment buffer is cache-line aligned; with -DBAD the header
 * is the 8 bytes it needs, so every record starts at offset 8 of a line and
 * straddles two lines; otherwise the header is padded to a full line and
 * every record fills exactly one.
 *
 * Usage: packed_wire_records [READS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRECORDS (128 * 1024)

#ifdef BAD
#define HEADER_SIZE 8
#else
#define HEADER_SIZE 64
#endif

struct seg_header {
	uint32_t magic;
	uint32_t nrecords;
};

struct record {
	uint64_t key;
	uint64_t seq;
	uint32_t len;
	uint32_t crc;
	uint8_t payload[40];
};

_Static_assert(sizeof(struct record) == 64, "one line per record");

static uint8_t *segment;

static inline struct record *record_at(uint32_t i)
{
	return (struct record *)(segment + HEADER_SIZE + (size_t)i * sizeof(struct record));
}

static uint32_t payload_crc(const struct record *r)
{
	uint32_t c = 0;

	for (int i = 0; i < 40; i += 8) {
		uint64_t w;

		memcpy(&w, r->payload + i, 8);
		c = (c ^ (uint32_t)w ^ (uint32_t)(w >> 32)) * 16777619u;
	}
	return c;
}

static uint64_t verify_records(long reads)
{
	uint64_t rng = 0x2545f4914f6cdd1dull, ok = 0;

	for (long n = 0; n < reads; n++) {
		const struct record *r;

		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		r = record_at((uint32_t)(rng % NRECORDS));
		if (r->len <= 40 && payload_crc(r) == r->crc)
			ok += r->key ^ r->seq;
	}
	return ok;
}

int main(int argc, char **argv)
{
	long reads = argc > 1 ? atol(argv[1]) : 40000000;
	struct seg_header *h;

	segment = aligned_alloc(64, 64 + (size_t)NRECORDS * sizeof(struct record));
	if (!segment)
		return 1;
	h = (struct seg_header *)segment;
	h->magic = 0x53454731;
	h->nrecords = NRECORDS;
	for (uint32_t i = 0; i < NRECORDS; i++) {
		struct record *r = record_at(i);

		r->key = (uint64_t)i * 2654435761u;
		r->seq = i;
		r->len = 40;
		for (int k = 0; k < 40; k++)
			r->payload[k] = (uint8_t)(i + k * 7);
		r->crc = payload_crc(r);
	}
	printf("checksum %llu\n", (unsigned long long)verify_records(reads));
	free(segment);
	return 0;
}
