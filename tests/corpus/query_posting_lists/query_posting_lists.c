// SPDX-License-Identifier: GPL-2.0-only
/*
 * query_posting_lists: the query evaluator of a full-text search index.
 * Each of the 8 terms of a query has a posting list (the documents that
 * contain it, in document order, with the term frequency and the field it
 * was found in).  An "at least 3 of these 8 terms" query reads the 8 lists
 * together: at each step it takes the smallest current document among the
 * lists, scores it from the lists that hold it and advances those lists.
 * BAD keeps every posting list as a singly linked list of malloc'd nodes.
 * The indexer allocated the nodes as documents arrived, term after term
 * interleaved, so a list's next node is anywhere among 3.4 M nodes
 * (~110 MiB, many nodes per page): each step of each list is a load whose
 * address comes from the previous load, and it misses.
 * GOOD stores each list's postings in one array in list order (what the
 * index would do when it seals a segment): the same merge walks 8 arrays
 * forward and the hardware prefetcher runs ahead of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TERMS		8
#define DOCS		3000000
#define QUERIES		6
#define FIELD_TITLE	1
#define END_DOC		UINT32_MAX

#ifdef BAD
struct posting {
	uint32_t doc;
	uint16_t tf;
	uint16_t field;
	struct posting *next;
};
#define posting_next(p)	((p)->next)
#else
struct posting {
	uint32_t doc;
	uint16_t tf;
	uint16_t field;
};
#define posting_next(p)	((p) + 1)
#endif

struct term_list {
	struct posting *head;
	uint32_t len;		/* postings, without the END_DOC sentinel */
};

struct query {
	uint32_t weight[TERMS];
	int min_match;
};

struct query_result {
	uint64_t hits;
	uint64_t score_sum;
	uint32_t best_score;
	uint32_t best_doc;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Document ids for every term: term t appears in about (6 + 2t) % of documents. */
static uint32_t *term_docs(int t, uint32_t *len, uint64_t *x)
{
	uint32_t cap = DOCS / 2, n = 0, gap = 100 / (6 + 2 * t);
	uint32_t *docs = malloc(cap * sizeof(*docs));

	if (!docs)
		return NULL;
	for (uint32_t d = rnd(x) % gap; d < DOCS && n < cap; d += 1 + rnd(x) % (2 * gap))
		docs[n++] = d;
	*len = n;
	return docs;
}

/*
 * Builds the lists: BAD mallocs every node in the order the indexer met
 * them (all terms interleaved at random), GOOD one array per list.
 */
static int index_build(struct term_list *lists, uint64_t *x)
{
	uint32_t *docs[TERMS], total = 0;

	for (int t = 0; t < TERMS; t++) {
		docs[t] = term_docs(t, &lists[t].len, x);
		if (!docs[t])
			return -1;
		total += lists[t].len;
	}
#ifdef BAD
	/* arrival order: a shuffled sequence of (term, rank) */
	uint32_t *order = malloc((size_t)total * sizeof(*order));
	struct posting **node[TERMS];
	uint64_t arrival = 0x9e3779b97f4a7c15ull;
	uint32_t k = 0;

	if (!order)
		return -1;
	for (int t = 0; t < TERMS; t++) {
		node[t] = malloc(((size_t)lists[t].len + 1) * sizeof(**node));
		if (!node[t])
			return -1;
		for (uint32_t i = 0; i < lists[t].len; i++)
			order[k++] = (uint32_t)t << 28 | i;
	}
	for (uint32_t i = total - 1; i > 0; i--) {
		uint32_t j = rnd(&arrival) % (i + 1), tmp = order[i];

		order[i] = order[j];
		order[j] = tmp;
	}
	for (uint32_t i = 0; i < total; i++) {
		struct posting *p = malloc(sizeof(*p));

		if (!p)
			return -1;
		node[order[i] >> 28][order[i] & 0xfffffff] = p;
	}
	free(order);
	for (int t = 0; t < TERMS; t++) {
		struct posting *end = malloc(sizeof(*end));

		if (!end)
			return -1;
		node[t][lists[t].len] = end;
		end->doc = END_DOC;
		end->next = end;
		for (uint32_t i = 0; i < lists[t].len; i++) {
			struct posting *p = node[t][i];

			p->doc = docs[t][i];
			p->tf = 1 + rnd(x) % 7;
			p->field = rnd(x) % 10 == 0 ? FIELD_TITLE : 0;
			p->next = node[t][i + 1];
		}
		lists[t].head = node[t][0];
		free(node[t]);
		free(docs[t]);
	}
#else
	for (int t = 0; t < TERMS; t++) {
		struct posting *a = malloc(((size_t)lists[t].len + 1) * sizeof(*a));

		if (!a)
			return -1;
		for (uint32_t i = 0; i < lists[t].len; i++) {
			a[i].doc = docs[t][i];
			a[i].tf = 1 + rnd(x) % 7;
			a[i].field = rnd(x) % 10 == 0 ? FIELD_TITLE : 0;
		}
		a[lists[t].len].doc = END_DOC;
		lists[t].head = a;
		free(docs[t]);
	}
#endif
	return 0;
}

static void index_free(struct term_list *lists)
{
	for (int t = 0; t < TERMS; t++) {
#ifdef BAD
		struct posting *p = lists[t].head;

		while (p->doc != END_DOC) {
			struct posting *next = p->next;

			free(p);
			p = next;
		}
		free(p);
#else
		free(lists[t].head);
#endif
	}
}

/* One query: the 8 lists merged in document order. */
static __attribute__((noinline)) void query_run(const struct term_list *lists,
						const struct query *q,
						struct query_result *res)
{
	const struct posting *cur[TERMS];
	uint64_t hits = 0, score_sum = 0;
	uint32_t best = 0, best_doc = 0;

	for (int t = 0; t < TERMS; t++)
		cur[t] = lists[t].head;
	for (;;) {
		uint32_t doc = END_DOC, score = 0;
		int matched = 0;

		for (int t = 0; t < TERMS; t++)
			doc = cur[t]->doc < doc ? cur[t]->doc : doc;
		if (doc == END_DOC)
			break;
		for (int t = 0; t < TERMS; t++) {
			if (cur[t]->doc != doc)
				continue;
			score += (q->weight[t] * cur[t]->tf) << (cur[t]->field == FIELD_TITLE);
			matched++;
			cur[t] = posting_next(cur[t]);
		}
		if (matched < q->min_match)
			continue;
		hits++;
		score_sum += score;
		if (score > best) {
			best = score;
			best_doc = doc;
		}
	}
	res->hits = hits;
	res->score_sum = score_sum;
	res->best_score = best;
	res->best_doc = best_doc;
}

int main(int argc, char **argv)
{
	int queries = argc > 1 ? atoi(argv[1]) : QUERIES;
	struct term_list lists[TERMS];
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

	if (index_build(lists, &x))
		return 1;
	for (int i = 0; i < queries; i++) {
		struct query q = { .min_match = 2 + i % 3 };
		struct query_result r;

		for (int t = 0; t < TERMS; t++)
			q.weight[t] = 1 + rnd(&x) % 20;	/* idf of the term in this shard */
		query_run(lists, &q, &r);
		sum += r.hits * 31 + r.score_sum + ((uint64_t)r.best_score << 32) + r.best_doc;
	}
	printf("%llu\n", (unsigned long long)sum);
	index_free(lists);
	return 0;
}
