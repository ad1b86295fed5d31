// SPDX-License-Identifier: GPL-2.0-only
/*
 * A flight controller's log analyser integrates the gyro rates of 1.5 M
 * recorded IMU frames, pass after pass over a sliding set of filters.  The
 * integration reaches the three rates through a pointer to the frame's
 * member (const float *g = f->gyro; g[k]).  A frame also carries the
 * accelerometer, magnetometer, temperature, timestamps, a quaternion and a
 * status block, used by the exporter.  With -DBAD a frame is one 96-byte
 * struct, so the loop reads 16 bytes of each 96 it walks (two lines for
 * every frame and a half); otherwise the gyro rates and the frame's
 * sensor time are a parallel array of 16-byte records.
 *
 * Usage: imu_window_hotcold [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NFRAMES (1536 * 1024)

#ifdef BAD
struct imu_frame {
	int16_t gyro[3];	/* raw counts */
	uint16_t range;
	uint32_t sensor_us;
	float accel[3];
	float mag[3];
	float quat[4];
	float temp_c;
	uint32_t seq;
	uint64_t host_ns;
	uint32_t status;
	uint32_t flags;
	uint8_t spare[16];
};

_Static_assert(sizeof(struct imu_frame) == 96, "one and a half lines a frame");
static struct imu_frame *frames;
#define RATES(i) (&frames[i])
#define REST(i) (&frames[i])
#else
struct imu_rates {
	int16_t gyro[3];	/* raw counts */
	uint16_t range;
	uint32_t sensor_us;
};

struct imu_frame {
	float accel[3];
	float mag[3];
	float quat[4];
	float temp_c;
	uint32_t seq;
	uint64_t host_ns;
	uint32_t status;
	uint32_t flags;
	uint8_t spare[20];
};

static struct imu_rates *rates;
static struct imu_frame *frames;
#define RATES(i) (&rates[i])
#define REST(i) (&frames[i])
#endif

/* the rotation energy of the window: rate counts weighted per axis, and the clock's parity */
static __attribute__((noinline)) int64_t imu__integrate(const int32_t weight[3])
{
	int64_t energy = 0;
	uint32_t last = RATES(0)->sensor_us;

	for (int i = 0; i < NFRAMES; i++) {
		const int16_t *g = RATES(i)->gyro;

		for (int k = 0; k < 3; k++)
			energy += (int64_t)g[k] * weight[k];
		last ^= RATES(i)->sensor_us;
	}
	return energy + (last & 1);
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 250;
	int64_t check = 0;

	frames = calloc(NFRAMES, sizeof(*frames));
#ifndef BAD
	rates = calloc(NFRAMES, sizeof(*rates));
	if (!rates)
		return 1;
#endif
	if (!frames)
		return 1;
	for (int i = 0; i < NFRAMES; i++) {
		for (int k = 0; k < 3; k++) {
			RATES(i)->gyro[k] = (int16_t)((i * (k + 5)) % 2000 - 1000);
			REST(i)->accel[k] = (float)k;
		}
		RATES(i)->sensor_us = (uint32_t)i * 1000u;
		REST(i)->seq = (uint32_t)i;
	}
	for (int p = 0; p < passes; p++) {
		int32_t weight[3] = { 3 + p % 7, -2, 1 + p % 3 };

		check += imu__integrate(weight);
	}
	printf("checksum %lld\n", (long long)check);
#ifndef BAD
	free(rates);
#endif
	free(frames);
	return 0;
}
