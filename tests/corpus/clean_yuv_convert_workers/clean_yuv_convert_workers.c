// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_yuv_convert_workers: the colour-conversion stage of a video
 * encoder, one worker thread per camera.  Each worker converts its camera's
 * 320x240 RGB frames to planar YUV 4:2:0 (BT.601, integer lookup tables),
 * builds the luma histogram used by auto-exposure, and measures the 8x8
 * block activity the rate control reads back from the Y plane.
 * The two workers share only the conversion tables, filled once before
 * they start and read-only afterwards (9 KiB, in every core's L1d).  Each
 * worker writes only its own planes, allocated and first touched by
 * itself, and its own statistics record, which starts a cache line of its
 * own (_Alignas(64): deliberate padding).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS	2
#define W		320
#define H		240
#define SRC_FRAMES	4		/* the camera's capture ring */
#define FRAMES		3600		/* per worker */

/* BT.601 studio range, 16.16 fixed point, one table per term */
static int32_t ty_r[256], ty_g[256], ty_b[256];
static int32_t tu_r[256], tu_g[256], tu_b[256];
static int32_t tv_r[256], tv_g[256], tv_b[256];

struct cam_stats {
	_Alignas(64) uint32_t luma_hist[256];
	uint64_t frames;
	uint64_t activity;
	uint64_t chroma_sum;
};

static struct cam_stats stats[NWORKERS];

struct camera {
	int id;
	uint64_t digest;
};

static void fill_tables(void)
{
	for (int i = 0; i < 256; i++) {
		ty_r[i] = (int32_t)(0.257 * 65536 * i);
		ty_g[i] = (int32_t)(0.504 * 65536 * i);
		ty_b[i] = (int32_t)(0.098 * 65536 * i) + (16 << 16) + (1 << 15);
		tu_r[i] = (int32_t)(-0.148 * 65536 * i);
		tu_g[i] = (int32_t)(-0.291 * 65536 * i);
		tu_b[i] = (int32_t)(0.439 * 65536 * i) + (128 << 16) + (1 << 15);
		tv_r[i] = (int32_t)(0.439 * 65536 * i);
		tv_g[i] = (int32_t)(-0.368 * 65536 * i);
		tv_b[i] = (int32_t)(-0.071 * 65536 * i) + (128 << 16) + (1 << 15);
	}
}

/* A synthetic scene: gradients and a moving bright patch. */
static void capture(uint8_t *rgb, int cam, int f)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			uint8_t *p = rgb + 3 * (y * W + x);
			int lit = (x - 40 * f - 60 * cam) % W < 48 && y / 32 == (f + cam) % 7;

			p[0] = (uint8_t)(x + 3 * f + 17 * cam) | (lit ? 0xc0 : 0);
			p[1] = (uint8_t)(y + 5 * f) | (lit ? 0xc0 : 0);
			p[2] = (uint8_t)((x ^ y) + cam * 91);
		}
}

static __attribute__((noinline)) void rgb_to_yuv420(const uint8_t *rgb, uint8_t *yp, uint8_t *up,
						    uint8_t *vp, struct cam_stats *st)
{
	uint64_t csum = 0;

	for (int y = 0; y < H; y += 2) {
		const uint8_t *r0 = rgb + 3 * y * W, *r1 = r0 + 3 * W;
		uint8_t *y0 = yp + y * W, *y1 = y0 + W;

		for (int x = 0; x < W; x += 2) {
			const uint8_t *q[4] = { r0 + 3 * x, r0 + 3 * x + 3, r1 + 3 * x, r1 + 3 * x + 3 };
			uint8_t *o[4] = { y0 + x, y0 + x + 1, y1 + x, y1 + x + 1 };
			int ar = 0, ag = 0, ab = 0;

			for (int k = 0; k < 4; k++) {
				uint8_t l = (uint8_t)((ty_r[q[k][0]] + ty_g[q[k][1]] + ty_b[q[k][2]]) >> 16);

				*o[k] = l;
				st->luma_hist[l]++;
				ar += q[k][0];
				ag += q[k][1];
				ab += q[k][2];
			}
			ar >>= 2;
			ag >>= 2;
			ab >>= 2;
			uint8_t u = (uint8_t)((tu_r[ar] + tu_g[ag] + tu_b[ab]) >> 16);
			uint8_t v = (uint8_t)((tv_r[ar] + tv_g[ag] + tv_b[ab]) >> 16);

			up[(y / 2) * (W / 2) + x / 2] = u;
			vp[(y / 2) * (W / 2) + x / 2] = v;
			csum += u + v;
		}
	}
	st->chroma_sum += csum;
}

/* Rate control: sum of absolute deviations from each 8x8 block's mean. */
static __attribute__((noinline)) uint64_t block_activity(const uint8_t *yp)
{
	uint64_t act = 0;

	for (int by = 0; by < H; by += 8)
		for (int bx = 0; bx < W; bx += 8) {
			int sum = 0, dev = 0;

			for (int y = 0; y < 8; y++)
				for (int x = 0; x < 8; x++)
					sum += yp[(by + y) * W + bx + x];
			sum >>= 6;
			for (int y = 0; y < 8; y++)
				for (int x = 0; x < 8; x++) {
					int d = yp[(by + y) * W + bx + x] - sum;

					dev += d < 0 ? -d : d;
				}
			act += dev;
		}
	return act;
}

static void *worker_main(void *arg)
{
	struct camera *cam = arg;
	struct cam_stats *st = &stats[cam->id];
	uint8_t *src = aligned_alloc(64, (size_t)SRC_FRAMES * W * H * 3);
	uint8_t *yp = aligned_alloc(64, W * H);
	uint8_t *up = aligned_alloc(64, W * H / 4);
	uint8_t *vp = aligned_alloc(64, W * H / 4);
	uint64_t digest = 0;

	if (!src || !yp || !up || !vp)
		abort();
	for (int f = 0; f < SRC_FRAMES; f++)
		capture(src + (size_t)f * W * H * 3, cam->id, f);
	for (int f = 0; f < FRAMES; f++) {
		rgb_to_yuv420(src + (size_t)(f % SRC_FRAMES) * W * H * 3, yp, up, vp, st);
		st->activity += block_activity(yp);
		st->frames++;
		digest = digest * 31 + yp[(f * 7919) % (W * H)] + up[f % (W * H / 4)];
	}
	cam->digest = digest;
	free(src);
	free(yp);
	free(up);
	free(vp);
	return NULL;
}

int main(void)
{
	pthread_t tid[NWORKERS];
	struct camera cam[NWORKERS];
	uint64_t sum = 0;

	fill_tables();
	for (int i = 0; i < NWORKERS; i++) {
		cam[i].id = i;
		cam[i].digest = 0;
		if (pthread_create(&tid[i], NULL, worker_main, &cam[i]))
			return 1;
	}
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < NWORKERS; i++) {
		sum = sum * 1000003 + cam[i].digest;
		sum = sum * 1000003 + stats[i].frames;
		sum = sum * 1000003 + stats[i].activity;
		sum = sum * 1000003 + stats[i].chroma_sum;
		for (int l = 0; l < 256; l++)
			sum = sum * 31 + stats[i].luma_hist[l];
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
