// SPDX-License-Identifier: GPL-2.0-only
/*
 * A cloth simulation integrates 256 K vertices with Verlet steps: each
 * step moves a vertex by its velocity implied by the previous position.
 * The step reaches the position and previous position through pointers to
 * the vertex's members (float *x = v->pos, *o = v->prev; x[k], o[k]); a
 * vertex also carries its rest position, normal, texture coordinates,
 * colour, pin flags and neighbour indices, used by the renderer and the
 * constraint solver.  With -DBAD a vertex is one 128-byte struct, so the
 * step reads 24 bytes of each 128 it walks; otherwise positions and
 * previous positions are a parallel array of 24-byte records.
 *
 * Usage: cloth_verlet_hotcold [STEPS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NVERTS (256 * 1024)

#ifdef BAD
struct vertex {
	float pos[3];
	float prev[3];
	float rest[3];
	float normal[3];
	float uv[2];
	uint32_t color;
	uint32_t pinned;
	uint32_t neighbour[16];
};

_Static_assert(sizeof(struct vertex) == 128, "two lines per vertex");
static struct vertex *verts;
#define HOT(i) (&verts[i])
#define COLD(i) (&verts[i])
#else
struct vertex_hot {
	float pos[3];
	float prev[3];
};

struct vertex {
	float rest[3];
	float normal[3];
	float uv[2];
	uint32_t color;
	uint32_t pinned;
	uint32_t neighbour[14];
};

static struct vertex_hot *hot;
static struct vertex *verts;
#define HOT(i) (&hot[i])
#define COLD(i) (&verts[i])
#endif

static __attribute__((noinline)) float cloth__step(float damp)
{
	float drift = 0;

	for (int i = 0; i < NVERTS; i++) {
		float *x = HOT(i)->pos, *o = HOT(i)->prev;

		for (int k = 0; k < 3; k++) {
			float t = x[k];

			x[k] += (x[k] - o[k]) * damp;
			o[k] = t;
		}
		drift += x[1];
	}
	return drift;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 1200;
	double check = 0;

	verts = calloc(NVERTS, sizeof(*verts));
#ifndef BAD
	hot = calloc(NVERTS, sizeof(*hot));
	if (!hot)
		return 1;
#endif
	if (!verts)
		return 1;
	for (int i = 0; i < NVERTS; i++) {
		for (int k = 0; k < 3; k++) {
			HOT(i)->pos[k] = (float)((i * (k + 3)) % 512) * 0.01f;
			HOT(i)->prev[k] = HOT(i)->pos[k] - 0.001f * (float)(k + 1);
			COLD(i)->rest[k] = HOT(i)->pos[k];
		}
		COLD(i)->color = 0xffffffffu;
	}
	for (int s = 0; s < steps; s++)
		check += cloth__step(0.99f);
	printf("checksum %.3f\n", check);
	return 0;
}
