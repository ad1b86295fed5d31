/*
 * rotozoom_frame_out: a demo renderer draws a rotating, zooming texture
 * (1024x1024 BGRA, 4 MiB, reused by every frame) into a queue of 16
 * full-HD frames (16 x 8 MiB = 128 MiB) that the display engine scans out;
 * the renderer never reads a frame back. BAD writes the pixels with
 * ordinary stores: every output line is read for ownership and the frames
 * stream through the caches, evicting the texture. GOOD writes four pixels
 * at a time with _mm_stream_si128 and issues _mm_sfence once the frame is
 * complete, so the frames bypass the caches and the texture stays there.
 */
#include <emmintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W	1920
#define H	1080
#define NFRAME	16
#define TEX	1024

struct texture {
	uint32_t *texel;	/* TEX x TEX */
};

static __attribute__((noinline)) uint64_t render(const struct texture *tx, uint32_t *fb, int t)
{
	float a = t * 0.01f, z = 1.5f + sinf(t * 0.02f);
	int32_t dudx = (int32_t)(cosf(a) * z * 65536), dvdx = (int32_t)(sinf(a) * z * 65536);
	uint64_t sum = 0;

	for (int y = 0; y < H; y++) {
		uint32_t *row = fb + (size_t)y * W;
		int32_t u = -dvdx * (y - H / 2) - dudx * (W / 2) + t * 40000;
		int32_t v = dudx * (y - H / 2) - dvdx * (W / 2);

		for (int x = 0; x < W; x += 4) {
			uint32_t px[4];

			for (int k = 0; k < 4; k++) {
				px[k] = tx->texel[((uint32_t)v >> 16 & (TEX - 1)) * TEX +
						  ((uint32_t)u >> 16 & (TEX - 1))];
				u += dudx;
				v += dvdx;
			}
			sum += px[0] ^ px[3];
#ifdef BAD
			_mm_storeu_si128((__m128i *)(row + x), _mm_loadu_si128((const __m128i *)px));
#else
			_mm_stream_si128((__m128i *)(row + x), _mm_loadu_si128((const __m128i *)px));
#endif
		}
	}
#ifndef BAD
	_mm_sfence();
#endif
	return sum;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 200;
	uint32_t *queue = aligned_alloc(64, (size_t)NFRAME * W * H * sizeof(uint32_t));
	struct texture tx = { malloc((size_t)TEX * TEX * sizeof(uint32_t)) };
	uint64_t check = 0;

	if (!queue || !tx.texel)
		return 1;
	for (uint32_t i = 0; i < TEX * TEX; i++)
		tx.texel[i] = 0xff000000u | (i * 2654435761u >> 8);
	for (int f = 0; f < frames; f++)
		check += render(&tx, queue + (size_t)(f % NFRAME) * W * H, f);
	printf("checksum %llu\n", (unsigned long long)check);
	free(queue);
	free(tx.texel);
	return 0;
}
