// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_npc_wake_scan: the AI tick of a game server's world simulation.
 * 512 K non-player characters each decide what to do next ("think") every
 * 30 to 70 ticks: after thinking, an NPC sets the tick it wants to wake at.
 * Every tick the server scans the dense array of wake ticks (2 MiB, one
 * 32-bit word per NPC, read front to back) and runs the think step of the
 * few NPCs due now, about 2 % of them.  Only those touch their 192-byte
 * record in the 96 MiB NPC array, and the think step reads and writes
 * nearly all of it (position, velocity, patrol route, perception, health).
 * Nothing here needs fixing: the per-tick scan is a short sequential pass
 * over a small dense array, the records are visited in address order and
 * used whole, and the step's own arithmetic dominates the selected work.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NPCS		(512 * 1024)
#define TICKS		1000
#define ROUTE		8
#define WAKE_MIN	30
#define WAKE_SPAN	41

enum npc_state { NPC_IDLE, NPC_PATROL, NPC_CHASE, NPC_FLEE };

struct npc {
	double pos[3];
	double vel[3];
	float route[ROUTE][3];	/* patrol waypoints */
	uint32_t id;
	uint32_t state;
	uint32_t waypoint;
	uint32_t thinks;
	float health;
	float aggro;
	float fear;
	float speed;
	uint64_t last_tick;
	uint64_t seed;
};
_Static_assert(sizeof(struct npc) == 192, "three lines per NPC");

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static float unit(uint64_t *x)
{
	return (float)(rnd(x) >> 40) / (float)(1 << 24);
}

static void npc_spawn(struct npc *n, uint32_t id, uint64_t *x)
{
	for (int k = 0; k < 3; k++) {
		n->pos[k] = 1000.0 * unit(x);
		n->vel[k] = 0.0;
	}
	for (int w = 0; w < ROUTE; w++)
		for (int k = 0; k < 3; k++)
			n->route[w][k] = (float)n->pos[k] + 80.0f * (unit(x) - 0.5f);
	n->id = id;
	n->state = NPC_PATROL;
	n->waypoint = 0;
	n->thinks = 0;
	n->health = 100.0f;
	n->aggro = unit(x);
	n->fear = unit(x);
	n->speed = 1.0f + 2.0f * unit(x);
	n->last_tick = 0;
	n->seed = rnd(x) | 1;
}

/* One decision: perceive the route, pick a state, steer, move.  Returns the next wake tick. */
static uint32_t npc_think(struct npc *n, uint32_t now)
{
	float dt = (float)(now - n->last_tick), nearest = INFINITY, threat;
	const float *goal = n->route[n->waypoint];
	double d[3], len = 0.0;
	uint32_t near_wp = 0;

	for (int w = 0; w < ROUTE; w++) {
		float dx = n->route[w][0] - (float)n->pos[0];
		float dy = n->route[w][1] - (float)n->pos[1];
		float dz = n->route[w][2] - (float)n->pos[2];
		float dist = sqrtf(dx * dx + dy * dy + dz * dz);

		if (dist < nearest) {
			nearest = dist;
			near_wp = w;
		}
	}
	threat = unit(&n->seed) * n->aggro - n->fear * n->health / 100.0f;
	if (threat > 0.4f)
		n->state = NPC_CHASE;
	else if (threat < -0.6f)
		n->state = NPC_FLEE;
	else
		n->state = nearest < 2.0f ? NPC_IDLE : NPC_PATROL;
	if (n->state == NPC_IDLE)
		n->waypoint = (near_wp + 1) % ROUTE;
	for (int k = 0; k < 3; k++) {
		d[k] = goal[k] - n->pos[k];
		len += d[k] * d[k];
	}
	len = sqrt(len) + 1e-9;
	for (int k = 0; k < 3; k++) {
		double want = d[k] / len * n->speed * (n->state == NPC_FLEE ? -1.0 : 1.0);

		n->vel[k] += (want - n->vel[k]) * 0.25;
		n->pos[k] += n->vel[k] * dt * 0.05;
	}
	n->health = fminf(100.0f, n->health + 0.01f * dt - (n->state == NPC_CHASE ? 0.5f : 0.0f));
	n->aggro = 0.9f * n->aggro + 0.1f * unit(&n->seed);
	n->thinks++;
	n->last_tick = now;
	return now + WAKE_MIN + (uint32_t)(rnd(&n->seed) % WAKE_SPAN);
}

/* One server tick: find the NPCs due now and let them think. */
static __attribute__((noinline)) uint32_t world_tick(struct npc *npcs, uint32_t *wake, uint32_t now)
{
	uint32_t ran = 0;

	for (uint32_t i = 0; i < NPCS; i++) {
		if (wake[i] != now)
			continue;
		wake[i] = npc_think(&npcs[i], now);
		ran++;
	}
	return ran;
}

int main(void)
{
	struct npc *npcs = malloc((size_t)NPCS * sizeof(*npcs));
	uint32_t *wake = malloc((size_t)NPCS * sizeof(*wake));
	uint64_t x = 0x853c49e6748fea9bull, ran = 0;
	double sum = 0.0;

	if (!npcs || !wake)
		return 1;
	for (uint32_t i = 0; i < NPCS; i++) {
		npc_spawn(&npcs[i], i, &x);
		wake[i] = 1 + rnd(&x) % (WAKE_MIN + WAKE_SPAN);
	}
	for (uint32_t now = 1; now <= TICKS; now++)
		ran += world_tick(npcs, wake, now);
	for (uint32_t i = 0; i < NPCS; i += 97)
		sum += npcs[i].pos[0] + npcs[i].pos[1] + npcs[i].health + npcs[i].thinks;
	printf("%llu %.3f\n", (unsigned long long)ran, sum);
	free(wake);
	free(npcs);
	return 0;
}
