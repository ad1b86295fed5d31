// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_ray_spheres: the preview renderer of a small ray tracer.  A scene
 * of 48 spheres (48 bytes each, 2.3 KiB) is traced at 320x200 with one
 * primary ray and one shadow ray per pixel, frame after frame while a
 * light moves; each frame goes into a 256 KiB RGBA framebuffer that the
 * viewer shows.
 * Clean control: every ray tests every sphere (a dot product, a square
 * root, a few branches), the scene stays in L1 and the framebuffer in L2,
 * and the sphere array is walked in order.  The time goes to arithmetic;
 * there is no memory problem to report.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define W		320
#define H		200
#define NSPHERES	48
#define FRAMES		300

struct sphere {
	double cx, cy, cz;
	double r2;		/* radius squared */
	uint32_t rgba;
	uint32_t flags;
	double reflect;
};

_Static_assert(sizeof(struct sphere) == 48, "48-byte spheres");

/* The nearest hit along (ox,oy,oz) + t (dx,dy,dz), t > eps; -1 if none. */
static int scene_hit(const struct sphere *sp, const double *o, const double *d, double *tmin)
{
	int best = -1;

	*tmin = 1e30;
	for (int i = 0; i < NSPHERES; i++) {
		double lx = sp[i].cx - o[0], ly = sp[i].cy - o[1], lz = sp[i].cz - o[2];
		double b = lx * d[0] + ly * d[1] + lz * d[2];
		double c = lx * lx + ly * ly + lz * lz - sp[i].r2;
		double disc = b * b - c;

		if (disc < 0)
			continue;
		double t = b - sqrt(disc);

		if (t > 1e-6 && t < *tmin) {
			*tmin = t;
			best = i;
		}
	}
	return best;
}

static __attribute__((noinline)) void frame_render(const struct sphere *sp, uint32_t *fb,
						   const double *light)
{
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			double o[3] = { 0, 0, -5 };
			double d[3] = { (x - W / 2) / (double)H, (y - H / 2) / (double)H, 1 };
			double n = 1 / sqrt(d[0] * d[0] + d[1] * d[1] + 1), t;

			d[0] *= n, d[1] *= n, d[2] *= n;
			int hit = scene_hit(sp, o, d, &t);
			uint32_t px = 0xff202020;

			if (hit >= 0) {
				double p[3] = { o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2] };
				double l[3] = { light[0] - p[0], light[1] - p[1], light[2] - p[2] };
				double ln = 1 / sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]), ts;

				l[0] *= ln, l[1] *= ln, l[2] *= ln;
				px = sp[hit].rgba;
				if (scene_hit(sp, p, l, &ts) >= 0)
					px = (px >> 1) & 0x7f7f7f7f;	/* in shadow */
			}
			fb[y * W + x] = px;
		}
	}
}

int main(void)
{
	struct sphere *sp = aligned_alloc(64, NSPHERES * sizeof(*sp));
	uint32_t *fb = aligned_alloc(64, W * H * sizeof(*fb));
	uint64_t sum = 0;

	if (!sp || !fb)
		return 1;
	for (int i = 0; i < NSPHERES; i++) {
		double r = 0.2 + (i % 5) * 0.05;

		sp[i] = (struct sphere){ .cx = (i % 8) - 3.5, .cy = (i / 8) * 0.7 - 1.8,
					 .cz = 2 + (i % 3), .r2 = r * r,
					 .rgba = 0xff000000u | (uint32_t)i * 0x050a11u,
					 .flags = 0, .reflect = 0.1 };
	}
	for (int f = 0; f < FRAMES; f++) {
		double light[3] = { 10 * cos(f * 0.1), 8, 10 * sin(f * 0.1) - 5 };

		frame_render(sp, fb, light);
		for (int i = 0; i < W * H; i += 61)
			sum += fb[i];
	}
	printf("%llu\n", (unsigned long long)sum);
	free(fb);
	free(sp);
	return 0;
}
