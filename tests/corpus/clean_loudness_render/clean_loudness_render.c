// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_loudness_render: the offline bounce of a small music tool.  An
 * additive synthesizer renders a four-minute stereo piece (48 kHz, float,
 * 88 MiB) into one buffer, front to back; the mastering stage then reads
 * the buffer back sequentially to measure the integrated loudness
 * (ITU-R BS.1770: K-weighting, 400 ms gated blocks) and the true peak
 * (4x oversampling FIR), and writes the normalized, dithered 16-bit PCM
 * into the output buffer, again front to back.
 * The big buffers are allocated once and every page is faulted in once,
 * by a sequential write; all the passes are sequential and the time goes
 * to the synthesis and the filters, not to memory.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RATE		48000
#define SECONDS		240
#define FRAMES		((size_t)RATE * SECONDS)
#define TABLE_BITS	12
#define TABLE		(1u << TABLE_BITS)
#define PARTIALS	16
#define VOICES		8
#define NOTE_EVERY	(RATE / 4)
#define NOTE_LEN	(RATE * 3 / 2)
#define TP_PHASES	4
#define TP_TAPS		12
#define BLOCK		(RATE / 10)		/* 100 ms loudness sub-block */

struct voice {
	uint32_t phase[PARTIALS];
	uint32_t inc[PARTIALS];
	float amp[PARTIALS];
	float decay;
	float pan_l, pan_r;
	int left;			/* frames still to play */
};

struct biquad {
	double b0, b1, b2, a1, a2;
	double z1, z2;
};

static float sine[TABLE];
static float tp_fir[TP_PHASES][TP_TAPS];
static uint64_t rng = 0x853c49e6748fea9bull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static void note_on(struct voice *v)
{
	int key = 36 + (int)(next_rand() % 48);
	double hz = 440.0 * pow(2.0, (key - 69) / 12.0);
	float pan = (float)(next_rand() % 1000) / 1000.0f;

	for (int p = 0; p < PARTIALS; p++) {
		double f = hz * (p + 1);

		v->phase[p] = 0;
		v->inc[p] = f < RATE / 2 ? (uint32_t)(f / RATE * 4294967296.0) : 0;
		v->amp[p] = 0.12f / (float)(p + 1);
	}
	v->decay = 0.99995f - 0.00002f * (float)(next_rand() % 8);
	v->pan_l = 1.0f - pan;
	v->pan_r = pan;
	v->left = NOTE_LEN;
}

/* The synthesizer: writes every frame of out once, in order. */
static void render(float *out)
{
	struct voice vo[VOICES];
	int next = 0;

	memset(vo, 0, sizeof(vo));
	for (size_t n = 0; n < FRAMES; n++) {
		float l = 0.0f, r = 0.0f;

		if (n % NOTE_EVERY == 0)
			note_on(&vo[next++ % VOICES]);
		for (int k = 0; k < VOICES; k++) {
			struct voice *v = &vo[k];
			float s = 0.0f;

			if (v->left <= 0)
				continue;
			for (int p = 0; p < PARTIALS; p++) {
				s += v->amp[p] * sine[v->phase[p] >> (32 - TABLE_BITS)];
				v->phase[p] += v->inc[p];
				v->amp[p] *= v->decay;
			}
			v->left--;
			l += s * v->pan_l;
			r += s * v->pan_r;
		}
		out[2 * n] = l;
		out[2 * n + 1] = r;
	}
}

static double biquad_run(struct biquad *q, double x)
{
	double y = q->b0 * x + q->z1;

	q->z1 = q->b1 * x - q->a1 * y + q->z2;
	q->z2 = q->b2 * x - q->a2 * y;
	return y;
}

/* BS.1770 integrated loudness (LUFS) and true peak of the interleaved buffer. */
static void measure(const float *pcm, double *lufs, double *peak)
{
	struct biquad shelf[2], hp[2];
	size_t blocks = FRAMES / BLOCK;
	double *ms = malloc(blocks * sizeof(double));
	float hist[2][TP_TAPS] = { { 0 } };
	double tp = 0.0;

	if (!ms)
		exit(1);
	for (int c = 0; c < 2; c++) {
		shelf[c] = (struct biquad){ 1.53512485958697, -2.69169618940638, 1.19839281085285,
					    -1.69065929318241, 0.73248077421585, 0, 0 };
		hp[c] = (struct biquad){ 1.0, -2.0, 1.0, -1.99004745483398, 0.99007225036621, 0, 0 };
	}
	for (size_t b = 0; b < blocks; b++) {
		double acc = 0.0;

		for (size_t n = b * BLOCK; n < (b + 1) * BLOCK; n++) {
			for (int c = 0; c < 2; c++) {
				float x = pcm[2 * n + c];
				double y = biquad_run(&hp[c], biquad_run(&shelf[c], x));

				acc += y * y;
				memmove(&hist[c][1], &hist[c][0], (TP_TAPS - 1) * sizeof(float));
				hist[c][0] = x;
				for (int ph = 0; ph < TP_PHASES; ph++) {
					float o = 0.0f;

					for (int t = 0; t < TP_TAPS; t++)
						o += tp_fir[ph][t] * hist[c][t];
					if (fabsf(o) > tp)
						tp = fabsf(o);
				}
			}
		}
		ms[b] = acc / BLOCK;
	}
	/* 400 ms gating blocks (4 sub-blocks, 75% overlap) */
	double sum = 0.0, rel;
	size_t cnt = 0, gates = blocks - 3;

	for (size_t g = 0; g < gates; g++) {
		double z = (ms[g] + ms[g + 1] + ms[g + 2] + ms[g + 3]) / 4;

		if (-0.691 + 10 * log10(z + 1e-30) > -70.0) {
			sum += z;
			cnt++;
		}
	}
	rel = -0.691 + 10 * log10(sum / (cnt ? cnt : 1) + 1e-30) - 10.0;
	sum = 0.0;
	cnt = 0;
	for (size_t g = 0; g < gates; g++) {
		double z = (ms[g] + ms[g + 1] + ms[g + 2] + ms[g + 3]) / 4;
		double lk = -0.691 + 10 * log10(z + 1e-30);

		if (lk > -70.0 && lk > rel) {
			sum += z;
			cnt++;
		}
	}
	*lufs = -0.691 + 10 * log10(sum / (cnt ? cnt : 1) + 1e-30);
	*peak = tp;
	free(ms);
}

/* Gain to -14 LUFS (held under -1 dBTP), TPDF dither, 16-bit out. */
static void export_pcm(const float *pcm, int16_t *out, double gain)
{
	for (size_t i = 0; i < 2 * FRAMES; i++) {
		float d = ((float)(next_rand() & 0xffff) - (float)(next_rand() & 0xffff)) / 65536.0f;
		float v = pcm[i] * (float)gain * 32767.0f + d;

		v = v > 32767.0f ? 32767.0f : v < -32768.0f ? -32768.0f : v;
		out[i] = (int16_t)lrintf(v);
	}
}

int main(void)
{
	float *pcm = malloc(2 * FRAMES * sizeof(float));
	int16_t *out = malloc(2 * FRAMES * sizeof(int16_t));
	double lufs, peak, gain;
	uint64_t h = 0xcbf29ce484222325ull;

	if (!pcm || !out)
		return 1;
	for (unsigned i = 0; i < TABLE; i++)
		sine[i] = (float)sin(2.0 * M_PI * i / TABLE);
	for (int ph = 0; ph < TP_PHASES; ph++)		/* windowed-sinc interpolator */
		for (int t = 0; t < TP_TAPS; t++) {
			double x = t - (TP_TAPS / 2 - 1) - ph / (double)TP_PHASES;
			double w = 0.5 + 0.5 * cos(M_PI * x / (TP_TAPS / 2 + 1));

			tp_fir[ph][t] = (float)(w * (x == 0.0 ? 1.0 : sin(M_PI * x) / (M_PI * x)));
		}

	render(pcm);
	measure(pcm, &lufs, &peak);
	gain = pow(10.0, (-14.0 - lufs) / 20.0);
	if (peak * gain > pow(10.0, -1.0 / 20.0))
		gain = pow(10.0, -1.0 / 20.0) / peak;
	export_pcm(pcm, out, gain);

	for (size_t i = 0; i < 2 * FRAMES; i++)
		h = (h ^ (uint16_t)out[i]) * 0x100000001b3ull;
	printf("checksum %016llx\n", (unsigned long long)(h ^ (uint64_t)llround(lufs * 1000.0)));
	free(out);
	free(pcm);
	return 0;
}
