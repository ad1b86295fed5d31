/*
 * fir_vertical_pow2: a video pipeline applies a 16-tap vertical low-pass
 * filter to 1024x1024 float frames: out[y][x] = sum_k c[k] * in[y+k][x].
 * BAD stores frames with a row pitch of exactly 1024 floats (4096 bytes),
 * so the 16 input rows read for one output pixel sit 4096 bytes apart and
 * all map to the same L1d set (64 sets x 64 bytes = 4096 bytes, 8 ways):
 * the 16 lines evict each other before the neighbouring x reuses them.
 * GOOD pads the pitch by one cache line (1040 floats), which spreads the
 * 16 rows over 16 different sets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W	1024
#define H	1024
#define TAPS	16
#ifdef BAD
#define PITCH	W
#else
#define PITCH	(W + 16)
#endif

struct frame {
	float *pix;		/* H rows of PITCH floats, W used */
};

static int frame__alloc(struct frame *f)
{
	f->pix = aligned_alloc(4096, (size_t)PITCH * H * sizeof(float));
	return f->pix ? 0 : -1;
}

static __attribute__((noinline)) void fir_vertical(const struct frame *in, struct frame *out,
						   const float *c)
{
	for (int y = 0; y + TAPS <= H; y++) {
		float *o = out->pix + (size_t)y * PITCH;

		for (int x = 0; x < W; x++) {
			float acc = 0;

			for (int k = 0; k < TAPS; k++)
				acc += c[k] * in->pix[(size_t)(y + k) * PITCH + x];
			o[x] = acc;
		}
	}
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 90;
	struct frame in, out;
	float c[TAPS];
	double check = 0;
	uint32_t r = 12345;

	if (frame__alloc(&in) || frame__alloc(&out))
		return 1;
	for (int k = 0; k < TAPS; k++)
		c[k] = 1.0f / (TAPS + k);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < PITCH; x++) {
			if (x < W)
				r = r * 1103515245u + 12345u;
			in.pix[(size_t)y * PITCH + x] = x < W ? (float)(r >> 20) / 4096.0f : 0;
			out.pix[(size_t)y * PITCH + x] = 0;
		}
	}
	for (int f = 0; f < frames; f++) {
		in.pix[(size_t)(f % H) * PITCH + f % W] += 1.0f;
		fir_vertical(&in, &out, c);
		check += out.pix[(size_t)(f * 7 % (H - TAPS)) * PITCH + f * 13 % W];
	}
	printf("checksum %.4f\n", check);
	free(in.pix);
	free(out.pix);
	return 0;
}
