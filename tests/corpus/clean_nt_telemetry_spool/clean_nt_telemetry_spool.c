// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_nt_telemetry_spool: the spooler of a telemetry agent.  Every tick
 * it takes one record per source (a timestamp, the source id and 16 gauge
 * readings), encodes it the way the collector's wire format wants it
 * (deltas against the source's previous record, zigzag, LEB128 varints),
 * seals the 128-byte slot with a CRC32 over the encoded bytes and appends
 * it to a 256 MiB spool ring.  The ring is drained by a DMA engine (here
 * nothing reads it): the program never reads a slot back, so the slots are
 * written with non-temporal stores (_mm_stream_si128) and fenced once per
 * batch (_mm_sfence) before the producer index is published.
 * A clean control: the time goes to the encoding and the checksum; the
 * write-only spool already bypasses the caches, and it is written
 * sequentially once per pass.
 *
 * Usage: clean_nt_telemetry_spool [TICKS]
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPOOL_BYTES	(256ul << 20)
#define SLOT		128
#define NSLOTS		(SPOOL_BYTES / SLOT)
#define NSOURCES	512		/* records per tick, one batch */
#define NGAUGES		16
#define SLOT_MAGIC	0x54e1u

struct slot {
	uint16_t magic;
	uint8_t len;			/* encoded payload bytes */
	uint8_t kind;
	uint32_t seq;
	uint8_t payload[SLOT - 12];
	uint32_t crc;			/* CRC32 of header bytes 0-7 and payload[0..len) */
};

struct source {
	uint64_t last_ts;
	int64_t last[NGAUGES];
	uint32_t rng;
	uint16_t id;
};

struct spool {
	struct slot *ring;
	uint64_t head;			/* slots written so far */
	volatile uint64_t published;	/* what the drain side may read up to */
};

static uint32_t crc_table[256];

static void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static uint32_t crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint32_t xorshift(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* The readings of one source at time ts: a random walk per gauge. */
static void sample(struct source *src, int64_t *now)
{
	for (int g = 0; g < NGAUGES; g++) {
		uint32_t r = xorshift(&src->rng);
		int shift = 4 + (g & 7) * 3;	/* counters move fast, temperatures slowly */

		now[g] = src->last[g] + ((int64_t)(r & 0xffff) - 0x8000) * ((int64_t)1 << shift >> 4);
	}
}

/* Encode one record into slot *s (a cached staging copy). */
static void encode(struct slot *s, struct source *src, uint64_t ts, uint32_t seq)
{
	int64_t now[NGAUGES];
	uint8_t *p = s->payload;

	sample(src, now);
	p = put_varint(p, ts - src->last_ts);
	p = put_varint(p, src->id);
	for (int g = 0; g < NGAUGES; g++) {
		p = put_varint(p, zigzag(now[g] - src->last[g]));
		src->last[g] = now[g];
	}
	src->last_ts = ts;
	s->magic = SLOT_MAGIC;
	s->len = (uint8_t)(p - s->payload);
	s->kind = 1;
	s->seq = seq;
	memset(p, 0, sizeof(s->payload) - s->len);
	s->crc = crc32(crc32(0, (const uint8_t *)s, 8), s->payload, s->len);
}

static __attribute__((noinline)) uint32_t spool_tick(struct spool *sp, struct source *srcs,
						     uint64_t ts)
{
	union {
		struct slot s;
		__m128i v[SLOT / 16];
	} stage;
	uint32_t fold = 0;

	for (int i = 0; i < NSOURCES; i++) {
		__m128i *dst = (__m128i *)&sp->ring[sp->head % NSLOTS];

		encode(&stage.s, &srcs[i], ts + (uint64_t)i * 37, (uint32_t)sp->head);
		for (int k = 0; k < SLOT / 16; k++)
			_mm_stream_si128(dst + k, stage.v[k]);
		fold ^= stage.s.crc;
		sp->head++;
	}
	_mm_sfence();
	sp->published = sp->head;
	return fold;
}

int main(int argc, char **argv)
{
	long ticks = argc > 1 ? atol(argv[1]) : 12000;
	struct spool sp = { aligned_alloc(4096, SPOOL_BYTES), 0, 0 };
	struct source *srcs = calloc(NSOURCES, sizeof(*srcs));
	uint32_t fold = 0;
	uint64_t ts = 1700000000000000ull;

	_Static_assert(sizeof(struct slot) == SLOT, "slot size");
	if (!sp.ring || !srcs)
		return 1;
	crc32_init();
	for (int i = 0; i < NSOURCES; i++) {
		srcs[i].id = (uint16_t)(i * 7 + 100);
		srcs[i].rng = 0x9e3779b9u ^ (uint32_t)i * 2654435761u;
		srcs[i].last_ts = ts;
		for (int g = 0; g < NGAUGES; g++)
			srcs[i].last[g] = (int64_t)(xorshift(&srcs[i].rng) & 0xfffff);
	}
	for (long t = 0; t < ticks; t++) {
		ts += 1000000 + (uint64_t)(t & 255);
		fold ^= spool_tick(&sp, srcs, ts);
	}
	printf("published %llu slots, crc fold %08x\n", (unsigned long long)sp.published, fold);
	free(srcs);
	free(sp.ring);
	return 0;
}
