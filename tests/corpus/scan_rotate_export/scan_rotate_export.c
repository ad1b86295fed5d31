/*
 * scan_rotate_export: the export stage of a sheet-fed document scanner.
 * Pages are fed sideways (landscape, 7016 x 4960 pixels of 16-bit grayscale
 * at 600 dpi) and must be rotated 90 degrees clockwise into portrait
 * (4960 x 7016) before they are encoded; while rotating, the stage also
 * gathers the page's min/max/sum for blank-page detection and auto-levels.
 *
 * BAD reads the landscape page row by row and writes each input row down
 * one column of the portrait page: consecutive stores are one output row
 * (9920 bytes) apart, every 2-byte store lands on another cache line and
 * another page.  GOOD does the same rotation in 64 x 64 tiles, so the
 * output lines a tile writes are completed while they are still in L1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IN_W	7016		/* landscape scan: pixels per row */
#define IN_H	4960		/* landscape scan: rows */
#define TILE	64

struct page {
	int width, height;
	uint16_t *pix;		/* row-major, pitch = width */
};

/* per-page statistics for blank-page detection and auto-levels (16 bytes) */
struct page_stats {
	uint32_t min, max;
	uint64_t sum;
};

static void page__acquire(struct page *p, uint64_t seed)
{
	uint64_t x = seed;

	for (size_t i = 0; i < (size_t)p->width * p->height; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		p->pix[i] = (uint16_t)(x & 0x0fff);
	}
}

/* fold one input row into the page statistics */
static inline void stats__row(struct page_stats *st, const uint16_t *row, int n)
{
	uint32_t mn = UINT32_MAX, mx = 0;
	uint64_t sum = 0;

	for (int x = 0; x < n; x++) {
		mn = row[x] < mn ? row[x] : mn;
		mx = row[x] > mx ? row[x] : mx;
		sum += row[x];
	}
	if (mn < st->min)
		st->min = mn;
	if (mx > st->max)
		st->max = mx;
	st->sum += sum;
}

/* rotate 90 degrees clockwise: out(x, H-1-y) = in(y, x); out is in->height wide */
static __attribute__((noinline)) void rotate_cw(const struct page *in, struct page *out,
						struct page_stats *st)
{
	const int w = in->width, h = in->height;
	const size_t opitch = (size_t)out->width;

	st->min = UINT32_MAX;
	st->max = 0;
	st->sum = 0;
#ifdef BAD
	for (int y = 0; y < h; y++) {
		const uint16_t *row = in->pix + (size_t)y * w;
		uint16_t *col = out->pix + (h - 1 - y);

		stats__row(st, row, w);
		for (int x = 0; x < w; x++)
			col[(size_t)x * opitch] = row[x];
	}
#else
	for (int ty = 0; ty < h; ty += TILE) {
		const int yn = ty + TILE < h ? TILE : h - ty;

		for (int i = 0; i < yn; i++)
			stats__row(st, in->pix + (size_t)(ty + i) * w, w);
		for (int tx = 0; tx < w; tx += TILE) {
			const int xn = tx + TILE < w ? TILE : w - tx;

			for (int i = 0; i < yn; i++) {
				const uint16_t *row = in->pix + (size_t)(ty + i) * w + tx;
				uint16_t *col = out->pix + (size_t)tx * opitch + (h - 1 - ty - i);

				for (int x = 0; x < xn; x++)
					col[(size_t)x * opitch] = row[x];
			}
		}
	}
#endif
}

/* 12-bit sensor value -> 8-bit output, gamma 1/2 (integer square root) */
static uint8_t tone_lut[4096];

static void tone__init(void)
{
	for (uint32_t v = 0, r = 0; v < 4096; v++) {
		while ((r + 1) * (r + 1) <= v * 16)
			r++;
		tone_lut[v] = r > 255 ? 255 : (uint8_t)r;
	}
}

/*
 * The encoder's pass over the portrait page: tone-map each row to 8 bits,
 * apply the PNG "Up" filter (difference to the previous row) and run the
 * filtered scanlines (filter byte first) through Adler-32, as the zlib
 * stream of a PNG would carry them.
 */
static uint32_t export_page(const struct page *p, uint8_t *cur, uint8_t *prev)
{
	uint64_t a = 1, b = 0;

	memset(prev, 0, p->width);
	for (int y = 0; y < p->height; y++) {
		const uint16_t *row = p->pix + (size_t)y * p->width;

		b += a += 2;			/* filter type 2: Up */
		for (int x = 0; x < p->width; x++) {
			uint8_t v = tone_lut[row[x] & 0x0fff];

			a += (uint8_t)(v - prev[x]);
			b += a;
			cur[x] = v;
		}
		a %= 65521;
		b %= 65521;
		uint8_t *t = prev; prev = cur; cur = t;
	}
	return (uint32_t)(b << 16 | a);
}

int main(int argc, char **argv)
{
	int pages = argc > 1 ? atoi(argv[1]) : 14;
	struct page in = { IN_W, IN_H, NULL }, out = { IN_H, IN_W, NULL };
	struct page_stats st;		/* sizeof 16: divides both pitches */
	uint64_t check = 0;
	size_t n = (size_t)IN_W * IN_H;
	uint8_t *cur = malloc(IN_H), *prev = malloc(IN_H);

	/* rows of the portrait page start on a cache line (pitch 9920 = 155 * 64) */
	in.pix = aligned_alloc(64, n * sizeof(*in.pix));
	out.pix = aligned_alloc(64, n * sizeof(*out.pix));
	if (!in.pix || !out.pix || !cur || !prev)
		return 1;
	tone__init();
	page__acquire(&in, 88172645463325252ull);
	for (int p = 0; p < pages; p++) {
		/* the next sheet: a few pixels differ from the last one */
		for (size_t i = (size_t)p * 7919; i < n; i += 104729)
			in.pix[i] ^= (uint16_t)(p * 37 + 1);
		rotate_cw(&in, &out, &st);
		check = check * 31 + export_page(&out, cur, prev);
		check += st.min + ((uint64_t)st.max << 16) + st.sum;
	}
	printf("checksum %llu\n", (unsigned long long)check);
	free(prev);
	free(cur);
	free(out.pix);
	free(in.pix);
	return 0;
}
