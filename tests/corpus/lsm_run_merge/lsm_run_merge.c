// SPDX-License-Identifier: GPL-2.0-only
/*
 * lsm_run_merge: the range-scan path of a log-structured key-value store.
 * The memtables flushed so far are 8 sorted runs of 196608 entries each;
 * a full range scan merges the 8 runs (smallest key first, the newest
 * sequence number wins on equal keys) and folds the live entries into a
 * checksum.  Every scan walks all 1.5M entries once.
 * BAD: each entry was malloc'd on its own when it was inserted, and the
 * inserts arrived in key order of no run, so a run is a linked list whose
 * nodes lie at random places among ~72 MiB of heap: every step of a run's
 * iterator waits for the node the previous one pointed to.
 * GOOD: the entries of each run are carved from one array in run order (as
 * a flush writes them), so the same list walk goes through memory in
 * address order and the prefetcher runs ahead of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NRUNS	8
#define PER_RUN	196608
#define NENT	(NRUNS * PER_RUN)
#define SCANS	16

struct entry {
	struct entry *next;	/* the next entry of the same run */
	uint64_t key;
	uint32_t seq;		/* higher is newer */
	uint32_t vlen;
	uint64_t vref;		/* where the value lives in the value log */
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Where each entry is stored; slot[r * PER_RUN + i] is entry i of run r. */
static struct entry **entries_place(struct entry **pool)
{
	struct entry **slot = malloc(NENT * sizeof(*slot));

	*pool = NULL;
	if (!slot)
		return NULL;
#ifdef BAD
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < NENT; i++) {
		slot[i] = malloc(sizeof(struct entry));
		if (!slot[i])
			return NULL;
	}
	for (size_t i = NENT - 1; i > 0; i--) {	/* inserted in no run's order */
		size_t j = rnd(&x) % (i + 1);
		struct entry *t = slot[i];

		slot[i] = slot[j];
		slot[j] = t;
	}
#else
	*pool = malloc(NENT * sizeof(struct entry));
	if (!*pool)
		return NULL;
	for (size_t i = 0; i < NENT; i++)
		slot[i] = &(*pool)[i];
#endif
	return slot;
}

/* One full range scan: a k-way merge of the runs' iterators. */
static __attribute__((noinline)) uint64_t merge_scan(struct entry *const *heads)
{
	struct entry *it[NRUNS];
	uint64_t sum = 0, live = 0;

	for (int r = 0; r < NRUNS; r++)
		it[r] = heads[r];
	for (;;) {
		int best = -1;

		for (int r = 0; r < NRUNS; r++) {
			if (!it[r])
				continue;
			if (best < 0 || it[r]->key < it[best]->key ||
			    (it[r]->key == it[best]->key && it[r]->seq > it[best]->seq))
				best = r;
		}
		if (best < 0)
			break;
		uint64_t key = it[best]->key;

		sum = sum * 31 + key + it[best]->vref + it[best]->vlen;
		live++;
		for (int r = 0; r < NRUNS; r++)	/* older versions of the key */
			while (it[r] && it[r]->key == key)
				it[r] = it[r]->next;
	}
	return sum ^ live;
}

int main(void)
{
	struct entry *pool, *heads[NRUNS];
	struct entry **slot = entries_place(&pool);
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

	if (!slot)
		return 1;
	for (int r = 0; r < NRUNS; r++) {
		uint64_t key = 0;

		for (size_t i = 0; i < PER_RUN; i++) {
			struct entry *e = slot[(size_t)r * PER_RUN + i];

			key += 1 + rnd(&x) % 64;
			e->key = key;
			e->seq = (uint32_t)(r * PER_RUN + i);
			e->vlen = (uint32_t)(16 + rnd(&x) % 512);
			e->vref = rnd(&x);
			e->next = i + 1 < PER_RUN ? slot[(size_t)r * PER_RUN + i + 1] : NULL;
		}
		heads[r] = slot[(size_t)r * PER_RUN];
	}
	for (int s = 0; s < SCANS; s++)
		sum += merge_scan(heads);
	printf("%llu\n", (unsigned long long)sum);
#ifdef BAD
	for (size_t i = 0; i < NENT; i++)
		free(slot[i]);
#endif
	free(pool);
	free(slot);
	return 0;
}
