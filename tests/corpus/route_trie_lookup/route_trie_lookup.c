// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_trie_lookup: the forwarding path of a software router.  The routing
 * daemon has installed a full IPv4 table learnt from its transit peers into
 * the forwarding information base (FIB); the data plane takes each packet's
 * destination address, finds the longest matching prefix, and accounts the
 * packet to the next hop (adjacency) that prefix points to.
 *
 * The table holds 760000 prefixes, mostly /17 to /24 as in a real BGP feed,
 * a few short aggregates and some /32 host routes (loopbacks of the iBGP
 * mesh, blackholes).  They are installed in the order the peers' UPDATE
 * messages delivered them, which is no address order.
 *
 * BAD keeps the FIB as a unibit binary trie: one node per bit of prefix,
 * allocated as the routes are installed, each holding its two children and,
 * when a prefix ends there, its next hop.  A lookup walks from the root one
 * bit of the destination at a time, up to 32 levels, remembering the last
 * next hop it passed.
 * GOOD compiles the same routes into a DIR-16-8-8 table: a 65536-entry array
 * indexed by the top 16 bits of the address whose entries hold either a next
 * hop or the index of a 256-entry block for the next 8 bits, and likewise
 * for the last 8 bits.  Same routes, same packets, same answers.
 *
 * Usage: route_trie_lookup [PACKETS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NROUTES		760000
#define NADJ		48		/* adjacencies (next hops); 0 = no route */
#define SPACE_LO	0x01000000u	/* 1.0.0.0 */
#define SPACE_HI	0xdfffffffu	/* 223.255.255.255 */

struct route {
	uint32_t prefix;	/* host order, host bits clear */
	uint8_t len;
	uint8_t origin;		/* IGP, EGP, incomplete */
	uint16_t adj;		/* 1..NADJ */
	uint32_t metric;	/* MED */
	uint32_t seq;		/* order of arrival */
};

struct adjacency {
	uint64_t packets, bytes;
	uint32_t ifindex;
	uint8_t mac[6];
};

static struct adjacency adj_table[NADJ + 1];

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Prefix length of a route in a BGP feed, per mille (cumulative). */
static const struct {
	uint16_t upto;
	uint8_t len;
} len_mix[] = {
	{ 1, 8 },    { 3, 10 },   { 6, 12 },   { 10, 13 },  { 16, 14 },  { 24, 15 },
	{ 40, 16 },  { 55, 17 },  { 80, 18 },  { 115, 19 }, { 165, 20 }, { 220, 21 },
	{ 330, 22 }, { 420, 23 }, { 985, 24 }, { 990, 28 }, { 1000, 32 },
};

static void gen_routes(struct route *rt, uint64_t *x)
{
	for (uint32_t i = 0; i < NROUTES; i++) {
		uint32_t p = (uint32_t)(rnd(x) % 1000), len = 24, a;

		for (size_t k = 0; k < sizeof(len_mix) / sizeof(len_mix[0]); k++)
			if (p < len_mix[k].upto) {
				len = len_mix[k].len;
				break;
			}
		a = SPACE_LO + (uint32_t)(rnd(x) % (SPACE_HI - SPACE_LO + 1ull));
		rt[i].prefix = a & (uint32_t)(~0ull << (32 - len));
		rt[i].len = (uint8_t)len;
		rt[i].origin = (uint8_t)(rnd(x) % 3);
		rt[i].adj = (uint16_t)(1 + rnd(x) % NADJ);
		rt[i].metric = (uint32_t)(rnd(x) % 1000);
		rt[i].seq = i;
	}
}

#ifdef BAD
#define FN_ROUTE	0x1	/* a prefix ends here */

struct fib_node {
	struct fib_node *child[2];
	uint32_t adj;		/* valid with FN_ROUTE */
	uint8_t len;
	uint8_t flags;
	uint8_t origin;
	uint8_t pad;
	uint32_t metric;
	uint32_t installed;	/* seq of the route */
};

static struct fib_node *fib_root;
static uint32_t fib_nodes;

static struct fib_node *node_new(void)
{
	struct fib_node *n = calloc(1, sizeof(*n));

	if (!n) {
		perror("calloc");
		exit(1);
	}
	fib_nodes++;
	return n;
}

static void fib_insert(const struct route *r)
{
	struct fib_node *n = fib_root;

	for (unsigned d = 0; d < r->len; d++) {
		unsigned b = (r->prefix >> (31 - d)) & 1;

		if (!n->child[b])
			n->child[b] = node_new();
		n = n->child[b];
	}
	n->flags |= FN_ROUTE;
	n->adj = r->adj;
	n->len = r->len;
	n->origin = r->origin;
	n->metric = r->metric;
	n->installed = r->seq;
}

static void fib_build(const struct route *rt, uint32_t nr)
{
	fib_root = node_new();
	for (uint32_t i = 0; i < nr; i++)
		fib_insert(&rt[i]);
	fprintf(stderr, "trie: %u nodes, %zu MiB\n", fib_nodes,
	       (size_t)fib_nodes * sizeof(struct fib_node) >> 20);
}

/* The adjacency of the longest prefix covering dst, 0 if none. */
static uint32_t fib_lookup(uint32_t dst)
{
	const struct fib_node *n = fib_root;
	uint32_t best = 0;
	unsigned d = 0;

	for (;;) {
		if (n->flags & FN_ROUTE)
			best = n->adj;
		if (d == 32)
			break;
		n = n->child[(dst >> (31 - d)) & 1];
		if (!n)
			break;
		d++;
	}
	return best;
}
#else
/*
 * An entry is a next hop (adjacency, high bit clear) or, with DIR_BLOCK, the
 * index of the 256-entry block that resolves the next 8 bits.
 */
#define DIR_BLOCK	0x80000000u

static uint32_t *tbl16;		/* 65536 entries, bits 31..16 */
static uint32_t *tbl8;		/* blocks of 256 entries */
static uint32_t nblocks, maxblocks;

static int by_len(const void *a, const void *b)
{
	const struct route *p = a, *q = b;

	if (p->len != q->len)
		return p->len < q->len ? -1 : 1;
	return p->seq < q->seq ? -1 : p->seq > q->seq;	/* the later route wins */
}

/* Room for n more blocks (entries of tbl8 move). */
static void dir_reserve(uint32_t n)
{
	if (nblocks + n <= maxblocks)
		return;
	maxblocks = maxblocks ? maxblocks * 2 : 4096;
	tbl8 = realloc(tbl8, (size_t)maxblocks * 256 * sizeof(*tbl8));
	if (!tbl8) {
		perror("realloc");
		exit(1);
	}
}

/* The block behind *e, made and filled with *e's next hop if *e has none. */
static uint32_t *dir_block(uint32_t *e)
{
	if (!(*e & DIR_BLOCK)) {
		uint32_t *blk = &tbl8[(size_t)nblocks * 256];

		for (int i = 0; i < 256; i++)
			blk[i] = *e;
		*e = DIR_BLOCK | nblocks++;
	}
	return &tbl8[(size_t)(*e & ~DIR_BLOCK) * 256];
}

/* Shorter prefixes first, so that a longer one overwrites the span it covers. */
static void dir_insert(const struct route *r)
{
	uint32_t a = r->prefix;
	uint32_t *e, n, i;

	dir_reserve(2);
	if (r->len <= 16) {
		e = &tbl16[a >> 16];
		n = 1u << (16 - r->len);
	} else if (r->len <= 24) {
		e = &dir_block(&tbl16[a >> 16])[(a >> 8) & 0xff];
		n = 1u << (24 - r->len);
	} else {
		uint32_t *l2 = dir_block(&tbl16[a >> 16]);

		e = &dir_block(&l2[(a >> 8) & 0xff])[a & 0xff];
		n = 1u << (32 - r->len);
	}
	for (i = 0; i < n; i++)
		e[i] = r->adj;
}

static void fib_build(struct route *rt, uint32_t nr)
{
	tbl16 = calloc(65536, sizeof(*tbl16));
	if (!tbl16) {
		perror("calloc");
		exit(1);
	}
	qsort(rt, nr, sizeof(*rt), by_len);
	for (uint32_t i = 0; i < nr; i++)
		dir_insert(&rt[i]);
	fprintf(stderr, "dir-16-8-8: %u blocks, %zu MiB\n", nblocks,
	       ((size_t)nblocks * 256 + 65536) * sizeof(uint32_t) >> 20);
}

/* The adjacency of the longest prefix covering dst, 0 if none. */
static uint32_t fib_lookup(uint32_t dst)
{
	uint32_t e = tbl16[dst >> 16];

	if (e & DIR_BLOCK) {
		e = tbl8[(size_t)(e & ~DIR_BLOCK) * 256 + ((dst >> 8) & 0xff)];
		if (e & DIR_BLOCK)
			e = tbl8[(size_t)(e & ~DIR_BLOCK) * 256 + (dst & 0xff)];
	}
	return e;
}
#endif

int main(int argc, char **argv)
{
	long npkt = argc > 1 ? atol(argv[1]) : 1600000;
	uint64_t x = 0x2545f4914f6cdd1dull;
	struct route *rt = malloc(NROUTES * sizeof(*rt));

	if (!rt)
		return 1;
	gen_routes(rt, &x);
	for (uint32_t a = 1; a <= NADJ; a++) {
		adj_table[a].ifindex = 2 + a % 8;
		memcpy(adj_table[a].mac, "\x02\x00\x5e\x10\x00", 5);
		adj_table[a].mac[5] = (uint8_t)a;
	}
	fib_build(rt, NROUTES);
	free(rt);

	/* The forwarding loop: a burst of packets at a time, as from the NIC ring. */
	enum { BURST = 32 };
	uint32_t dst[BURST];
	uint16_t plen[BURST];
	uint64_t dropped = 0, sum = 0;

	for (long done = 0; done < npkt; done += BURST) {
		int nb = npkt - done < BURST ? (int)(npkt - done) : BURST;

		for (int i = 0; i < nb; i++) {
			uint64_t r = rnd(&x);

			dst[i] = (uint32_t)r;
			plen[i] = (uint16_t)(64 + (r >> 32) % 1437);
		}
		for (int i = 0; i < nb; i++) {
			uint32_t a = fib_lookup(dst[i]);

			if (!a) {
				dropped++;
				continue;
			}
			adj_table[a].packets++;
			adj_table[a].bytes += plen[i];
		}
	}
	for (int a = 0; a <= NADJ; a++)
		sum = sum * 1000003 + adj_table[a].packets * 31 + adj_table[a].bytes;
	printf("%ld packets, %llu dropped, checksum %016llx\n", npkt,
	       (unsigned long long)dropped, (unsigned long long)sum);
	return 0;
}
