// SPDX-License-Identifier: GPL-2.0-only
/*
 * A CSV key de-duplicator of a billing export: rows such as
 *
 *   cust-00048213,2024-06-03,EUR,1843.27
 *
 * are split into fields with memchr, their keys copied into an array of
 * fixed-size records (the key inline, 32 bytes a record, contiguous),
 * sorted by key with a memcmp comparator, and the duplicates counted and
 * their amounts summed; a few rounds, each over a fresh export.
 *
 * Clean control: the scan is one sequential pass over the text, the record
 * array is walked in order by the sort's merges and the final pass, the
 * keys are inline (no pointer to follow), one thread.  Much of the time is
 * in glibc's AVX2 memchr and memcmp, whose vector compares must be left
 * alone by any instrumentation: the program prints one checksum of all it
 * computed, the same in every run.
 *
 * Usage: clean_csv_key_dedup [ROWS [ROUNDS]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	char key[24];		/* "cust-00048213", NUL padded */
	uint32_t day;
	uint32_t cents;
};

static uint32_t xorshift(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* The export: ROWS lines, customers drawn from a pool so that keys repeat. */
static size_t make_export(char *buf, size_t rows, uint32_t *seed)
{
	char *p = buf;
	uint32_t pool = (uint32_t)(rows / 3 + 1);

	for (size_t i = 0; i < rows; i++) {
		uint32_t c = xorshift(seed) % pool, d = xorshift(seed) % 28 + 1;
		uint32_t cents = xorshift(seed) % 500000;

		p += sprintf(p, "cust-%08u,2024-06-%02u,EUR,%u.%02u\n", c * 7919u % 100000000u, d,
			     cents / 100, cents % 100);
	}
	return (size_t)(p - buf);
}

static uint32_t parse_u32(const char *p, const char *end, const char **next)
{
	uint32_t v = 0;

	while (p < end && *p >= '0' && *p <= '9')
		v = v * 10 + (uint32_t)(*p++ - '0');
	*next = p;
	return v;
}

/* Split the lines into records; the number of records. */
static size_t split(const char *buf, size_t len, struct rec *r)
{
	const char *p = buf, *end = buf + len;
	size_t n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *c1 = memchr(p, ',', (size_t)(nl - p)), *c2, *c3, *q;
		size_t klen = (size_t)(c1 - p);

		memset(r[n].key, 0, sizeof(r[n].key));
		memcpy(r[n].key, p, klen < sizeof(r[n].key) ? klen : sizeof(r[n].key) - 1);
		c2 = memchr(c1 + 1, ',', (size_t)(nl - c1 - 1));
		c3 = memchr(c2 + 1, ',', (size_t)(nl - c2 - 1));
		r[n].day = parse_u32(c2 - 2, c2, &q);
		r[n].cents = parse_u32(c3 + 1, nl, &q) * 100;
		if (q < nl && *q == '.')
			r[n].cents += parse_u32(q + 1, nl, &q);
		n++;
		p = nl + 1;
	}
	return n;
}

static int by_key(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c = memcmp(x->key, y->key, sizeof(x->key));

	return c ? c : (x->day > y->day) - (x->day < y->day);
}

int main(int argc, char **argv)
{
	size_t rows = argc > 1 ? strtoul(argv[1], NULL, 0) : 600000;
	int rounds = argc > 2 ? atoi(argv[2]) : 6;
	char *buf = malloc(rows * 48 + 64);
	struct rec *r = malloc(rows * sizeof(*r));
	uint64_t sum = 0;
	uint32_t seed = 2463534242u;

	if (!buf || !r || !rows) {
		fprintf(stderr, "clean_csv_key_dedup: out of memory\n");
		return 1;
	}
	for (int k = 0; k < rounds; k++) {
		size_t len = make_export(buf, rows, &seed);
		size_t n = split(buf, len, r), dups = 0;
		uint64_t dup_cents = 0;

		qsort(r, n, sizeof(*r), by_key);
		for (size_t i = 1; i < n; i++)
			if (!memcmp(r[i].key, r[i - 1].key, sizeof(r[i].key))) {
				dups++;
				dup_cents += r[i].cents;
			}
		sum = sum * 1000003 + dups;
		sum = sum * 1000003 + dup_cents;
		sum = sum * 1000003 + strlen(r[n / 2].key) + r[n / 2].day;
		printf("round %d: %zu rows, %zu duplicates, %llu.%02llu EUR\n", k, n, dups,
		       (unsigned long long)(dup_cents / 100), (unsigned long long)(dup_cents % 100));
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	free(buf);
	free(r);
	return 0;
}
