// SPDX-License-Identifier: GPL-2.0-only
/*
 * A particle system integrated by two threads, each advancing half of the
 * particles for many time steps (gravity, drag, bouncing off the floor and
 * the walls).  With -DBAD the work is dealt round-robin (thread t takes
 * particles t, t+2, t+4, ...), so every cache line of the array holds
 * particles written by both threads; otherwise each thread takes one
 * contiguous half.
 *
 * Usage: particle_interleaved_split [STEPS]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NPART 8192
#define NTHREADS 2

struct particle {
	float x, y;
	float vx, vy;
};

static struct particle *parts;

struct range {
	int tid;
	long steps;
};

static void *integrate(void *p)
{
	const struct range *r = p;
	const float dt = 0.001f, g = -9.81f, drag = 0.9999f;
#ifdef BAD
	int first = r->tid, step = NTHREADS, end = NPART;
#else
	int first = r->tid * (NPART / NTHREADS), step = 1, end = first + NPART / NTHREADS;
#endif

	for (long s = 0; s < r->steps; s++) {
		for (int i = first; i < end; i += step) {
			struct particle *q = &parts[i];

			q->vy = (q->vy + g * dt) * drag;
			q->vx *= drag;
			q->x += q->vx * dt;
			q->y += q->vy * dt;
			if (q->y < 0.0f) {
				q->y = -q->y;
				q->vy = -q->vy * 0.8f;
			}
			if (q->x < 0.0f || q->x > 100.0f)
				q->vx = -q->vx;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 200000;
	struct range r[NTHREADS];
	pthread_t t[NTHREADS];
	double sum = 0;

	parts = aligned_alloc(64, NPART * sizeof(*parts));
	if (!parts)
		return 1;
	for (int i = 0; i < NPART; i++)
		parts[i] = (struct particle){ .x = (float)(i % 100), .y = 10.0f + (float)(i % 37),
					      .vx = (float)(i % 7) - 3.0f, .vy = 0.0f };
	for (int i = 0; i < NTHREADS; i++) {
		r[i] = (struct range){ .tid = i, .steps = steps };
		if (pthread_create(&t[i], NULL, integrate, &r[i]))
			return 1;
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NPART; i++)
		sum += parts[i].x + parts[i].y;
	printf("checksum %.3f\n", sum);
	free(parts);
	return 0;
}
