/*
 * particle_sweep: a particle simulation applies gravity and a floor bounce
 * every step; the integration step touches only the vertical position and
 * velocity of each particle. BAD keeps particles as an array of 128-byte
 * structs (array of structs), so the sweep reads 8 useful bytes per 128-byte
 * stride; GOOD keeps each field in its own array (struct of arrays), so the
 * sweep reads consecutive floats.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NPART	(1 << 21)

#ifdef BAD
struct particle {
	float px, py, pz;
	float vx, vy, vz;
	float mass, charge, radius, age;
	float color[4];
	uint32_t id, flags, cell, owner;
	float trail[14];
};

struct system {
	struct particle *p;
};

static int system__init(struct system *s)
{
	s->p = calloc(NPART, sizeof(*s->p));
	if (!s->p)
		return -1;
	for (int i = 0; i < NPART; i++) {
		s->p[i].py = (float)(i % 1000);
		s->p[i].vy = (float)(i % 7);
		s->p[i].id = i;
	}
	return 0;
}

static __attribute__((noinline)) float system__fall(struct system *s, float dt)
{
	float e = 0;

	for (int i = 0; i < NPART; i++) {
		struct particle *p = &s->p[i];

		p->vy -= 9.81f * dt;
		p->py += p->vy * dt;
		if (p->py < 0) {
			p->py = -p->py;
			p->vy = -0.9f * p->vy;
		}
		e += p->vy;
	}
	return e;
}

static void system__free(struct system *s)
{
	free(s->p);
}
#else
struct system {
	float *px, *py, *pz;
	float *vx, *vy, *vz;
	float *mass, *charge, *radius, *age;
	float (*color)[4];
	uint32_t *id, *flags, *cell, *owner;
	float (*trail)[14];
};

static int system__init(struct system *s)
{
	s->px = calloc(NPART, sizeof(float));
	s->py = calloc(NPART, sizeof(float));
	s->pz = calloc(NPART, sizeof(float));
	s->vx = calloc(NPART, sizeof(float));
	s->vy = calloc(NPART, sizeof(float));
	s->vz = calloc(NPART, sizeof(float));
	s->mass = calloc(NPART, sizeof(float));
	s->charge = calloc(NPART, sizeof(float));
	s->radius = calloc(NPART, sizeof(float));
	s->age = calloc(NPART, sizeof(float));
	s->color = calloc(NPART, sizeof(*s->color));
	s->id = calloc(NPART, sizeof(uint32_t));
	s->flags = calloc(NPART, sizeof(uint32_t));
	s->cell = calloc(NPART, sizeof(uint32_t));
	s->owner = calloc(NPART, sizeof(uint32_t));
	s->trail = calloc(NPART, sizeof(*s->trail));
	if (!s->py || !s->vy || !s->id || !s->trail)
		return -1;
	for (int i = 0; i < NPART; i++) {
		s->py[i] = (float)(i % 1000);
		s->vy[i] = (float)(i % 7);
		s->id[i] = i;
	}
	return 0;
}

static __attribute__((noinline)) float system__fall(struct system *s, float dt)
{
	float e = 0;

	for (int i = 0; i < NPART; i++) {
		s->vy[i] -= 9.81f * dt;
		s->py[i] += s->vy[i] * dt;
		if (s->py[i] < 0) {
			s->py[i] = -s->py[i];
			s->vy[i] = -0.9f * s->vy[i];
		}
		e += s->vy[i];
	}
	return e;
}

static void system__free(struct system *s)
{
	free(s->px); free(s->py); free(s->pz);
	free(s->vx); free(s->vy); free(s->vz);
	free(s->mass); free(s->charge); free(s->radius); free(s->age);
	free(s->color); free(s->id); free(s->flags); free(s->cell); free(s->owner);
	free(s->trail);
}
#endif

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 120;
	struct system s;
	double check = 0;

	if (system__init(&s))
		return 1;
	for (int t = 0; t < steps; t++)
		check += system__fall(&s, 0.001f);
	printf("checksum %.3f\n", check);
	system__free(&s);
	return 0;
}
