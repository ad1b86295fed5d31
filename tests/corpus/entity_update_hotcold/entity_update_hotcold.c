// SPDX-License-Identifier: GPL-2.0-only
/*
 * The entity store of a game server.  Every tick moves all 48 K entities
 * (position += velocity * dt, bounded to the map); names, inventories and
 * the other fields used by chat, trading and persistence are read only
 * when a player asks.  With -DBAD an entity is one 184-byte struct and the
 * movement loop brings a whole line (sometimes two) per entity through the
 * cache for its 24 bytes of position and velocity; otherwise position and
 * velocity live in their own array (struct entity_motion), 2.7 entities to
 * a line, and the rest in a parallel array.
 *
 * Usage: entity_update_hotcold [TICKS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NENT (48 * 1024)

#ifdef BAD
struct entity {
	float pos[3];
	float vel[3];
	char name[32];
	uint32_t inventory[24];
	uint64_t account_id;
	uint32_t guild_id;
	uint32_t flags;
	uint64_t last_save;
	uint32_t level;
	uint32_t xp;
};

static struct entity *ents;
#define MOTION(i) (&ents[i])
#define COLD(i) (&ents[i])
#else
struct entity_motion {
	float pos[3];
	float vel[3];
};

struct entity {
	char name[32];
	uint32_t inventory[24];
	uint64_t account_id;
	uint32_t guild_id;
	uint32_t flags;
	uint64_t last_save;
	uint32_t level;
	uint32_t xp;
};

static struct entity_motion *motion;
static struct entity *ents;
#define MOTION(i) (&motion[i])
#define COLD(i) (&ents[i])
#endif

static void update_positions(float dt)
{
	for (int i = 0; i < NENT; i++) {
		float *p = MOTION(i)->pos, *v = MOTION(i)->vel;

		for (int k = 0; k < 3; k++) {
			p[k] += v[k] * dt;
			if (p[k] < 0.0f || p[k] > 4096.0f)
				v[k] = -v[k];
		}
	}
}

int main(int argc, char **argv)
{
	long ticks = argc > 1 ? atol(argv[1]) : 12000;
	double sum = 0;

	ents = calloc(NENT, sizeof(*ents));
#ifndef BAD
	motion = calloc(NENT, sizeof(*motion));
	if (!motion)
		return 1;
#endif
	if (!ents)
		return 1;
	for (int i = 0; i < NENT; i++) {
		for (int k = 0; k < 3; k++) {
			MOTION(i)->pos[k] = (float)((i * (k + 7)) % 4096);
			MOTION(i)->vel[k] = (float)((i + k) % 19) - 9.0f;
		}
		snprintf(COLD(i)->name, sizeof(COLD(i)->name), "player%d", i);
		COLD(i)->level = 1 + i % 60;
	}
	for (long t = 0; t < ticks; t++)
		update_positions(0.05f);
	for (int i = 0; i < NENT; i++)
		sum += MOTION(i)->pos[0] + MOTION(i)->pos[1] + MOTION(i)->pos[2] + COLD(i)->level;
	printf("checksum %.2f\n", sum);
	free(ents);
#ifndef BAD
	free(motion);
#endif
	return 0;
}
