/*
 * rec_item_scores: a recommender scores every item for a batch of users
 * from a user x item affinity matrix (row-major, one row per user):
 * score[j] = sum_i w[i] * A[i][j]. BAD computes one item at a time and so
 * walks the matrix down a column (stride = row pitch, 12000 bytes); GOOD
 * keeps the same sums but runs the user loop outside, streaming each row.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define USERS	3000
#define ITEMS	3000

static void fill(float *a, float *w)
{
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < (size_t)USERS * ITEMS; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		a[i] = (float)(x & 0xff) / 256.0f;
	}
	for (int i = 0; i < USERS; i++)
		w[i] = 1.0f / (1 + i % 17);
}

static __attribute__((noinline)) void score_items(const float *a, const float *w, float *score)
{
#ifdef BAD
	for (int j = 0; j < ITEMS; j++) {
		float s = 0;

		for (int i = 0; i < USERS; i++)
			s += w[i] * a[(size_t)i * ITEMS + j];
		score[j] = s;
	}
#else
	for (int j = 0; j < ITEMS; j++)
		score[j] = 0;
	for (int i = 0; i < USERS; i++) {
		const float *row = a + (size_t)i * ITEMS;

		for (int j = 0; j < ITEMS; j++)
			score[j] += w[i] * row[j];
	}
#endif
}

int main(int argc, char **argv)
{
	int batches = argc > 1 ? atoi(argv[1]) : 120;
	float *a = malloc((size_t)USERS * ITEMS * sizeof(float));
	float *w = malloc(USERS * sizeof(float));
	float *score = malloc(ITEMS * sizeof(float));
	double check = 0;

	if (!a || !w || !score)
		return 1;
	fill(a, w);
	for (int b = 0; b < batches; b++) {
		w[b % USERS] += 0.5f;
		score_items(a, w, score);
		int best = 0;
		for (int j = 1; j < ITEMS; j++)
			if (score[j] > score[best])
				best = j;
		check += best + score[b % ITEMS];
	}
	printf("checksum %.2f\n", check);
	free(a);
	free(w);
	free(score);
	return 0;
}
