/*
 * mandelbrot_tiles: a fractal explorer renders a 640x480 Mandelbrot view
 * (300 KiB of 8-bit colour indices) at increasing zoom, 512 iterations per
 * pixel at most. Clean control: compute-bound, the working set is a few
 * hundred KiB, written sequentially once per frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W	640
#define H	480
#define MAXIT	512

static __attribute__((noinline)) uint64_t render(uint8_t *img, double cx, double cy, double scale)
{
	uint64_t sum = 0;

	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			double cr = cx + (x - W / 2) * scale, ci = cy + (y - H / 2) * scale;
			double zr = 0, zi = 0;
			int it = 0;

			while (it < MAXIT && zr * zr + zi * zi < 4.0) {
				double t = zr * zr - zi * zi + cr;

				zi = 2 * zr * zi + ci;
				zr = t;
				it++;
			}
			img[y * W + x] = (uint8_t)it;
			sum += it;
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	int frames = argc > 1 ? atoi(argv[1]) : 8;
	uint8_t *img = malloc(W * H);
	double scale = 3.0 / W;
	uint64_t check = 0;

	if (!img)
		return 1;
	for (int f = 0; f < frames; f++) {
		check += render(img, -0.743643887, 0.131825904, scale);
		scale *= 0.8;
	}
	printf("checksum %llu\n", (unsigned long long)check);
	free(img);
	return 0;
}
