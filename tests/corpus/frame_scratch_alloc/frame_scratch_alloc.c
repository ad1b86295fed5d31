/*
 * frame_scratch_alloc: a video effects filter processes DCI 4K RGBA frames
 * (4096x2160x4 = 33.75 MiB). For every frame it allocates a scratch frame,
 * renders a horizontal blur of the current frame into it, reduces it to a
 * brightness histogram and frees it. The scratch is above glibc's largest
 * mmap threshold (32 MiB), so every malloc is a fresh mmap and every free a
 * munmap: each frame faults in 8640 new zeroed 4 KiB pages again. GOOD
 * allocates the scratch frame once and reuses it for every frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FW	4096
#define FH	2160

struct rgba {
	uint8_t r, g, b, a;
};

static __attribute__((noinline)) void blur_row(const struct rgba *in, struct rgba *out)
{
	for (int x = 1; x < FW - 1; x++) {
		out[x].r = (uint8_t)((in[x - 1].r + 2 * in[x].r + in[x + 1].r) >> 2);
		out[x].g = (uint8_t)((in[x - 1].g + 2 * in[x].g + in[x + 1].g) >> 2);
		out[x].b = (uint8_t)((in[x - 1].b + 2 * in[x].b + in[x + 1].b) >> 2);
		out[x].a = in[x].a;
	}
	out[0] = in[0];
	out[FW - 1] = in[FW - 1];
}

static __attribute__((noinline)) uint64_t process_frame(const struct rgba *frame,
							struct rgba *scratch_reuse)
{
	uint64_t hist[16] = { 0 }, sum = 0;
#ifdef BAD
	struct rgba *scratch = malloc((size_t)FW * FH * sizeof(*scratch));

	(void)scratch_reuse;
	if (!scratch)
		abort();
#else
	struct rgba *scratch = scratch_reuse;
#endif
	for (int y = 0; y < FH; y++)
		blur_row(frame + (size_t)y * FW, scratch + (size_t)y * FW);
	for (size_t i = 0; i < (size_t)FW * FH; i += 7)
		hist[(scratch[i].r + scratch[i].g + scratch[i].b) >> 6]++;
	for (int b = 0; b < 16; b++)
		sum += hist[b] * (b + 1);
#ifdef BAD
	free(scratch);
#endif
	return sum;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 25;
	struct rgba *frame = malloc((size_t)FW * FH * sizeof(*frame));
	struct rgba *scratch = NULL;
	uint64_t check = 0;

#ifndef BAD
	scratch = malloc((size_t)FW * FH * sizeof(*scratch));
	if (!scratch)
		return 1;
#endif
	if (!frame)
		return 1;
	for (size_t i = 0; i < (size_t)FW * FH; i++)
		frame[i] = (struct rgba){ (uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 3), 255 };
	for (int f = 0; f < frames; f++) {
		frame[(size_t)f * 1237 % ((size_t)FW * FH)].g ^= 0x55;	/* next frame */
		check += process_frame(frame, scratch);
	}
	printf("checksum %llu\n", (unsigned long long)check);
	free(scratch);
	free(frame);
	return 0;
}
