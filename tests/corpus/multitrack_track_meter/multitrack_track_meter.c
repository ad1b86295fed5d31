// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "normalize and export" step of a field recorder's companion tool:
 * a 24-track recording is held as one interleaved buffer of 32-bit float
 * frames (frame-major: all 24 tracks of sample 0, then of sample 1, ...),
 * as it came off the recorder.  For every track the tool measures the
 * peak, the DC offset and the RMS level, derives a gain that brings the
 * peak to -1 dBFS, and renders the gained tracks into an interleaved
 * 16-bit PCM export.
 *
 * BAD: the meter and the render take one track at a time and walk the
 *      interleaved buffer down that track: consecutive loads are one frame
 *      (96 bytes) apart, so each track's pass drags every line of the
 *      288 MB buffer through the cache for 4 of its bytes, 24 times over.
 * GOOD: both walk the buffer frame by frame, keeping the 24 per-track
 *      meters (and gains) side by side; the buffer is streamed once per
 *      step.  Each track's samples are still summed in frame order, so
 *      the results are bit for bit the same.
 *
 * Usage: multitrack_track_meter [FRAMES]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTRACK	24

struct meter {
	float peak;
	double dc;
	double energy;
	uint32_t clips;
};

static uint32_t rng = 0x6d2b79f5u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

/* The recording: per track a decaying tone plus noise at its own level. */
static void record(float *buf, size_t frames)
{
	float phase[NTRACK], step[NTRACK], level[NTRACK];

	for (int t = 0; t < NTRACK; t++) {
		phase[t] = 0.0f;
		step[t] = 0.002f + 0.0007f * (float)t;
		level[t] = 0.05f + 0.03f * (float)(t % 11);
	}
	for (size_t f = 0; f < frames; f++) {
		float *fr = buf + f * NTRACK;

		for (int t = 0; t < NTRACK; t++) {
			float tri = phase[t] < 0.5f ? 4.0f * phase[t] - 1.0f : 3.0f - 4.0f * phase[t];
			float noise = (float)(int32_t)(next_rand() & 0xffff) * (1.0f / 65536.0f) - 0.5f;

			fr[t] = level[t] * (tri + 0.1f * noise) + 0.001f * (float)(t - 12);
			phase[t] += step[t];
			if (phase[t] >= 1.0f)
				phase[t] -= 1.0f;
		}
	}
}

#ifdef BAD
static __attribute__((noinline)) void meter_tracks(const float *buf, size_t frames, struct meter *m)
{
	for (int t = 0; t < NTRACK; t++) {
		float peak = 0.0f;
		double dc = 0.0, energy = 0.0;
		uint32_t clips = 0;

		for (size_t f = 0; f < frames; f++) {
			float s = buf[f * NTRACK + t];
			float a = fabsf(s);

			peak = a > peak ? a : peak;
			clips += a >= 0.999f;
			dc += s;
			energy += (double)s * s;
		}
		m[t].peak = peak;
		m[t].dc = dc;
		m[t].energy = energy;
		m[t].clips = clips;
	}
}

static __attribute__((noinline)) void render_tracks(const float *buf, size_t frames, const float *gain,
						    int16_t *out)
{
	for (int t = 0; t < NTRACK; t++) {
		float g = gain[t];

		for (size_t f = 0; f < frames; f++)
			out[f * NTRACK + t] = (int16_t)lrintf(buf[f * NTRACK + t] * g * 32767.0f);
	}
}
#else
static __attribute__((noinline)) void meter_tracks(const float *buf, size_t frames, struct meter *m)
{
	float peak[NTRACK] = { 0 };
	double dc[NTRACK] = { 0 }, energy[NTRACK] = { 0 };
	uint32_t clips[NTRACK] = { 0 };

	for (size_t f = 0; f < frames; f++) {
		const float *fr = buf + f * NTRACK;

		for (int t = 0; t < NTRACK; t++) {
			float s = fr[t];
			float a = fabsf(s);

			peak[t] = a > peak[t] ? a : peak[t];
			clips[t] += a >= 0.999f;
			dc[t] += s;
			energy[t] += (double)s * s;
		}
	}
	for (int t = 0; t < NTRACK; t++) {
		m[t].peak = peak[t];
		m[t].dc = dc[t];
		m[t].energy = energy[t];
		m[t].clips = clips[t];
	}
}

static __attribute__((noinline)) void render_tracks(const float *buf, size_t frames, const float *gain,
						    int16_t *out)
{
	for (size_t f = 0; f < frames; f++) {
		const float *fr = buf + f * NTRACK;
		int16_t *o = out + f * NTRACK;

		for (int t = 0; t < NTRACK; t++)
			o[t] = (int16_t)lrintf(fr[t] * gain[t] * 32767.0f);
	}
}
#endif

int main(int argc, char **argv)
{
	size_t frames = argc > 1 ? strtoul(argv[1], NULL, 0) : 3u * 1000 * 1000;
	float *buf = malloc(frames * NTRACK * sizeof(*buf));
	int16_t *out = malloc(frames * NTRACK * sizeof(*out));
	struct meter m[NTRACK];
	float gain[NTRACK];
	uint64_t sum = 0;

	if (!buf || !out)
		return 1;
	record(buf, frames);
	meter_tracks(buf, frames, m);
	for (int t = 0; t < NTRACK; t++) {
		uint64_t bits;

		gain[t] = m[t].peak > 0.0f ? 0.891251f / m[t].peak : 1.0f;
		memcpy(&bits, &m[t].energy, sizeof(bits));
		sum = sum * 1000003 + bits;
		memcpy(&bits, &m[t].dc, sizeof(bits));
		sum = sum * 1000003 + bits;
		sum = sum * 1000003 + m[t].clips;
	}
	render_tracks(buf, frames, gain, out);
	for (size_t i = 0; i < frames * NTRACK; i++)
		sum = sum * 31 + (uint16_t)out[i];
	printf("checksum %016llx\n", (unsigned long long)sum);
	free(buf);
	free(out);
	return 0;
}
