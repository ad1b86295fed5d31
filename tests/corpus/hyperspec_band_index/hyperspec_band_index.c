// SPDX-License-Identifier: GPL-2.0-only
/*
 * hyperspec_band_index: the index stage of an airborne imaging-spectrometer
 * processing chain.  Every scene tile (512 x 512 pixels, 24 bands picked
 * from the sensor's VNIR/SWIR range, 16-bit radiance counts) is decoded into
 * one band-sequential cube and run through a library of linear spectral
 * indices: index k at pixel p is
 *
 *     idx[p] = sum_b coef_k[b] * band[b][p]
 *
 * where coef_k folds the per-band radiometric gain into the index weights
 * (vegetation, water, iron-oxide, clay, ... contrasts built from Gaussian
 * lobes over the band centres).  The mean, the spread and a coarse histogram
 * of every index map go into the tile summary.
 *
 * The band planes are carved out of one page-aligned block, one after the
 * other.  With -DBAD the plane pitch is exactly the plane's size,
 * 512 * 512 * 2 bytes = 512 KiB; otherwise each plane starts one cache line
 * later than that.
 *
 * Usage: hyperspec_band_index [TILES]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBANDS		24
#define LINES		512
#define SAMPLES		512
#define NPIX		(LINES * SAMPLES)
#define PLANE_BYTES	((size_t)NPIX * sizeof(uint16_t))	/* 512 KiB */
#ifdef BAD
#define PLANE_PITCH	PLANE_BYTES
#else
#define PLANE_PITCH	(PLANE_BYTES + 64)	/* one spare cache line per plane */
#endif
#define NINDEX		15
#define HBINS		32

/* band centres, nm: 8 VNIR, 16 SWIR */
static const float band_nm[NBANDS] = {
	450, 490, 530, 560, 620, 665, 705, 740,
	783, 842, 865, 945, 1040, 1240, 1375, 1560,
	1610, 1650, 1730, 2080, 2165, 2200, 2260, 2330,
};

/* an index is a difference of Gaussian lobes over the spectrum */
struct index_def {
	const char *name;
	float pos_nm, pos_w;		/* the positive lobe: centre, width */
	float neg_nm, neg_w;		/* the negative lobe */
};

static const struct index_def index_lib[NINDEX] = {
	{"ndvi",	842, 60,  665, 40},
	{"red-edge",	740, 30,  705, 20},
	{"green",	560, 40,  665, 40},
	{"ndwi",	560, 50,  842, 60},
	{"mndwi",	560, 50, 1610, 80},
	{"nbr",		842, 60, 2200, 80},
	{"ferric",	783, 80,  490, 50},
	{"ferrous",	1650, 90, 842, 50},
	{"clay",	1650, 80, 2200, 40},
	{"carbonate",	2260, 40, 2330, 30},
	{"kaolinite",	2165, 30, 2200, 30},
	{"moisture",	865, 50, 1610, 60},
	{"cirrus",	1375, 30, 1240, 60},
	{"snow",	560, 60, 1650, 80},
	{"chlorophyll",	705, 25, 665, 25},
};

struct scene {
	unsigned char *block;		/* all planes, one allocation */
	uint16_t *band[NBANDS];		/* radiance counts, NPIX each */
	float gain[NBANDS];		/* W m^-2 sr^-1 um^-1 per count */
};

/* per band and detector (column): dark level in DN, flat-field gain and
 * its inverse, the detector's relative response */
struct calib {
	float dark[NBANDS][SAMPLES];
	float flat[NBANDS][SAMPLES];
	float resp[NBANDS][SAMPLES];
};

struct index_map {
	float coef[NBANDS];		/* per count, the gain folded in */
	float *val;			/* NPIX floats */
};

struct summary {
	double mean[NINDEX], spread[NINDEX];
	unsigned long hist[NINDEX][HBINS];
};

static uint64_t rng_state;

static uint32_t rng_next(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

static int scene_init(struct scene *s)
{
	size_t bytes = ((size_t)NBANDS * PLANE_PITCH + 4095) & ~(size_t)4095;

	s->block = aligned_alloc(4096, bytes);
	if (!s->block)
		return -1;
	memset(s->block, 0, bytes);
	for (int b = 0; b < NBANDS; b++)
		s->band[b] = (uint16_t *)(s->block + (size_t)b * PLANE_PITCH);
	return 0;
}

static void calib_load(struct calib *cal)
{
	rng_state = 0x6a09e667f3bcc909ull;
	for (int b = 0; b < NBANDS; b++)
		for (int x = 0; x < SAMPLES; x++) {
			cal->dark[b][x] = 180.0f + (float)(rng_next() % 41);
			cal->flat[b][x] = 0.95f + 0.1f * (float)(rng_next() % 1001) / 1000.0f;
			cal->resp[b][x] = 1.0f / cal->flat[b][x];
		}
}

/*
 * Stands in for reading one tile of the flight line: the pushbroom sensor's
 * 12-bit DNs (two samples in three bytes, one detector line at a time) over
 * a field map of four surface types (vegetation, soil, water, rock) in
 * 16 x 16 blocks, each with its reflectance curve, times a smooth
 * illumination term, plus the detector's dark level and noise.  Decoding
 * unpacks the DNs and applies the per-detector dark and flat-field
 * calibration into 16-bit radiance counts.
 */
static void scene_load(struct scene *s, struct calib *cal, int tile)
{
	static uint8_t cover[LINES / 16][SAMPLES / 16];
	static const float refl[4][NBANDS] = {
		{.04f, .05f, .08f, .09f, .06f, .04f, .15f, .35f, .45f, .48f, .48f, .46f,
		 .44f, .38f, .05f, .28f, .27f, .26f, .22f, .12f, .14f, .13f, .12f, .10f},
		{.10f, .12f, .15f, .17f, .21f, .23f, .25f, .27f, .28f, .30f, .31f, .32f,
		 .34f, .36f, .08f, .39f, .40f, .40f, .39f, .35f, .33f, .28f, .31f, .30f},
		{.06f, .07f, .07f, .06f, .04f, .03f, .02f, .02f, .01f, .01f, .01f, .01f,
		 .01f, .01f, .00f, .00f, .00f, .00f, .00f, .00f, .00f, .00f, .00f, .00f},
		{.18f, .19f, .21f, .22f, .24f, .25f, .26f, .26f, .27f, .27f, .28f, .28f,
		 .29f, .30f, .10f, .32f, .33f, .33f, .32f, .30f, .26f, .22f, .27f, .24f},
	};
	uint8_t raw[SAMPLES / 2 * 3];		/* one packed detector line */

	rng_state = 0x2545f4914f6cdd1dull ^ (uint64_t)tile * 0x9e3779b97f4a7c15ull;
	for (int y = 0; y < LINES / 16; y++)
		for (int x = 0; x < SAMPLES / 16; x++)
			cover[y][x] = (uint8_t)(rng_next() % 4);
	for (int b = 0; b < NBANDS; b++) {
		uint16_t *plane = s->band[b];
		const float *dark = cal->dark[b], *flat = cal->flat[b], *resp = cal->resp[b];
		float scale;
		float solar = 3400.0f * expf(-(band_nm[b] - 500.0f) * (band_nm[b] - 500.0f) / 2.0e6f);

		s->gain[b] = 0.02f * (1.0f + 0.01f * (float)((b * 7 + tile) % 5));
		scale = 16.0f * 0.02f / s->gain[b];
		for (int y = 0; y < LINES; y++) {
			float illum = 0.85f + 0.15f * sinf((float)(y + tile * 37) * 0.0123f);
			uint16_t *row = plane + (size_t)y * SAMPLES;

			/* the sensor: 12-bit DNs, packed */
			for (int x = 0; x < SAMPLES; x += 2) {
				int dn[2];

				for (int i = 0; i < 2; i++) {
					float r = refl[cover[y / 16][(x + i) / 16]][b];
					int v = (int)(solar * r * illum * resp[x + i] + dark[x + i]) +
						(int)(rng_next() & 15) - 8;

					dn[i] = v < 0 ? 0 : v > 4095 ? 4095 : v;
				}
				raw[x / 2 * 3] = (uint8_t)dn[0];
				raw[x / 2 * 3 + 1] = (uint8_t)((dn[0] >> 8) | (dn[1] << 4));
				raw[x / 2 * 3 + 2] = (uint8_t)(dn[1] >> 4);
			}
			/* the decoder: unpack, subtract the dark level, flat-field */
			for (int x = 0; x < SAMPLES; x += 2) {
				const uint8_t *q = raw + x / 2 * 3;
				int dn0 = q[0] | (q[1] & 0x0f) << 8, dn1 = q[1] >> 4 | q[2] << 4;
				float c0 = ((float)dn0 - dark[x]) * flat[x] * scale;
				float c1 = ((float)dn1 - dark[x + 1]) * flat[x + 1] * scale;

				row[x] = (uint16_t)(c0 < 0.0f ? 0.0f : c0 > 65535.0f ? 65535.0f : c0);
				row[x + 1] = (uint16_t)(c1 < 0.0f ? 0.0f : c1 > 65535.0f ? 65535.0f : c1);
			}
		}
	}
}

static void index_build(struct index_map *m, const struct scene *s, const struct index_def *d)
{
	float pos = 0.0f, neg = 0.0f, wp[NBANDS], wn[NBANDS];

	for (int b = 0; b < NBANDS; b++) {
		float dp = (band_nm[b] - d->pos_nm) / d->pos_w;
		float dn = (band_nm[b] - d->neg_nm) / d->neg_w;

		wp[b] = expf(-0.5f * dp * dp);
		wn[b] = expf(-0.5f * dn * dn);
		pos += wp[b];
		neg += wn[b];
	}
	for (int b = 0; b < NBANDS; b++)
		m->coef[b] = (wp[b] / pos - wn[b] / neg) * s->gain[b];
}

/* the hot loop: all 24 planes walked together, one pixel index */
static __attribute__((noinline)) void index_apply(struct index_map *m, const struct scene *s)
{
	float *out = m->val;

	for (int p = 0; p < NPIX; p++) {
		float acc = 0.0f;

		for (int b = 0; b < NBANDS; b++)
			acc += m->coef[b] * (float)s->band[b][p];
		out[p] = acc;
	}
}

/* mean, spread and a histogram over [-512, 512) of one index map */
static void index_summarize(struct summary *sm, const struct index_map *m, int k)
{
	const float *v = m->val;
	double sum = 0.0, sq = 0.0;

	for (int p = 0; p < NPIX; p++) {
		int bin = (int)((v[p] + 512.0f) * (HBINS / 1024.0f));

		sum += v[p];
		sq += (double)v[p] * v[p];
		bin = bin < 0 ? 0 : bin >= HBINS ? HBINS - 1 : bin;
		sm->hist[k][bin]++;
	}
	sum /= NPIX;
	sm->mean[k] += sum;
	sm->spread[k] += sqrt(sq / NPIX - sum * sum);
}

/*
 * The run's report, as written to the product's sidecar file: per index the
 * mean and spread over the tiles and the 2 % and 98 % points of its
 * histogram (the quicklook's contrast stretch).
 */
static size_t report_write(char *buf, size_t len, const struct summary *sm, int tiles)
{
	size_t n = 0;

	for (int k = 0; k < NINDEX && n < len; k++) {
		unsigned long total = 0, run = 0;
		int lo = -1, hi = -1;

		for (int h = 0; h < HBINS; h++)
			total += sm->hist[k][h];
		for (int h = 0; h < HBINS; h++) {
			run += sm->hist[k][h];
			if (lo < 0 && run * 50 >= total)
				lo = h;
			if (hi < 0 && run * 50 >= total * 49)
				hi = h;
		}
		n += (size_t)snprintf(buf + n, len - n, "%-12s mean %9.3f spread %8.3f stretch %5d %5d\n",
				      index_lib[k].name, sm->mean[k] / tiles, sm->spread[k] / tiles,
				      lo * (1024 / HBINS) - 512, (hi + 1) * (1024 / HBINS) - 512);
	}
	return n < len ? n : len;
}

int main(int argc, char **argv)
{
	int tiles = argc > 1 ? atoi(argv[1]) : 10;
	static struct summary sm;
	static struct calib cal;
	static char report[4096];
	struct scene sc;
	struct index_map m;
	double check = 0.0;
	size_t rlen;

	if (scene_init(&sc))
		return 1;
	calib_load(&cal);
	m.val = malloc(NPIX * sizeof(float));
	if (!m.val)
		return 1;
	for (int t = 0; t < tiles; t++) {
		scene_load(&sc, &cal, t);
		for (int k = 0; k < NINDEX; k++) {
			index_build(&m, &sc, &index_lib[k]);
			index_apply(&m, &sc);
			index_summarize(&sm, &m, k);
			check += m.val[(t * 40503 + k * 977) % NPIX];
		}
	}
	rlen = report_write(report, sizeof(report), &sm, tiles);
	for (size_t i = 0; i < rlen; i++)
		check += (double)(unsigned char)report[i] * 1e-3;
	printf("checksum %.6f\n", check);
	free(m.val);
	free(sc.block);
	return 0;
}
