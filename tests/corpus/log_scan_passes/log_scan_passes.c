/*
 * log_scan_passes: an analytics job loads 256 MiB of fixed-size access-log
 * records (32 bytes) and answers four queries, each one sequential pass
 * over all records (status histogram, bytes per hour, slow requests, top
 * client bucket). Clean control: the passes are sequential and prefetched,
 * each page is used for 128 consecutive records, so neither huge pages nor
 * a different layout would change much; the first-touch faults happen
 * once while loading.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NREC	(8u << 20)	/* x 32 bytes = 256 MiB */

struct logrec {
	uint32_t ts;
	uint32_t client;
	uint32_t bytes;
	uint16_t status;
	uint16_t method;
	uint32_t latency_us;
	uint32_t path_hash;
	uint64_t pad;
};

static __attribute__((noinline)) uint64_t query_pass(const struct logrec *r, int q)
{
	uint64_t acc[64] = { 0 }, out = 0;

	for (uint32_t i = 0; i < NREC; i++) {
		switch (q) {
		case 0: acc[r[i].status & 63]++; break;
		case 1: acc[(r[i].ts / 3600) & 63] += r[i].bytes; break;
		case 2: acc[0] += r[i].latency_us > 200000; break;
		default: acc[r[i].client & 63] += r[i].path_hash & 1; break;
		}
	}
	for (int k = 0; k < 64; k++)
		out = out * 31 + acc[k];
	return out;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	struct logrec *r = malloc((size_t)NREC * sizeof(*r));
	uint32_t x = 2463534242u;
	uint64_t check = 0;

	if (!r)
		return 1;
	for (uint32_t i = 0; i < NREC; i++) {		/* load */
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		r[i] = (struct logrec){ i / 97, x & 0xffff, x >> 20, (uint16_t)(200 + (x & 3) * 100),
				       (uint16_t)(x >> 30), x >> 12, x * 2654435761u, 0 };
	}
	for (int k = 0; k < rounds; k++)
		for (int q = 0; q < 4; q++)
			check += query_pass(r, q);
	printf("checksum %llu\n", (unsigned long long)check);
	free(r);
	return 0;
}
