/*
 * img_column_profile: a document scanner finds page margins from the
 * column profile of a 16-bit grayscale scan (the sum of every column).
 * BAD walks the row-major image column by column (stride = row pitch,
 * 12000 bytes); GOOD walks it row by row and accumulates all column sums
 * at once, so consecutive accesses share cache lines and pages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WIDTH	6000
#define HEIGHT	4000

struct scan {
	int width, height;
	uint16_t *pix;		/* row-major, pitch = width */
};

static void scan__synth(struct scan *s)
{
	uint64_t x = 88172645463325252ull;

	for (size_t i = 0; i < (size_t)s->width * s->height; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		s->pix[i] = (uint16_t)(x & 0x0fff);
	}
}

static __attribute__((noinline)) void column_profile(const struct scan *s, uint64_t *prof)
{
#ifdef BAD
	for (int x = 0; x < s->width; x++) {
		uint64_t sum = 0;

		for (int y = 0; y < s->height; y++)
			sum += s->pix[(size_t)y * s->width + x];
		prof[x] = sum;
	}
#else
	for (int x = 0; x < s->width; x++)
		prof[x] = 0;
	for (int y = 0; y < s->height; y++) {
		const uint16_t *row = s->pix + (size_t)y * s->width;

		for (int x = 0; x < s->width; x++)
			prof[x] += row[x];
	}
#endif
}

static int margin(const uint64_t *prof, int width)
{
	uint64_t mean = 0;
	int x;

	for (x = 0; x < width; x++)
		mean += prof[x];
	mean /= width;
	for (x = 0; x < width && prof[x] < mean; x++)
		;
	return x;
}

int main(int argc, char **argv)
{
	int pages = argc > 1 ? atoi(argv[1]) : 150;
	struct scan s = { WIDTH, HEIGHT, NULL };
	uint64_t *prof = calloc(WIDTH, sizeof(*prof));
	uint64_t check = 0;

	s.pix = malloc((size_t)WIDTH * HEIGHT * sizeof(*s.pix));
	if (!s.pix || !prof)
		return 1;
	scan__synth(&s);
	for (int p = 0; p < pages; p++) {
		s.pix[(size_t)p * 7919 % ((size_t)WIDTH * HEIGHT)] ^= (uint16_t)p;
		column_profile(&s, prof);
		check += margin(prof, WIDTH) + prof[p % WIDTH];
	}
	printf("checksum %llu\n", (unsigned long long)check);
	free(prof);
	free(s.pix);
	return 0;
}
