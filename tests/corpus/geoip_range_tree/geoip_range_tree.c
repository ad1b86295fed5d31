// SPDX-License-Identifier: GPL-2.0-only
/*
 * geoip_range_tree: the enrichment stage of a web-analytics pipeline.  Every
 * client address of the day's access log is mapped to the network it belongs
 * to (autonomous system, country, city) through a city-level IP-to-location
 * table of 524288 disjoint IPv4 ranges, and the hits are counted per country.
 *
 * The table comes from a registry export grouped by autonomous system, so the
 * ranges arrive in no address order.  The loader joins each row with its
 * location and allocates the 128-byte range record and then its
 * organisation's name as it reads the export.
 *
 * BAD keeps the records in a binary search tree keyed by the first address,
 * built by inserting them as they arrive (the export's order keeps it
 * reasonably balanced), and finds an address's range with the textbook
 * recursive floor search: each step follows the left or right pointer of the
 * record before it, a jump to a random place in ~96 MiB of heap.
 * GOOD copies the records into one array sorted by first address, with the
 * first addresses in an array of their own, and finds the range by binary
 * search over that array.  Same ranges, same addresses, same answers.
 *
 * Usage: geoip_range_tree [LOOKUPS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRANGES		(1u << 19)
#define NCOUNTRY	250
#define NASN		60000
#define NCITY		24000
#define SPACE_LO	0x01000000u	/* 1.0.0.0 */
#define SPACE_HI	0xdfffffffu	/* 223.255.255.255 */

struct georange {
	uint32_t lo, hi;	/* first and last address, host order */
#ifdef BAD
	struct georange *left, *right;	/* by lo */
#endif
	uint32_t asn;
	uint16_t cc;		/* country index */
	uint16_t flags;		/* anycast, hosting, proxy */
	float lat, lon;
	uint16_t accuracy_km;
	uint16_t metro;
	char postal[12];
	char city[40];
	char region[24];
	char *org;		/* "AS64512 Example Networks" */
};

/* A row of the registry export (blocks), and the locations it names. */
struct export_row {
	uint32_t lo, hi, asn;
	uint32_t city;		/* into locations[] */
	uint16_t flags, accuracy_km;
	float lat, lon;
};

struct location {
	uint16_t cc, metro;
	char postal[12];
	char city[40];
	char region[24];
};

static const char *const syllable[] = {
	"san", "ber", "to", "ki", "lin", "mar", "os", "ka", "vi", "dor", "el", "mun",
	"ha", "por", "ri", "sto", "ne", "gra", "ta", "lu", "cas", "wen", "bu", "ro",
};

static const char *const org_word[] = {
	"Telecom", "Networks", "Hosting", "Cable", "Broadband", "Datacenter",
	"University", "Mobile", "Fiber", "Internet", "Cloud", "Communications",
};

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int by_asn(const void *a, const void *b)
{
	const struct export_row *p = a, *q = b;

	if (p->asn != q->asn)
		return p->asn < q->asn ? -1 : 1;
	return p->lo < q->lo ? -1 : p->lo > q->lo;
}

#ifdef BAD
static struct georange *insert(struct georange *t, struct georange *n)
{
	if (!t)
		return n;
	if (n->lo < t->lo)
		t->left = insert(t->left, n);
	else
		t->right = insert(t->right, n);
	return t;
}

/* The range with the largest first address <= ip, if any. */
static const struct georange *lookup(const struct georange *n, uint32_t ip)
{
	const struct georange *r;

	if (!n)
		return NULL;
	if (ip == n->lo)
		return n;
	if (ip < n->lo)
		return lookup(n->left, ip);
	r = lookup(n->right, ip);
	return r ? r : n;
}
#else
static uint32_t *starts;	/* table[i].lo */

static int by_lo(const void *a, const void *b)
{
	const struct georange *p = a, *q = b;

	return p->lo < q->lo ? -1 : p->lo > q->lo;
}

/* The range with the largest first address <= ip, if any. */
static const struct georange *lookup(const struct georange *table, uint32_t n, uint32_t ip)
{
	uint32_t lo = 0, hi = n;	/* starts[lo-1] <= ip < starts[hi] */

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (starts[mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &table[lo - 1] : NULL;
}
#endif

int main(int argc, char **argv)
{
	long nlookup = argc > 1 ? atol(argv[1]) : 2200000;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint32_t nrange = 0, cursor = SPACE_LO;

	/* The registry export: disjoint ranges, then grouped by AS. */
	struct export_row *rows = malloc(NRANGES * sizeof(*rows));
	struct location *locations = malloc(NCITY * sizeof(*locations));

	if (!rows || !locations)
		return 1;
	for (uint32_t c = 0; c < NCITY; c++) {
		struct location *l = &locations[c];
		const char *a = syllable[rnd(&x) % 24], *b = syllable[rnd(&x) % 24];

		l->cc = (uint16_t)(rnd(&x) % NCOUNTRY);
		l->metro = (uint16_t)(rnd(&x) % 1000);
		snprintf(l->postal, sizeof(l->postal), "%05u", (unsigned)(rnd(&x) % 100000));
		snprintf(l->city, sizeof(l->city), "%c%s%s%s", 'A' + (int)(rnd(&x) % 26), a, b,
			 rnd(&x) % 3 ? "" : syllable[rnd(&x) % 24]);
		snprintf(l->region, sizeof(l->region), "Region %u of %u", c % 97, l->cc);
	}
	while (nrange < NRANGES) {
		uint32_t len = 512u * (1u + (uint32_t)(rnd(&x) % 23));
		struct export_row *r = &rows[nrange];

		if (rnd(&x) % 4 == 0)
			cursor += 512u * (1u + (uint32_t)(rnd(&x) % 8));	/* unallocated */
		if (cursor > SPACE_HI - len)
			break;
		r->lo = cursor;
		r->hi = cursor + len - 1;
		r->asn = 1 + (uint32_t)(rnd(&x) % NASN);
		r->city = (uint32_t)(rnd(&x) % NCITY);
		r->flags = (uint16_t)(rnd(&x) % 16 == 0);
		r->accuracy_km = (uint16_t)(1 + rnd(&x) % 500);
		r->lat = (float)((int)(rnd(&x) % 18000) - 9000) / 100.0f;
		r->lon = (float)((int)(rnd(&x) % 36000) - 18000) / 100.0f;
		cursor += len;
		nrange++;
	}
	qsort(rows, nrange, sizeof(*rows), by_asn);

	/* The loader: one record and its organisation's name per row. */
	char text[64];
#ifdef BAD
	struct georange *root = NULL;
#else
	struct georange *table = malloc(nrange * sizeof(*table));

	starts = malloc(nrange * sizeof(*starts));
	if (!table || !starts)
		return 1;
#endif
	for (uint32_t i = 0; i < nrange; i++) {
		const struct export_row *r = &rows[i];
		const struct location *l = &locations[r->city];
#ifdef BAD
		struct georange *g = malloc(sizeof(*g));

		if (!g)
			return 1;
		g->left = g->right = NULL;
#else
		struct georange *g = &table[i];
#endif
		g->lo = r->lo;
		g->hi = r->hi;
		g->asn = r->asn;
		g->cc = l->cc;
		g->flags = r->flags;
		g->lat = r->lat;
		g->lon = r->lon;
		g->accuracy_km = r->accuracy_km;
		g->metro = l->metro;
		memcpy(g->postal, l->postal, sizeof(g->postal));
		memcpy(g->city, l->city, sizeof(g->city));
		memcpy(g->region, l->region, sizeof(g->region));
		snprintf(text, sizeof(text), "AS%u %s %s", r->asn,
			 org_word[r->asn % 12], org_word[(r->asn / 12) % 12]);
		g->org = strdup(text);
		if (!g->org)
			return 1;
#ifdef BAD
		root = insert(root, g);
#endif
	}
#ifndef BAD
	qsort(table, nrange, sizeof(*table), by_lo);
	for (uint32_t i = 0; i < nrange; i++)
		starts[i] = table[i].lo;
#endif
	free(rows);
	free(locations);

	/* The day's client addresses, as parsed from the access log. */
	uint32_t *clients = malloc((size_t)nlookup * sizeof(*clients));

	if (!clients)
		return 1;
	for (long i = 0; i < nlookup; i++)
		clients[i] = (uint32_t)rnd(&x);

	/* Enrichment: each address's network, counted per country. */
	static uint64_t per_cc[NCOUNTRY];
	uint64_t asn_sum = 0, anycast = 0, unknown = 0;

	for (long i = 0; i < nlookup; i++) {
		uint32_t ip = clients[i];
#ifdef BAD
		const struct georange *g = lookup(root, ip);
#else
		const struct georange *g = lookup(table, nrange, ip);
#endif
		if (!g || ip > g->hi) {
			unknown++;
			continue;
		}
		per_cc[g->cc]++;
		asn_sum += g->asn;
		anycast += g->flags;
	}
	uint64_t sum = asn_sum;

	for (int c = 0; c < NCOUNTRY; c++)
		sum = sum * 31 + per_cc[c];
	printf("%u ranges, %ld lookups, %llu unknown, %llu anycast, checksum %016llx\n", nrange,
	       nlookup, (unsigned long long)unknown, (unsigned long long)anycast,
	       (unsigned long long)sum);
	return 0;
}
