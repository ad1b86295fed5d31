// SPDX-License-Identifier: GPL-2.0-only
/*
 * eeg_montage_reref: the batch step of an EEG review station.  Every
 * recording of a 19-electrode 10-20 cap (16-bit ADC counts, 256 Hz, 512 s)
 * is loaded channel by channel into one recording buffer and re-referenced
 * to a surface-Laplacian montage: derivation e at sample i is
 *
 *     lap[e][i] = sum_k M[e][k] * ch[k][i]
 *
 * where M folds the per-channel calibration (uV per count) into the
 * Laplacian weights (the electrode minus a distance-weighted mean of the
 * others).  The power and the largest one-second swing of every derivation
 * go into the review report.
 *
 * The channel buffers are carved out of one page-aligned block, one after
 * the other.  With -DBAD the channel pitch is exactly the channel's size,
 * 2^17 samples * 2 bytes = 256 KiB; otherwise each channel starts one
 * cache line later than that.
 *
 * Usage: eeg_montage_reref [RECORDINGS]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCH		19
#define RATE		256
#define SAMPLES		(1 << 17)		/* 512 s at 256 Hz */
#define CH_BYTES	(SAMPLES * sizeof(int16_t))	/* 256 KiB */
#ifdef BAD
#define CH_PITCH	CH_BYTES
#else
#define CH_PITCH	(CH_BYTES + 64)		/* one spare cache line per channel */
#endif

/* Fp1 Fp2 F7 F3 Fz F4 F8 T3 C3 Cz C4 T4 T5 P3 Pz P4 T6 O1 O2: azimuth and
 * inclination on the cap, degrees */
static const float cap_pos[NCH][2] = {
	{108, 92}, {72, 92}, {144, 92}, {129, 60}, {90, 46}, {51, 60}, {36, 92},
	{180, 92}, {180, 46}, {0, 0}, {0, 46}, {0, 92}, {-144, 92}, {-129, 60},
	{-90, 46}, {-51, 60}, {-36, 92}, {-108, 92}, {-72, 92},
};

struct recording {
	unsigned char *block;		/* all channels, one allocation */
	int16_t *ch[NCH];		/* ADC counts, SAMPLES each */
	float uv_per_count[NCH];
};

struct montage {
	float m[NCH][NCH];		/* derivation x channel, uV per count */
	float *lap;			/* one derivation, SAMPLES floats */
	double power[NCH];		/* summed over the recordings */
	float swing[NCH];		/* largest 1 s peak-to-peak */
};

static uint64_t rng_state;

static uint32_t rng_next(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

static int recording_init(struct recording *r)
{
	size_t bytes = ((size_t)NCH * CH_PITCH + 4095) & ~(size_t)4095;

	r->block = aligned_alloc(4096, bytes);
	if (!r->block)
		return -1;
	memset(r->block, 0, bytes);
	for (int k = 0; k < NCH; k++)
		r->ch[k] = (int16_t *)(r->block + (size_t)k * CH_PITCH);
	return 0;
}

/* stands in for decoding one recording file: alpha rhythm plus noise */
static void recording_load(struct recording *r, int id)
{
	rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)id * 0x100000001b3ull;
	for (int k = 0; k < NCH; k++) {
		int16_t *c = r->ch[k];
		float amp = 900.0f + 40.0f * (float)((k * 7 + id) % 11);
		float phase = 0.0f, step = 2.0f * 3.14159265f * (9.0f + 0.25f * (float)(k % 5)) / RATE;
		int32_t drift = 0;

		r->uv_per_count[k] = 0.0305f * (1.0f + 0.002f * (float)((k * 13 + id) % 9));
		for (int i = 0; i < SAMPLES; i++) {
			if ((i & 63) == 0) {
				c[i] = (int16_t)(amp * sinf(phase));
				drift += (int32_t)(rng_next() % 33) - 16;
				if (drift > 3000 || drift < -3000)
					drift /= 2;
			} else {
				c[i] = (int16_t)(c[i - 1] / 2 + drift / 2 +
					(int32_t)(rng_next() & 511) - 256);
			}
			phase += step;
			if (phase > 6.2831853f)
				phase -= 6.2831853f;
		}
	}
}

static void montage_build(struct montage *mt, const struct recording *r)
{
	float xyz[NCH][3];

	for (int k = 0; k < NCH; k++) {
		float az = cap_pos[k][0] * 3.14159265f / 180.0f;
		float inc = cap_pos[k][1] * 3.14159265f / 180.0f;

		xyz[k][0] = sinf(inc) * cosf(az);
		xyz[k][1] = sinf(inc) * sinf(az);
		xyz[k][2] = cosf(inc);
	}
	for (int e = 0; e < NCH; e++) {
		float w[NCH], sum = 0.0f;

		for (int k = 0; k < NCH; k++) {
			float dx = xyz[e][0] - xyz[k][0], dy = xyz[e][1] - xyz[k][1];
			float dz = xyz[e][2] - xyz[k][2];

			w[k] = k == e ? 0.0f : expf(-(dx * dx + dy * dy + dz * dz) / 0.35f);
			sum += w[k];
		}
		for (int k = 0; k < NCH; k++)
			mt->m[e][k] = ((k == e ? 1.0f : 0.0f) - w[k] / sum) * r->uv_per_count[k];
	}
}

/* the hot loop: all 19 channels walked together, one sample index */
static __attribute__((noinline)) void montage_apply(struct montage *mt, const struct recording *r, int e)
{
	const float *w = mt->m[e];
	float *out = mt->lap;

	for (int i = 0; i < SAMPLES; i++) {
		float acc = 0.0f;

		for (int k = 0; k < NCH; k++)
			acc += w[k] * (float)r->ch[k][i];
		out[i] = acc;
	}
}

/* mean power and the largest one-second peak-to-peak swing of a derivation */
static void derivation_stats(struct montage *mt, int e)
{
	const float *x = mt->lap;
	double pw = 0.0;
	float swing = 0.0f;

	for (int s = 0; s < SAMPLES; s += RATE) {
		float lo = x[s], hi = x[s];

		for (int i = s; i < s + RATE; i++) {
			pw += (double)(x[i] * x[i]);
			lo = x[i] < lo ? x[i] : lo;
			hi = x[i] > hi ? x[i] : hi;
		}
		swing = hi - lo > swing ? hi - lo : swing;
	}
	mt->power[e] += pw / SAMPLES;
	mt->swing[e] = swing > mt->swing[e] ? swing : mt->swing[e];
}

int main(int argc, char **argv)
{
	int recordings = argc > 1 ? atoi(argv[1]) : 22;
	struct recording rec;
	struct montage mt;
	double check = 0.0;

	if (recording_init(&rec))
		return 1;
	memset(&mt, 0, sizeof(mt));
	mt.lap = malloc(SAMPLES * sizeof(float));
	if (!mt.lap)
		return 1;
	for (int id = 0; id < recordings; id++) {
		recording_load(&rec, id);
		montage_build(&mt, &rec);
		for (int e = 0; e < NCH; e++) {
			montage_apply(&mt, &rec, e);
			derivation_stats(&mt, e);
			check += mt.lap[(id * 40503 + e * 977) % SAMPLES];
		}
	}
	for (int e = 0; e < NCH; e++)
		check += mt.power[e] + mt.swing[e];
	printf("checksum %.6f\n", check);
	free(mt.lap);
	free(rec.block);
	return 0;
}
