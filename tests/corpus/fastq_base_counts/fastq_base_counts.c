// SPDX-License-Identifier: GPL-2.0-only
/*
 * The base-composition stage of a sequencing-read QC tool.  Two worker
 * threads each take one lane of FASTQ records (4 lines: header, sequence,
 * '+', qualities), walk the sequence and quality lines, and tally every base
 * into their own row of a shared table, base_counts[worker][bin]: A, C, G,
 * T, N, other IUPAC codes, and (added once per read) the bases below Q20
 * and Q30.  Each lane also builds its own canonical 9-mer spectrum and
 * quality sums per read position.  The main thread merges the rows at the
 * end; the workers never read each other's row.
 *
 * With -DBAD a row is its 8 counters, 32 bytes, and both rows share the
 * table's one cache line: every increment takes the line from the other
 * core.  Otherwise each row is padded to 64 bytes, a line of its own.
 * The table is line-aligned in both.  A lane is about 500 KiB of text
 * (in L2) and is parsed PASSES times, standing in for a long run of lanes.
 *
 * Usage: fastq_base_counts [PASSES]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS 2
#define NREADS 1500		/* reads per lane */
#define READ_LEN 150
#define NBINS 8
#define KMER_K 9		/* k-mer spectrum of the lane: 4^9 counters, 1 MiB */
#define KMER_MASK ((1u << 2 * KMER_K) - 1)

enum { BIN_A, BIN_C, BIN_G, BIN_T, BIN_N, BIN_IUPAC, BIN_LOWQ20, BIN_LOWQ30 };

#ifdef BAD
#define ROW_STRIDE NBINS				/* 32-byte rows */
#else
#define ROW_STRIDE (64 / sizeof(uint32_t))	/* a line per row */
#endif

static uint32_t base_counts[NWORKERS][ROW_STRIDE] __attribute__((aligned(64)));

static uint8_t base_bin[256];

struct lane {
	int id;
	long passes;
	size_t len;
	char *text;		/* FASTQ records, back to back */
	uint32_t *kmers;	/* the lane's own k-mer counts */
	uint64_t qual_sum[READ_LEN];	/* per read position, for the quality plot */
};

static pthread_barrier_t start;

static void init_bins(void)
{
	memset(base_bin, BIN_IUPAC, sizeof(base_bin));
	base_bin['A'] = base_bin['a'] = BIN_A;
	base_bin['C'] = base_bin['c'] = BIN_C;
	base_bin['G'] = base_bin['g'] = BIN_G;
	base_bin['T'] = base_bin['t'] = BIN_T;
	base_bin['N'] = base_bin['n'] = BIN_N;
}

/* A simulated lane: mostly ACGT, a few N and IUPAC codes, qualities that
 * fall off towards the 3' end of the read as on real instruments. */
static void lane__fill(struct lane *l, uint32_t seed)
{
	static const char iupac[] = "RYKMSWBDHV";
	size_t cap = (size_t)NREADS * (2 * READ_LEN + 64), pos = 0;

	l->text = malloc(cap);
	l->kmers = calloc(KMER_MASK + 1, sizeof(*l->kmers));
	if (!l->text || !l->kmers)
		exit(1);
	for (int r = 0; r < NREADS; r++) {
		pos += (size_t)snprintf(l->text + pos, cap - pos,
					"@SIM:1:FC01:%d:%d:%d 1:N:0\n", l->id + 1,
					r / 100, r % 100);
		for (int i = 0; i < READ_LEN; i++) {
			seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5;
			unsigned k = seed % 1000;
			l->text[pos++] = k < 990 ? "ACGT"[seed >> 28 & 3] :
					 k < 997 ? 'N' : iupac[seed >> 24 & 7];
		}
		l->text[pos++] = '\n';
		l->text[pos++] = '+';
		l->text[pos++] = '\n';
		for (int i = 0; i < READ_LEN; i++) {
			seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5;
			int q = 40 - i / 8 - (int)(seed >> 28);
			l->text[pos++] = (char)(33 + (q < 2 ? 2 : q));
		}
		l->text[pos++] = '\n';
	}
	l->len = pos;
}

static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

static void *count_lane(void *arg)
{
	struct lane *l = arg;
	uint32_t *row = base_counts[l->id];
	const char *end = l->text + l->len;
	uint32_t *kmers = l->kmers;
	uint64_t *qual_sum = l->qual_sum;

	pthread_barrier_wait(&start);
	for (long pass = 0; pass < l->passes; pass++) {
		const char *p = l->text;

		while (p < end && *p == '@') {
			const char *seq = next_line(p, end);
			const char *plus = next_line(seq, end);
			const char *qual = next_line(plus, end);
			const char *q = qual;
			uint32_t kmer = 0, rc = 0, low30 = 0, low20 = 0;
			int klen = 0, i = 0;

			for (const char *s = seq; s < plus - 1; s++, q++, i++) {
				unsigned b = base_bin[(uint8_t)*s];

				row[b]++;
				if (i < READ_LEN)
					qual_sum[i] += (uint64_t)(*q - 33);
				low30 += *q < 33 + 30;
				low20 += *q < 33 + 20;
				if (b <= BIN_T) {
					/* canonical k-mer: the smaller of the k-mer and its
					 * reverse complement (A<->T, C<->G is 3 - code) */
					kmer = (kmer << 2 | b) & KMER_MASK;
					rc = rc >> 2 | (3u - b) << (2 * KMER_K - 2);
					if (++klen >= KMER_K)
						kmers[kmer < rc ? kmer : rc]++;
				} else {
					klen = 0;
				}
			}
			row[BIN_LOWQ30] += low30;
			row[BIN_LOWQ20] += low20;
			p = next_line(qual, end);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 2700;
	static const char *const names[NBINS] = {
		"A", "C", "G", "T", "N", "IUPAC", "<Q20", "<Q30" };
	struct lane lanes[NWORKERS];
	pthread_t t[NWORKERS];
	uint64_t total[NBINS] = { 0 }, bases = 0;
	uint32_t top_kmer = 0, top_count = 0;
	uint64_t q_first = 0, q_last = 0;

	init_bins();
	pthread_barrier_init(&start, NULL, NWORKERS);
	for (int i = 0; i < NWORKERS; i++) {
		lanes[i].id = i;
		lanes[i].passes = passes;
		memset(lanes[i].qual_sum, 0, sizeof(lanes[i].qual_sum));
		lane__fill(&lanes[i], 2463534242u + 77u * (uint32_t)i);
	}
	for (int i = 0; i < NWORKERS; i++)
		if (pthread_create(&t[i], NULL, count_lane, &lanes[i]))
			return 1;
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NWORKERS; i++) {
		for (int b = 0; b < NBINS; b++)
			total[b] += base_counts[i][b];
		for (uint32_t k = 0; k <= KMER_MASK; k++)
			if (lanes[i].kmers[k] > top_count) {
				top_count = lanes[i].kmers[k];
				top_kmer = k;
			}
		q_first += lanes[i].qual_sum[0];
		q_last += lanes[i].qual_sum[READ_LEN - 1];
		free(lanes[i].kmers);
		free(lanes[i].text);
	}
	for (int b = 0; b <= BIN_IUPAC; b++)
		bases += total[b];
	for (int b = 0; b < NBINS; b++)
		printf("%s %.4f%s", names[b], (double)total[b] / (double)bases,
		       b + 1 < NBINS ? " " : "\n");
	printf("top %d-mer ", KMER_K);
	for (int i = KMER_K - 1; i >= 0; i--)
		putchar("ACGT"[top_kmer >> 2 * i & 3]);
	printf(" x%u, mean quality Q%.1f at base 1, Q%.1f at base %d\n", top_count,
	       (double)q_first / ((double)passes * NREADS * NWORKERS),
	       (double)q_last / ((double)passes * NREADS * NWORKERS), READ_LEN);
	return 0;
}
