/*
 * clean_fir_scratch: an audio effect filters a long recording block by
 * block.  The recording (48 MiB of float samples) and a 192 KiB scratch
 * block are carved from one arena mapped at start; each block is filtered
 * into the scratch by a 16-tap FIR (the hot loop, whose stores go to the
 * scratch in order), then the scratch is added into a 192 KiB mix bus (a
 * cheap vector loop that reads it back).  The scratch is rewritten in place
 * every block and stays in the L2: nothing to report, in particular no
 * non-temporal stores (they would send the scratch to memory every block
 * and make the mix read it back from there).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define NIN	(12u << 20)	/* 48 MiB of input samples */
#define BLK	(48u << 10)	/* 192 KiB of float per block */
#define TAPS	16
#define PASSES	30

static __attribute__((noinline)) void fir_block(const float *in, float *out, const float *h)
{
	for (unsigned i = 0; i < BLK; i++) {
		float acc = 0;

		for (int k = 0; k < TAPS; k++)
			acc += h[k] * in[i + k];
		out[i] = acc;
	}
}

static __attribute__((noinline)) void mix_block(float *bus, const float *blk, float gain)
{
	for (unsigned i = 0; i < BLK; i++)
		bus[i] += gain * blk[i];
}

int main(void)
{
	size_t arena_len = (size_t)(NIN + TAPS + BLK) * sizeof(float);
	float *arena = mmap(NULL, arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	float *bus = calloc(BLK, sizeof(float));
	float h[TAPS];
	double check = 0;

	if (arena == MAP_FAILED || !bus)
		return 1;
	float *in = arena, *scratch = arena + NIN + TAPS;

	for (int k = 0; k < TAPS; k++)
		h[k] = 1.0f / (float)(k + 2);
	for (unsigned i = 0; i < NIN + TAPS; i++)
		in[i] = (float)((i * 2654435761u) >> 20) / 4096.0f - 0.5f;
	for (int p = 0; p < PASSES; p++)
		for (unsigned b = 0; b + BLK <= NIN; b += BLK) {
			fir_block(in + b, scratch, h);
			mix_block(bus, scratch, 0.5f + (float)(b % 7) / 16.0f);
		}
	for (unsigned i = 0; i < BLK; i++)
		check += bus[i];
	printf("checksum %.3f\n", check);
	return 0;
}
