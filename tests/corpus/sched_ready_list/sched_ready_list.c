/*
 * sched_ready_list: a user-space job scheduler keeps its ready jobs ordered
 * by priority.  Every tick it ages all waiting jobs (raising the priority of
 * those that waited long) and picks the best one to run.
 * BAD keeps the jobs as separately malloc'd nodes on a linked list in
 * priority order.  The jobs were created in one order and sorted by
 * another, and each came with a payload allocated next to it, so the walk
 * jumps between 393216 nodes spread over ~100 MiB of heap: each step waits
 * for the node the previous one pointed to.  GOOD keeps the same job
 * records in one array, in the same priority order, and walks it by index.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NJOBS	393216
#define TICKS	40

struct job {
	struct job *next;	/* BAD: the ready list in priority order */
	uint64_t id;
	uint32_t prio;
	uint32_t waited;
	uint64_t deadline;
	void *payload;
	uint64_t runtime;
	uint64_t pad[2];
};

_Static_assert(sizeof(struct job) == 64, "one line per job");

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int by_prio(const void *a, const void *b)
{
	const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;

	return x->prio < y->prio ? -1 : x->prio > y->prio;
}

/* Ages every ready job; returns the id of the best one. */
#ifdef BAD
static __attribute__((noinline)) uint64_t tick(struct job *head, uint64_t now)
{
	uint64_t best = 0, best_key = UINT64_MAX;

	for (struct job *j = head; j; j = j->next) {
		j->waited++;
		if (j->waited > 64 && j->prio)
			j->prio--;
		uint64_t key = (uint64_t)j->prio << 32 | (j->deadline - now);
		if (key < best_key) {
			best_key = key;
			best = j->id;
		}
	}
	return best;
}
#else
static __attribute__((noinline)) uint64_t tick(struct job *jobs, size_t n, uint64_t now)
{
	uint64_t best = 0, best_key = UINT64_MAX;

	for (size_t i = 0; i < n; i++) {
		struct job *j = &jobs[i];

		j->waited++;
		if (j->waited > 64 && j->prio)
			j->prio--;
		uint64_t key = (uint64_t)j->prio << 32 | (j->deadline - now);
		if (key < best_key) {
			best_key = key;
			best = j->id;
		}
	}
	return best;
}
#endif

int main(void)
{
	struct job **made = malloc(NJOBS * sizeof(*made));
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

	if (!made)
		return 1;
	for (size_t i = 0; i < NJOBS; i++) {	/* jobs arrive with their payloads */
		made[i] = malloc(sizeof(struct job));
		if (!made[i])
			return 1;
		made[i]->id = i;
		made[i]->prio = (uint32_t)(rnd(&x) % 100000);
		made[i]->waited = 0;
		made[i]->deadline = 1000000 + rnd(&x) % 1000000;
		made[i]->runtime = 0;
		made[i]->payload = malloc(160 + rnd(&x) % 64);
	}
	qsort(made, NJOBS, sizeof(*made), by_prio);	/* the ready order */
#ifdef BAD
	for (size_t i = 0; i + 1 < NJOBS; i++)
		made[i]->next = made[i + 1];
	made[NJOBS - 1]->next = NULL;
	for (int t = 0; t < TICKS; t++)
		sum += tick(made[0], (uint64_t)t);
#else
	struct job *jobs = malloc(NJOBS * sizeof(*jobs));

	if (!jobs)
		return 1;
	for (size_t i = 0; i < NJOBS; i++) {
		jobs[i] = *made[i];
		jobs[i].next = NULL;
	}
	for (int t = 0; t < TICKS; t++)
		sum += tick(jobs, NJOBS, (uint64_t)t);
#endif
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
