/*
 * sim_history_log: a 1-D heat-diffusion solver keeps its 256 KiB state
 * and its 256 KiB scratch row in L2 and, after every time step, appends a
 * snapshot of the state to a 256 MiB history log that is written out later for post-processing; the
 * solver never reads the log. BAD copies the snapshot with ordinary stores:
 * each log line is read for ownership and the 256 KiB written per step
 * passes through L1 and L2, evicting the solver state, which the next step
 * has to fetch again from L3. GOOD copies with non-temporal stores
 * (_mm_stream_pd) and one _mm_sfence per snapshot, so the log bypasses the
 * caches and the state stays in L2.
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NCELL	(32 * 1024)		/* 256 KiB of double */
#define LOGSZ	(256ul << 20)

struct solver {
	double *u, *tmp;
	double *log;		/* LOGSZ bytes, ring of snapshots */
	size_t log_pos;		/* in doubles */
};

static __attribute__((noinline)) void solver__step(struct solver *s)
{
	for (int i = 1; i < NCELL - 1; i++)
		s->tmp[i] = s->u[i] + 0.25 * (s->u[i - 1] - 2 * s->u[i] + s->u[i + 1]);
	for (int i = 1; i < NCELL - 1; i++)
		s->u[i] = s->tmp[i];
}

static __attribute__((noinline)) void solver__snapshot(struct solver *s)
{
	double *dst = s->log + s->log_pos;

	for (int i = 0; i < NCELL; i += 2) {
		__m128d v = _mm_load_pd(s->u + i);
#ifdef BAD
		_mm_store_pd(dst + i, v);
#else
		_mm_stream_pd(dst + i, v);
#endif
	}
#ifndef BAD
	_mm_sfence();
#endif
	s->log_pos = (s->log_pos + NCELL) % (LOGSZ / sizeof(double));
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 20000;
	struct solver s;
	double check = 0;

	s.u = aligned_alloc(64, NCELL * sizeof(double));
	s.tmp = aligned_alloc(64, NCELL * sizeof(double));
	s.log = aligned_alloc(4096, LOGSZ);
	s.log_pos = 0;
	if (!s.u || !s.tmp || !s.log)
		return 1;
	for (int i = 0; i < NCELL; i++)
		s.u[i] = s.tmp[i] = (i % 1000) < 500 ? 1.0 : 0.0;
	for (int t = 0; t < steps; t++) {
		solver__step(&s);
		solver__snapshot(&s);
		check += s.u[(t * 7919) % NCELL];
	}
	printf("checksum %.6f\n", check);
	free(s.u);
	free(s.tmp);
	free(s.log);
	return 0;
}
