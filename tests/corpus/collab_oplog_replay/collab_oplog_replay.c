/*
 * collab_oplog_replay: the sync server of a collaborative editor keeps each
 * document as an operation log (inserts and deletes with a Lamport clock and
 * the editing site).  Peers gossip their ops to the server, so they arrive in
 * no useful order; the server stores each op in its op arena as it arrives
 * and keeps the log threaded through the ops in causal (lamport, site) order.
 * A client that comes back from offline asks for a snapshot at its base
 * version to rebase on: the server replays the log from the first op up to
 * that version into a fresh line model.
 *
 * BAD threads the log through the ops where they arrived, so every step of
 * the replay follows next to an op anywhere in the 64 MiB arena and waits
 * for it.  GOOD, when the gossip round is merged, copies the ops into a new
 * arena in causal order and threads the log through that one: the replay
 * code is the same, but it walks memory in sequence.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOPS	(1u << 20)	/* ops in the document's log */
#define NLINES	16384		/* lines of the document */
#define NSITES	48		/* editing sites (clients) */
#define NREQ	14		/* snapshot requests served */

enum { OP_INSERT = 1, OP_DELETE = 2 };

struct op {
	struct op *next;	/* the log, in causal (lamport, site) order */
	uint64_t lamport;
	uint32_t site;
	uint32_t line;
	uint16_t col;
	uint8_t kind;
	uint8_t len;
	char text[36];		/* inserted text; longer inserts are split */
};

_Static_assert(sizeof(struct op) == 64, "one cache line per op");

struct line {
	uint64_t fp;		/* fingerprint of the line's edits, mod 2^61 - 1 */
	uint64_t last;		/* lamport clock of the last edit */
	uint32_t last_site;
	uint32_t len;
	uint32_t words;
	uint32_t edits;
};
_Static_assert(sizeof(struct line) == 32, "two lines of the document per cache line");

#define FP_MOD	((1ull << 61) - 1)
#define FP_BASE	0x0d1b54a32d192ed0ull	/* < FP_MOD */

/* Appends c to fingerprint h (polynomial hash mod the Mersenne prime). */
static inline uint64_t fp_push(uint64_t h, uint64_t c)
{
	unsigned __int128 v = (unsigned __int128)h * FP_BASE + c;
	uint64_t r = ((uint64_t)v & FP_MOD) + (uint64_t)(v >> 61);

	return r >= FP_MOD ? r - FP_MOD : r;
}

struct sort_key {
	uint64_t key;		/* lamport << 8 | site */
	struct op *op;
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Decodes the op that sits at causal position pos of the log. */
static void decode_op(struct op *o, uint32_t pos)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (pos + 1);
	static const char alpha[] = "etaoin shrdlucmfwypvbgkqjxz ,.()";

	rnd(&x);
	o->next = NULL;
	o->lamport = 1000 + pos / 4;	/* four sites tick per clock value */
	o->site = (pos % 4) * (NSITES / 4) + (pos / 4) % (NSITES / 4);
	o->line = (uint32_t)(rnd(&x) % NLINES);
	o->col = (uint16_t)(rnd(&x) % 120);
	if (rnd(&x) % 5) {
		o->kind = OP_INSERT;
		o->len = (uint8_t)(1 + rnd(&x) % sizeof(o->text));
		for (int i = 0; i < (int)sizeof(o->text); i++)
			o->text[i] = i < o->len ? alpha[rnd(&x) % 32] : 0;
	} else {
		o->kind = OP_DELETE;
		o->len = (uint8_t)(1 + rnd(&x) % 16);
		memset(o->text, 0, sizeof(o->text));
	}
}

/* One gossip round: the ops come in from the peers in random order. */
static void receive(struct op *arena)
{
	uint32_t *pos = malloc(NOPS * sizeof(*pos));
	uint64_t x = 0x5851f42d4c957f2dull;

	if (!pos)
		exit(1);
	for (uint32_t i = 0; i < NOPS; i++)
		pos[i] = i;
	for (uint32_t i = NOPS - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rnd(&x) % (i + 1)), t = pos[i];

		pos[i] = pos[j];
		pos[j] = t;
	}
	for (uint32_t a = 0; a < NOPS; a++)
		decode_op(&arena[a], pos[a]);
	free(pos);
}

static int by_key(const void *a, const void *b)
{
	uint64_t x = ((const struct sort_key *)a)->key, y = ((const struct sort_key *)b)->key;

	return x < y ? -1 : x > y;
}

/* Merges the round: returns the head of the log in causal order. */
static struct op *merge(struct op *arena)
{
	struct sort_key *ord = malloc(NOPS * sizeof(*ord));
	struct op *log;

	if (!ord)
		exit(1);
	for (uint32_t i = 0; i < NOPS; i++) {
		ord[i].key = arena[i].lamport << 8 | arena[i].site;
		ord[i].op = &arena[i];
	}
	qsort(ord, NOPS, sizeof(*ord), by_key);
#ifdef BAD
	for (uint32_t i = 0; i + 1 < NOPS; i++)
		ord[i].op->next = ord[i + 1].op;
	ord[NOPS - 1].op->next = NULL;
	log = ord[0].op;	/* the ops stay where they arrived */
#else
	log = aligned_alloc(64, NOPS * sizeof(*log));	/* compacted in causal order */
	if (!log)
		exit(1);
	for (uint32_t i = 0; i < NOPS; i++) {
		log[i] = *ord[i].op;
		log[i].next = i + 1 < NOPS ? &log[i + 1] : NULL;
	}
	free(arena);
#endif
	free(ord);
	return log;
}

/* Rebuilds the document at version upto; returns its digest. */
static __attribute__((noinline)) uint64_t replay(const struct op *head, uint64_t upto,
						 struct line *doc)
{
	uint64_t applied = 0, digest;

	memset(doc, 0, NLINES * sizeof(*doc));
	for (const struct op *o = head; o && o->lamport <= upto; o = o->next) {
		struct line *l = &doc[o->line];
		uint64_t h = fp_push(l->fp, (uint64_t)o->col << 8 | o->kind);

		if (o->kind == OP_INSERT) {
			for (int i = 0; i < o->len; i++) {
				h = fp_push(h, (uint8_t)o->text[i]);
				l->words += o->text[i] == ' ';
			}
			l->len += o->len;
		} else {
			h = fp_push(h, o->len);
			l->len = l->len > o->len ? l->len - o->len : 0;
		}
		l->fp = h;
		l->last = o->lamport;
		l->last_site = o->site;
		l->edits++;
		applied++;
	}
	digest = applied;
	for (int i = 0; i < NLINES; i++)
		digest = digest * 31 + (doc[i].fp ^ doc[i].last ^ doc[i].last_site ^ doc[i].len ^
				       (uint64_t)doc[i].words << 20 ^ (uint64_t)doc[i].edits << 40);
	return digest;
}

int main(void)
{
	struct op *arena = aligned_alloc(64, NOPS * sizeof(*arena));
	struct line *doc = malloc(NLINES * sizeof(*doc));
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

	if (!arena || !doc)
		return 1;
	receive(arena);
	const struct op *log = merge(arena);

	for (int r = 0; r < NREQ; r++) {	/* clients back from offline */
		uint64_t base = 1000 + (NOPS / 8) + rnd(&x) % (NOPS / 8);

		sum = sum * 0x100000001b3ull ^ replay(log, base, doc);
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	return 0;
}
