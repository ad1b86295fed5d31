// SPDX-License-Identifier: GPL-2.0-only
/*
 * A direct-summation gravitational n-body step over 384 bodies: every step
 * computes all pairwise forces (a square root and a division per pair) and
 * then moves the bodies.  The bodies' array is 21 KiB and stays in L1; the
 * run is bound by arithmetic, not by memory.  A clean control.
 *
 * Usage: clean_nbody_small [STEPS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NBODY 384

struct body {
	double x, y, z;
	double vx, vy, vz;
	double mass;
};

static struct body bodies[NBODY];

static void advance(double dt)
{
	for (int i = 0; i < NBODY; i++) {
		double ax = 0, ay = 0, az = 0;

		for (int j = 0; j < NBODY; j++) {
			double dx = bodies[j].x - bodies[i].x, dy = bodies[j].y - bodies[i].y;
			double dz = bodies[j].z - bodies[i].z;
			double d2 = dx * dx + dy * dy + dz * dz + 1e-3;
			double inv = bodies[j].mass / (d2 * sqrt(d2));

			ax += dx * inv;
			ay += dy * inv;
			az += dz * inv;
		}
		bodies[i].vx += ax * dt;
		bodies[i].vy += ay * dt;
		bodies[i].vz += az * dt;
	}
	for (int i = 0; i < NBODY; i++) {
		bodies[i].x += bodies[i].vx * dt;
		bodies[i].y += bodies[i].vy * dt;
		bodies[i].z += bodies[i].vz * dt;
	}
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 3600;
	double e = 0;

	for (int i = 0; i < NBODY; i++)
		bodies[i] = (struct body){ .x = cos(i * 0.1) * (1 + i % 13), .y = sin(i * 0.1) * (1 + i % 7),
					   .z = (i % 5) * 0.3, .mass = 1.0 + (i % 3) };
	for (long s = 0; s < steps; s++)
		advance(1e-4);
	for (int i = 0; i < NBODY; i++)
		e += bodies[i].mass * (bodies[i].vx * bodies[i].vx + bodies[i].vy * bodies[i].vy +
				       bodies[i].vz * bodies[i].vz);
	printf("checksum %.6f\n", e);
	return 0;
}
