/*
 * track_mixer: a digital audio workstation mixes 16 tracks into one bus,
 * block after block: bus[i] = sum_t gain[t] * track[t][i]. BAD carves the
 * track buffers out of one allocation at a power-of-two spacing (256 KiB
 * each), so at every sample index the 16 tracks and the bus sit at the
 * same address modulo 4096 (same L1d set, 8 ways) and modulo 128 KiB (same
 * L2 set, 8 ways): 17 streams fight over 8 ways. GOOD staggers each track
 * buffer by one more cache line, so the streams fall into different sets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TRACKS	16
#define SAMPLES	(64 * 1024)	/* per track buffer: 256 KiB of float */
#ifdef BAD
#define STAGGER	0
#else
#define STAGGER	16		/* floats: one cache line more per track */
#endif

struct mixer {
	float *pool;
	float *track[TRACKS];
	float *bus;
	float gain[TRACKS];
};

static int mixer__init(struct mixer *m)
{
	size_t span = SAMPLES + STAGGER;
	size_t bytes = ((TRACKS + 1) * span * sizeof(float) + 4095) & ~4095ul;

	m->pool = aligned_alloc(4096, bytes);
	if (!m->pool)
		return -1;
	for (int t = 0; t < TRACKS; t++) {
		m->track[t] = m->pool + t * span;
		m->gain[t] = 1.0f / (t + 2);
		for (int i = 0; i < SAMPLES; i++)
			m->track[t][i] = (float)((i * (t + 3)) % 251) / 251.0f - 0.5f;
	}
	m->bus = m->pool + TRACKS * span;
	return 0;
}

static __attribute__((noinline)) void mixer__mix(struct mixer *m)
{
	for (int i = 0; i < SAMPLES; i++) {
		float acc = 0;

		for (int t = 0; t < TRACKS; t++)
			acc += m->gain[t] * m->track[t][i];
		m->bus[i] = acc;
	}
}

int main(int argc, char **argv)
{
	int blocks = argc > 1 ? atoi(argv[1]) : 1200;
	struct mixer m;
	double check = 0;

	if (mixer__init(&m))
		return 1;
	for (int b = 0; b < blocks; b++) {
		m.gain[b % TRACKS] *= 0.999f;
		mixer__mix(&m);
		check += m.bus[(b * 4099) % SAMPLES];
	}
	printf("checksum %.5f\n", check);
	free(m.pool);
	return 0;
}
