/*
 * world_arena_startup: a game server reserves a 512 MiB arena for the
 * world at start-up and marks every slot free once (one-time first-touch
 * faults of 131072 pages), then simulates the only populated zone: 4096 entities
 * (256 KiB) moved, collided against a 64x64 grid and scored every tick.
 * Clean control: the start-up faults happen once and are not repeated,
 * the big arena is touched sequentially once, and the hot loop works on
 * an L2-resident part of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA	(512ul << 20)
#define NENT	4096
#define GRID	64

struct entity {
	float x, y, vx, vy;
	uint32_t hp, team, cell, flags;
	float pad[8];
};

struct zone {
	struct entity *ent;		/* first NENT slots of the arena */
	uint16_t *occupancy;		/* GRID x GRID, after the entities */
};

static __attribute__((noinline)) uint64_t zone__tick(struct zone *z)
{
	uint64_t score = 0;

	memset(z->occupancy, 0, GRID * GRID * sizeof(uint16_t));
	for (int i = 0; i < NENT; i++) {
		struct entity *e = &z->ent[i];

		e->x += e->vx;
		e->y += e->vy;
		if (e->x < 0 || e->x >= GRID)
			e->vx = -e->vx, e->x += 2 * e->vx;
		if (e->y < 0 || e->y >= GRID)
			e->vy = -e->vy, e->y += 2 * e->vy;
		e->cell = (uint32_t)e->y * GRID + (uint32_t)e->x;
		if (z->occupancy[e->cell]++ && e->hp)
			e->hp--;
		score += e->hp + e->cell;
	}
	return score;
}

int main(int argc, char **argv)
{
	long ticks = argc > 1 ? atol(argv[1]) : 60000;
	char *arena = malloc(ARENA);
	struct zone z;
	uint64_t check = 0;

	if (!arena)
		return 1;
	memset(arena, 0xff, ARENA);	/* start-up: mark every slot free */
	z.ent = (struct entity *)arena;
	z.occupancy = (uint16_t *)(arena + NENT * sizeof(struct entity));
	for (int i = 0; i < NENT; i++) {
		z.ent[i].x = (float)(i % GRID);
		z.ent[i].y = (float)(i / GRID % GRID);
		z.ent[i].vx = 0.01f * (i % 7 + 1);
		z.ent[i].vy = 0.013f * (i % 5 + 1);
		z.ent[i].hp = 1000;
	}
	for (long t = 0; t < ticks; t++)
		check += zone__tick(&z);
	printf("checksum %llu\n", (unsigned long long)check);
	free(arena);
	return 0;
}
