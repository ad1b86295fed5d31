// SPDX-License-Identifier: GPL-2.0-only
/*
 * tsdb_ooo_compact: the out-of-order compaction of a time-series database.
 * After a network partition thousands of scrape agents replayed their
 * write-ahead buffers at once; the retried remote-write shards interleaved,
 * so the samples of the block landed in the out-of-order head in
 * no time order.  The head appends every sample to a singly linked list as
 * it arrives, one malloc'd record each (~190 MiB for 2M samples).
 * Compaction sorts the block by (timestamp, series) and hands it to the
 * chunk encoder, which here folds the samples into a checksum in block
 * order.
 *
 * BAD sorts the list in place with a bottom-up linked-list merge sort: the
 * samples are taken in arrival order and merged into runs of doubling
 * length through their next pointers.  Once a run is larger than the
 * caches, every step of a merge loads the record the previous one pointed
 * to, somewhere in the heap.  The encoder then walks the sorted list.
 * GOOD copies (sort key, record) pairs into one array while walking the
 * list in arrival order, sorts the array, and relinks the records in its
 * order while it encodes them: the record loads no longer depend on each
 * other.  Same samples, same order, same checksum.
 *
 * Usage: tsdb_ooo_compact [SAMPLES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSERIES		20000u
#define SCRAPE_MS	15000
#define NTAGS		6

struct sample {
	struct sample *next;	/* arrival order, then block order */
	int64_t ts;		/* ms since the epoch */
	uint64_t series;	/* series ref */
	double value;
	uint64_t ingest_ns;	/* when the head accepted it */
	uint64_t exemplar;	/* exemplar ref, 0 if none */
	uint32_t tags[NTAGS];	/* interned label pairs added by the relay */
	uint32_t shard;		/* remote-write shard that carried it */
	uint16_t flags;		/* stale marker, counter reset */
	uint16_t ntags;
};

struct head {
	struct sample *first, *last;
	size_t n;
	int64_t block_start;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The scrape phase of a series within the interval: distinct per series. */
static int64_t phase_ms(uint64_t series)
{
	return (int64_t)((series * 7919u) % SCRAPE_MS);
}

static void head_append(struct head *h, struct sample *s)
{
	s->next = NULL;
	if (h->last)
		h->last->next = s;
	else
		h->first = s;
	h->last = s;
	h->n++;
}

/*
 * The replayed samples: slot j of series s for every (s, j) of the block,
 * in the shuffled order the retried shards delivered them.
 */
static void ingest(struct head *h, size_t n)
{
	uint32_t *order = malloc(n * sizeof(*order));
	uint64_t x = 0x9e3779b97f4a7c15ull;

	if (!order) {
		perror("malloc");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t k = rnd(&x) % (i + 1);
		uint32_t t = order[i];

		order[i] = order[k];
		order[k] = t;
	}

	h->block_start = 1718000000000ll;
	for (size_t i = 0; i < n; i++) {
		uint64_t series = order[i] % NSERIES;
		uint64_t slot = order[i] / NSERIES;
		struct sample *s = malloc(sizeof(*s));
		uint64_t r = mix(order[i]);

		if (!s) {
			perror("malloc");
			exit(1);
		}
		s->ts = h->block_start + (int64_t)slot * SCRAPE_MS + phase_ms(series);
		s->series = 0x100000 + series;
		s->value = (double)(r >> 40) * 0.001 + (double)slot;
		s->ingest_ns = 1718007300000000000ull + i * 850;
		s->exemplar = (r & 63) == 0 ? r >> 16 : 0;
		s->ntags = 2 + (uint16_t)(series % 5);
		for (int t = 0; t < NTAGS; t++)
			s->tags[t] = t < s->ntags ? (uint32_t)(mix(series * 8 + t) % 50000) : 0;
		s->shard = (uint32_t)(rnd(&x) % 64);
		s->flags = (r >> 8) % 1000 == 0;
		head_append(h, s);
	}
	free(order);
}

/* Fold the next sample of the block into the encoder's checksum. */
static uint64_t encode_one(uint64_t h, const struct sample *s)
{
	uint64_t v;

	memcpy(&v, &s->value, sizeof(v));
	h ^= (uint64_t)s->ts * 0x100000001b3ull;
	h ^= s->series + (v >> 7) + s->flags;
	return h * 0x9e3779b97f4a7c15ull + (h >> 29);
}

#ifdef BAD
/* Block order: by timestamp, then by series ref. */
static int sample_before(const struct sample *a, const struct sample *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->series <= b->series;
}

/* Merge two sorted lists; on equal keys a's sample comes first. */
static struct sample *merge(struct sample *a, struct sample *b)
{
	struct sample head, *tail = &head;

	while (a && b) {
		if (sample_before(a, b)) {
			tail->next = a;
			tail = a;
			a = a->next;
		} else {
			tail->next = b;
			tail = b;
			b = b->next;
		}
	}
	tail->next = a ? a : b;
	return head.next;
}

/*
 * Bottom-up merge sort: bin[i] holds a sorted run of 2^i samples; each
 * sample taken from the list carries into the bins like a binary counter.
 */
static struct sample *compact_block(struct head *h, uint64_t *sum)
{
	struct sample *bin[64] = { 0 };
	struct sample *list = h->first, *x;
	int i, top = 0;

	while (list) {
		x = list;
		list = list->next;
		x->next = NULL;
		for (i = 0; bin[i]; i++) {
			x = merge(bin[i], x);
			bin[i] = NULL;
		}
		bin[i] = x;
		if (i > top)
			top = i;
	}
	x = NULL;
	for (i = 0; i <= top; i++)
		if (bin[i])
			x = x ? merge(bin[i], x) : bin[i];

	*sum = 0;
	for (struct sample *s = x; s; s = s->next)
		*sum = encode_one(*sum, s);
	return x;
}
#else
struct sort_ref {
	uint64_t key;		/* ms into the block << 24 | series ref */
	struct sample *s;
};

static int ref_cmp(const void *pa, const void *pb)
{
	const struct sort_ref *a = pa, *b = pb;

	return (a->key > b->key) - (a->key < b->key);
}

/* Sort (key, record) pairs, then relink and encode the records in their order. */
static struct sample *compact_block(struct head *h, uint64_t *sum)
{
	struct sort_ref *ref = malloc(h->n * sizeof(*ref));
	struct sample *s;
	size_t i = 0;

	if (!ref) {
		perror("malloc");
		exit(1);
	}
	for (s = h->first; s; s = s->next, i++) {
		ref[i].key = (uint64_t)(s->ts - h->block_start) << 24 | s->series;
		ref[i].s = s;
	}
	qsort(ref, h->n, sizeof(*ref), ref_cmp);

	*sum = 0;
	for (i = 0; i < h->n; i++) {
		s = ref[i].s;
		s->next = i + 1 < h->n ? ref[i + 1].s : NULL;
		*sum = encode_one(*sum, s);
	}
	s = h->n ? ref[0].s : NULL;
	free(ref);
	return s;
}
#endif

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
	struct head h = { 0 };
	struct sample *first;
	uint64_t sum;

	if (n == 0 || n > 4000000000u) {
		fprintf(stderr, "usage: %s [SAMPLES]\n", argv[0]);
		return 2;
	}
	ingest(&h, n);
	first = compact_block(&h, &sum);
	printf("%zu samples, first ts %lld series %llu, checksum %016llx\n", h.n,
	       first ? (long long)first->ts : 0, first ? (unsigned long long)first->series : 0,
	       (unsigned long long)sum);
	return 0;
}
