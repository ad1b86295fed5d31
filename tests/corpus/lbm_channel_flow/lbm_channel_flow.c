// SPDX-License-Identifier: GPL-2.0-only
/*
 * lbm_channel_flow: a lattice-Boltzmann solver (D2Q9, BGK collision)
 * for pressure-driven flow in a 512 x 256 channel, periodic along x with
 * bounce-back walls at the top and bottom row.  The populations are kept
 * in structure-of-arrays form, one 512 x 256 plane of doubles (1 MiB) per
 * lattice direction, in two lattices that the steps alternate between.
 * Each step pulls the nine populations of a cell from its neighbours in
 * the source lattice, collides them and stores the nine results into the
 * destination lattice: eighteen planes are walked together, cell by cell.
 * BAD: the eighteen planes are carved out of one slab back to back, so
 * their starts are 1 MiB apart; cell (y, x) of every plane lands in the
 * same L1d set (4 KiB period) and the same L2 set (64 KiB period).
 * GOOD: each plane is followed by one spare cache line, so the planes
 * start 64 bytes apart modulo 4 KiB and spread over different sets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX	512
#define NY	256
#define Q	9
#define CELLS	(NX * NY)
#ifdef BAD
#define PITCH	CELLS			/* doubles from one plane to the next */
#else
#define PITCH	(CELLS + 8)		/* one spare cache line per plane */
#endif

static const int cx[Q] = { 0, 1, 0, -1, 0, 1, -1, -1, 1 };
static const int cy[Q] = { 0, 0, 1, 0, -1, 1, 1, -1, -1 };
static const int opp[Q] = { 0, 3, 4, 1, 2, 7, 8, 5, 6 };
static const double wt[Q] = { 4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9,
			      1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36 };

struct lattice {
	double *f[Q];			/* plane per direction, [y * NX + x] */
};

static double *slab_alloc(struct lattice *a, struct lattice *b)
{
	double *slab = aligned_alloc(4096, (size_t)2 * Q * PITCH * sizeof(double) + 4096);

	if (!slab)
		exit(1);
	for (int i = 0; i < Q; i++) {
		a->f[i] = slab + (size_t)i * PITCH;
		b->f[i] = slab + (size_t)(Q + i) * PITCH;
	}
	return slab;
}

static void lattice_init(struct lattice *l)
{
	for (int y = 0; y < NY; y++)
		for (int x = 0; x < NX; x++)
			for (int i = 0; i < Q; i++)
				l->f[i][y * NX + x] = wt[i];
}

/* BGK collision of the nine pulled populations of one cell into dst at k. */
static inline void collide(double *const d[Q], int k, const double f[Q], double omega, double force)
{
	double rho = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8];
	double irho = 1.0 / rho;
	double ux = (f[1] - f[3] + f[5] - f[6] - f[7] + f[8]) * irho + force;
	double uy = (f[2] - f[4] + f[5] + f[6] - f[7] - f[8]) * irho;
	double usq = 1.5 * (ux * ux + uy * uy);
	double r0 = rho * (4.0 / 9), r1 = rho * (1.0 / 9), r2 = rho * (1.0 / 36);
	double a = ux + uy, b = uy - ux;

#define FEQ(r, cu)	((r) * (1.0 + 3.0 * (cu) + 4.5 * (cu) * (cu) - usq))
#define RELAX(i, feq)	d[i][k] = f[i] + omega * ((feq) - f[i])
	RELAX(0, r0 * (1.0 - usq));
	RELAX(1, FEQ(r1, ux));
	RELAX(2, FEQ(r1, uy));
	RELAX(3, FEQ(r1, -ux));
	RELAX(4, FEQ(r1, -uy));
	RELAX(5, FEQ(r2, a));
	RELAX(6, FEQ(r2, b));
	RELAX(7, FEQ(r2, -a));
	RELAX(8, FEQ(r2, -b));
#undef FEQ
#undef RELAX
}

/* One pull-stream + collide step from src to dst. */
static __attribute__((noinline)) void lbm_step(const struct lattice *src, struct lattice *dst,
					       double omega, double force)
{
	for (int y = 0; y < NY; y++) {
		const double *s[Q];
		double *d[Q];
		int row = y * NX;

		for (int i = 0; i < Q; i++) {
			int sy = y - cy[i];

			d[i] = dst->f[i];
			/* pulled from the row sy, or bounced back at a wall */
			s[i] = sy < 0 || sy >= NY ? NULL : src->f[i] + sy * NX;
		}
		for (int x = 0; x < NX; x++) {
			int xm = (x - 1) & (NX - 1), xp = (x + 1) & (NX - 1);
			int sx[3] = { xm, x, xp };	/* x - cx for cx = 1, 0, -1 */
			double f[Q];

#pragma GCC unroll 9
			for (int i = 0; i < Q; i++)
				f[i] = s[i] ? s[i][sx[1 - cx[i]]] : src->f[opp[i]][row + x];
			collide(d, row + x, f, omega, force);
		}
	}
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 500;
	struct lattice l[2];
	double *slab = slab_alloc(&l[0], &l[1]);
	uint64_t sum = 0;

	lattice_init(&l[0]);
	lattice_init(&l[1]);
	for (long t = 0; t < steps; t++)
		lbm_step(&l[t & 1], &l[(t + 1) & 1], 1.0 / 0.8, 1e-6);

	/* the velocity profile across the channel */
	const struct lattice *fin = &l[steps & 1];

	for (int y = 0; y < NY; y++) {
		double mom = 0.0;

		for (int x = 0; x < NX; x++)
			for (int i = 0; i < Q; i++)
				mom += cx[i] * fin->f[i][y * NX + x];
		uint64_t bits;

		memcpy(&bits, &mom, sizeof(bits));
		sum = (sum ^ bits) * 0x100000001b3ull;
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	free(slab);
	return 0;
}
