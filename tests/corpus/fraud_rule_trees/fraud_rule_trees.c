// SPDX-License-Identifier: GPL-2.0-only
/*
 * fraud_rule_trees: the scoring stage of a card-fraud rules engine.  Each
 * rule is a condition tree: leaves compare one field of the transaction
 * with a threshold and yield the leaf's points, inner nodes combine their
 * two children (AND = min, OR = max, SUM = +).  A rule whose tree scores at
 * least its threshold adds its weight to the transaction's risk.  Every
 * transaction is scored against all rules.
 *
 * The rules live in a database as two tables: conditions (one row per tree
 * node, numbered as the analysts created them over the years) and links
 * (parent, left, right).  The loader reads the conditions in id order,
 * allocating each node and its description string, then links the trees.
 * A rule's nodes were created at different times, so their ids, and the
 * nodes, lie anywhere among the ~1.5M conditions.
 *
 * BAD evaluates the linked trees recursively: each child is reached through
 * its parent's pointer, a jump to a random place in ~140 MiB of heap.
 * GOOD compiles each rule once after loading: the same condition records,
 * copied into one array in post order, evaluated by index with a small
 * value stack.  Same rules, same node evaluations, same scores.
 *
 * Usage: fraud_rule_trees [TRANSACTIONS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRULES	98304
#define NFIELDS	16
#define MAXLEAF	12

enum { C_LT, C_GE, C_EQ, C_AND, C_OR, C_SUM };

struct cond {
	uint8_t kind;
	uint8_t field;		/* leaves: which transaction field */
	uint16_t points;	/* leaves: what a true comparison yields */
	int32_t arg;		/* leaves: the threshold */
	struct cond *left, *right;
	char *desc;		/* for explanations and the audit log */
};

struct rule {
	int32_t threshold;
	int32_t weight;
#ifdef BAD
	struct cond *root;
#else
	uint32_t first, len;	/* its code in prog[] */
#endif
};

/* The result set of the two tables, as the database driver returns it. */
struct cond_row {
	uint8_t kind, field;
	uint16_t points;
	int32_t arg;
	uint32_t left, right;	/* condition ids (links table) */
};

static struct rule rules[NRULES];
static const char *const field_name[NFIELDS] = {
	"amount", "mcc", "country", "hour", "card_age_days", "txn_last_hour",
	"txn_last_day", "distance_km", "merchant_risk", "device_age_days",
	"ip_risk", "chargebacks", "avg_amount", "pos_mode", "currency", "channel",
};
static const char *const kind_name[] = { "<", ">=", "==", "all of", "any of", "sum of" };

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* One rule's tree with nleaf leaves, its nodes numbered through ids[]. */
static uint32_t gen_tree(struct cond_row *rows, const uint32_t *ids, uint32_t *next,
			 int nleaf, uint64_t *x)
{
	uint32_t id = ids[(*next)++];
	struct cond_row *r = &rows[id];

	if (nleaf == 1) {
		r->kind = (uint8_t)(rnd(x) % 3);
		r->field = (uint8_t)(rnd(x) % NFIELDS);
		r->points = (uint16_t)(1 + rnd(x) % 100);
		r->arg = (int32_t)(rnd(x) % 1000);
		r->left = r->right = UINT32_MAX;
		return id;
	}
	int nl = 1 + (int)(rnd(x) % (uint64_t)(nleaf - 1));

	r->kind = (uint8_t)(C_AND + rnd(x) % 3);
	r->field = 0;
	r->points = 0;
	r->arg = 0;
	r->left = gen_tree(rows, ids, next, nl, x);
	r->right = gen_tree(rows, ids, next, nleaf - nl, x);
	return id;
}

#ifdef BAD
static int32_t eval(const struct cond *c, const int32_t *tx)
{
	int32_t l, r;

	switch (c->kind) {
	case C_LT:
		return tx[c->field] < c->arg ? c->points : 0;
	case C_GE:
		return tx[c->field] >= c->arg ? c->points : 0;
	case C_EQ:
		return tx[c->field] == c->arg ? c->points : 0;
	}
	l = eval(c->left, tx);
	r = eval(c->right, tx);
	if (c->kind == C_AND)
		return l < r ? l : r;
	if (c->kind == C_OR)
		return l > r ? l : r;
	return l + r;
}
#else
static struct cond *prog;	/* every rule's conditions in post order */

static uint32_t compile(const struct cond *c, uint32_t at)
{
	if (c->kind > C_EQ) {
		at = compile(c->left, at);
		at = compile(c->right, at);
	}
	prog[at] = *c;
	prog[at].left = prog[at].right = NULL;
	return at + 1;
}

static int32_t run(const struct cond *code, uint32_t len, const int32_t *tx)
{
	int32_t stack[MAXLEAF + 1];
	int sp = 0;

	for (uint32_t i = 0; i < len; i++) {
		const struct cond *c = &code[i];
		int32_t l, r;

		switch (c->kind) {
		case C_LT:
			stack[sp++] = tx[c->field] < c->arg ? c->points : 0;
			continue;
		case C_GE:
			stack[sp++] = tx[c->field] >= c->arg ? c->points : 0;
			continue;
		case C_EQ:
			stack[sp++] = tx[c->field] == c->arg ? c->points : 0;
			continue;
		}
		r = stack[--sp];
		l = stack[--sp];
		if (c->kind == C_AND)
			stack[sp++] = l < r ? l : r;
		else if (c->kind == C_OR)
			stack[sp++] = l > r ? l : r;
		else
			stack[sp++] = l + r;
	}
	return stack[0];
}
#endif

/* The risk of one transaction: the weights of the rules it trips. */
static int64_t score(const int32_t *tx, uint32_t *tripped)
{
	int64_t risk = 0;

	for (uint32_t i = 0; i < NRULES; i++) {
#ifdef BAD
		int32_t s = eval(rules[i].root, tx);
#else
		int32_t s = run(&prog[rules[i].first], rules[i].len, tx);
#endif
		if (s >= rules[i].threshold) {
			risk += rules[i].weight;
			(*tripped)++;
		}
	}
	return risk;
}

int main(int argc, char **argv)
{
	int ntx = argc > 1 ? atoi(argv[1]) : 14;
	uint64_t x = 0x2545f4914f6cdd1dull;
	uint32_t nconds = 0, *ids, *root_id, next = 0;
	int nleaf[NRULES];

	for (int i = 0; i < NRULES; i++) {
		nleaf[i] = 4 + (int)(rnd(&x) % (MAXLEAF - 3));
		nconds += 2 * (uint32_t)nleaf[i] - 1;
	}
	/* The database: condition ids were handed out as analysts created them. */
	struct cond_row *rows = malloc(nconds * sizeof(*rows));
	ids = malloc(nconds * sizeof(*ids));
	root_id = malloc(NRULES * sizeof(*root_id));
	if (!rows || !ids || !root_id)
		return 1;
	for (uint32_t i = 0; i < nconds; i++)
		ids[i] = i;
	for (uint32_t i = nconds - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rnd(&x) % (i + 1)), t = ids[i];

		ids[i] = ids[j];
		ids[j] = t;
	}
	for (int i = 0; i < NRULES; i++) {
		root_id[i] = gen_tree(rows, ids, &next, nleaf[i], &x);
		rules[i].threshold = (int32_t)(20 + rnd(&x) % 150);
		rules[i].weight = (int32_t)(1 + rnd(&x) % 50);
	}

	/* The loader: conditions in id order, then the links. */
	struct cond **byid = malloc(nconds * sizeof(*byid));
	char text[96];

	if (!byid)
		return 1;
	for (uint32_t id = 0; id < nconds; id++) {
		const struct cond_row *r = &rows[id];
		struct cond *c = malloc(sizeof(*c));

		if (!c)
			return 1;
		c->kind = r->kind;
		c->field = r->field;
		c->points = r->points;
		c->arg = r->arg;
		c->left = c->right = NULL;
		if (r->kind <= C_EQ)
			snprintf(text, sizeof(text), "#%u %s %s %d", id, field_name[r->field],
				 kind_name[r->kind], r->arg);
		else
			snprintf(text, sizeof(text), "#%u %s", id, kind_name[r->kind]);
		c->desc = strdup(text);
		if (!c->desc)
			return 1;
		byid[id] = c;
	}
	for (uint32_t id = 0; id < nconds; id++) {
		if (rows[id].kind > C_EQ) {
			byid[id]->left = byid[rows[id].left];
			byid[id]->right = byid[rows[id].right];
		}
	}
#ifdef BAD
	for (int i = 0; i < NRULES; i++)
		rules[i].root = byid[root_id[i]];
#else
	prog = malloc(nconds * sizeof(*prog));
	if (!prog)
		return 1;
	for (uint32_t i = 0, at = 0; i < NRULES; i++) {
		rules[i].first = at;
		at = compile(byid[root_id[i]], at);
		rules[i].len = at - rules[i].first;
	}
#endif
	free(byid);
	free(root_id);
	free(ids);
	free(rows);

	/* Score the incoming transactions. */
	int64_t total = 0;
	uint32_t tripped = 0;

	for (int t = 0; t < ntx; t++) {
		int32_t tx[NFIELDS];

		for (int f = 0; f < NFIELDS; f++)
			tx[f] = (int32_t)(rnd(&x) % 1000);
		total += score(tx, &tripped);
	}
	printf("%u conditions, %u rules tripped, risk %lld\n", nconds, tripped, (long long)total);
	return 0;
}
