// SPDX-License-Identifier: GPL-2.0-only
/*
 * planar_pixel_blend: an image compositor flattens a stack of 14 layers
 * into one output plane, frame after frame, while the layers' opacities
 * animate: out[px] = clamp(bg + sum over layers of opacity[l] * layer[l][px]).
 * Each layer is a 512x512 plane of float coverage, and the planes are
 * carved out of one 4 KiB-aligned slab.  With -DBAD every plane takes
 * exactly 1 MiB, so pixel px of all 14 planes sits at the same address
 * modulo 4096 (one L1d set of 8 ways) and modulo 64 KiB (one L2 set of 8
 * ways): 14 sequential streams fight over 8 ways and a line is evicted
 * before the next 15 pixels can use it (3.3.1).  Otherwise each plane is
 * placed one more cache line (64 bytes) further into the slab, so at a
 * given pixel the planes fall into 14 different sets.  The blend and its
 * access order are the same in both; only the planes' placement differs.
 *
 * Usage: planar_pixel_blend [FRAMES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define LAYERS	14
#define WIDTH	512
#define HEIGHT	512
#define PIXELS	(WIDTH * HEIGHT)	/* floats per plane: 1 MiB */
#ifdef BAD
#define SKEW	0
#else
#define SKEW	16			/* floats: one cache line per plane */
#endif

struct layer_stack {
	float *slab;			/* all planes, 4 KiB aligned */
	const float *plane[LAYERS];	/* plane l starts l * (PIXELS + SKEW) in */
	float opacity[LAYERS];
	float background;
};

static int stack__init(struct layer_stack *s)
{
	size_t step = PIXELS + SKEW;
	size_t bytes = (LAYERS * step * sizeof(float) + 4095) & ~(size_t)4095;
	uint32_t seed = 2463534242u;

	s->slab = aligned_alloc(4096, bytes);
	if (!s->slab)
		return -1;
	for (int l = 0; l < LAYERS; l++) {
		float *p = s->slab + l * step;

		/* a soft disc per layer, plus a little grain */
		int cx = (l * 97) % WIDTH, cy = (l * 193) % HEIGHT;
		for (int y = 0; y < HEIGHT; y++) {
			for (int x = 0; x < WIDTH; x++) {
				int dx = x - cx, dy = y - cy;
				float d = (float)(dx * dx + dy * dy) / (96.0f * 96.0f);

				seed ^= seed << 13;
				seed ^= seed >> 17;
				seed ^= seed << 5;
				p[y * WIDTH + x] = (d < 1.0f ? 1.0f - d : 0.0f) +
						   (float)(seed >> 24) / 2048.0f;
			}
		}
		s->plane[l] = p;
		s->opacity[l] = 0.5f / (float)(l + 1);
	}
	s->background = 0.05f;
	return 0;
}

static __attribute__((noinline)) void blend_layers(const struct layer_stack *s, float *out)
{
	for (int px = 0; px < PIXELS; px++) {
		float acc = s->background;

		for (int l = 0; l < LAYERS; l++)
			acc += s->opacity[l] * s->plane[l][px];
		out[px] = acc < 1.0f ? acc : 1.0f;
	}
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 150;
	struct layer_stack s;
	float *out;
	double check = 0;

	if (stack__init(&s))
		return 1;
	out = aligned_alloc(4096, PIXELS * sizeof(float));
	if (!out)
		return 1;
	for (int f = 0; f < frames; f++) {
		/* fade one layer in and another out each frame */
		s.opacity[f % LAYERS] *= 1.01f;
		s.opacity[(f + 7) % LAYERS] *= 0.99f;
		blend_layers(&s, out);
		check += out[(f * 40503u) % PIXELS] + out[(f * 7919u + 123) % PIXELS];
	}
	printf("checksum %.5f\n", check);
	free(out);
	free(s.slab);
	return 0;
}
