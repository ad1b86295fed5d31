// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_synth_voice_bank: the render loop of a small polyphonic software
 * synthesizer.  A bank of 32 voices (oscillator phase and increment, an
 * ADSR envelope, waveform, gain) plays a generated sequence at 48 kHz;
 * every 64-frame block the sequencer starts and releases notes, each
 * active voice renders its block (band-limited saw/square, sine, triangle,
 * a per-sample envelope) into a small stereo mix buffer, and the mix is
 * soft-clipped, quantized to 16 bit and folded into a running checksum.
 * The mix buffer is reused for every block; nothing is allocated.  The
 * voice bank (2 KiB) and the mix buffer stay in L1; the time goes to the
 * per-sample arithmetic.
 *
 * Usage: clean_synth_voice_bank [SECONDS]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RATE		48000
#define BLOCK		64
#define NVOICES		32
#define TWO_PI		6.283185307179586

enum { ENV_IDLE, ENV_ATTACK, ENV_DECAY, ENV_SUSTAIN, ENV_RELEASE };
enum { WAVE_SAW, WAVE_SQUARE, WAVE_SINE, WAVE_TRIANGLE, NWAVES };

struct voice {
	uint8_t active;
	int32_t note;
	double phase;			/* cycles, [0, 1) */
	double incr;			/* cycles per frame */
	uint8_t env_stage;
	double env_level;
	float attack;			/* level added per frame */
	float decay;			/* share of the distance to sustain per frame */
	float sustain;
	float release;			/* factor per frame */
	float gain;
	uint8_t waveform;
	uint16_t hold;			/* blocks until note-off */
};

static _Alignas(64) struct voice bank[NVOICES];	/* 2 KiB, a voice per line */
static float mix_l[BLOCK], mix_r[BLOCK];
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* The polyBLEP residual that band-limits a step at phase 0. */
static inline double poly_blep(double t, double dt)
{
	if (t < dt) {
		t /= dt;
		return t + t - t * t - 1.0;
	}
	if (t > 1.0 - dt) {
		t = (t - 1.0) / dt;
		return t * t + t + t + 1.0;
	}
	return 0.0;
}

static void note_on(int note)
{
	struct voice *v = NULL;
	double quietest = 2.0;

	/* A free voice, or steal the quietest one. */
	for (int i = 0; i < NVOICES; i++) {
		if (!bank[i].active) {
			v = &bank[i];
			break;
		}
		if (bank[i].env_level < quietest) {
			quietest = bank[i].env_level;
			v = &bank[i];
		}
	}
	v->active = 1;
	v->note = note;
	v->phase = 0.0;
	v->incr = 440.0 * pow(2.0, (note - 69) / 12.0) / RATE;
	v->env_stage = ENV_ATTACK;
	v->env_level = 0.0;
	v->attack = 1.0f / (float)(RATE / 200 + next_rand() % (RATE / 50));
	v->decay = 1.0f / (float)(RATE / 20 + next_rand() % (RATE / 4));
	v->sustain = 0.3f + 0.1f * (float)(next_rand() % 6);
	v->release = 1.0f - 1.0f / (float)(RATE / 40 + next_rand() % (RATE / 5));
	v->gain = 0.08f + 0.01f * (float)(next_rand() % 5);
	v->waveform = (uint8_t)(next_rand() % NWAVES);
	v->hold = (uint16_t)(40 + next_rand() % 600);
}

/* The sequencer, once per block: count down held notes, start new ones. */
static void sequence(void)
{
	for (int i = 0; i < NVOICES; i++) {
		struct voice *v = &bank[i];

		if (v->active && v->env_stage != ENV_RELEASE && v->hold > 0 && --v->hold == 0)
			v->env_stage = ENV_RELEASE;
	}
	if (next_rand() % 16 < 5)
		note_on(36 + (int)(next_rand() % 60));
}

/* One voice's block, added into the mix. */
static void render_voice(struct voice *v)
{
	float pan = (float)(v->note - 36) / 60.0f;

	for (int i = 0; i < BLOCK; i++) {
		double t = v->phase, dt = v->incr, s;

		switch (v->env_stage) {
		case ENV_ATTACK:
			v->env_level += v->attack;
			if (v->env_level >= 1.0) {
				v->env_level = 1.0;
				v->env_stage = ENV_DECAY;
			}
			break;
		case ENV_DECAY:
			v->env_level += (v->sustain - v->env_level) * v->decay;
			if (v->env_level - v->sustain < 1e-4)
				v->env_stage = ENV_SUSTAIN;
			break;
		case ENV_RELEASE:
			v->env_level *= v->release;
			if (v->env_level < 1e-5) {
				v->env_level = 0.0;
				v->env_stage = ENV_IDLE;
				v->active = 0;
			}
			break;
		}
		switch (v->waveform) {
		case WAVE_SAW:
			s = 2.0 * t - 1.0 - poly_blep(t, dt);
			break;
		case WAVE_SQUARE: {
			double t2 = t + 0.5;

			if (t2 >= 1.0)
				t2 -= 1.0;
			s = (t < 0.5 ? 1.0 : -1.0) + poly_blep(t, dt) - poly_blep(t2, dt);
			break;
		}
		case WAVE_SINE:
			s = sin(TWO_PI * t);
			break;
		default:
			s = 4.0 * fabs(t - 0.5) - 1.0;
			break;
		}
		s *= v->env_level * v->gain;
		mix_l[i] += (float)s * (1.0f - pan);
		mix_r[i] += (float)s * pan;
		t += dt;
		if (t >= 1.0)
			t -= 1.0;
		v->phase = t;
	}
}

static inline int16_t to_pcm(float x)
{
	x = x / (1.0f + fabsf(x));		/* soft clip */
	return (int16_t)lrintf(x * 32767.0f);
}

int main(int argc, char **argv)
{
	long seconds = argc > 1 ? atol(argv[1]) : 180;
	long blocks = seconds * RATE / BLOCK;
	uint64_t sum = 1469598103934665603ull;
	long voice_blocks = 0;

	for (long b = 0; b < blocks; b++) {
		sequence();
		for (int i = 0; i < BLOCK; i++)
			mix_l[i] = mix_r[i] = 0.0f;
		for (int n = 0; n < NVOICES; n++) {
			if (!bank[n].active)
				continue;
			render_voice(&bank[n]);
			voice_blocks++;
		}
		for (int i = 0; i < BLOCK; i++) {
			uint32_t frame = (uint16_t)to_pcm(mix_l[i]) | (uint32_t)(uint16_t)to_pcm(mix_r[i]) << 16;

			sum = (sum ^ frame) * 1099511628211ull;
		}
	}
	printf("checksum %016llx voice-blocks %ld\n", (unsigned long long)sum, voice_blocks);
	return 0;
}
