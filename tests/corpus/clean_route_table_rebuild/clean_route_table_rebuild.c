// SPDX-License-Identifier: GPL-2.0-only
/*
 * The route table of a BGP edge speaker.  At start-up it loads 256 K routes
 * from a table dump in `bgpdump -m` text form (one line per route: peer, AS
 * path, origin, next hop, local preference, MED, communities), clears a
 * 128-byte record per route and fills in every member once.  Then it runs the
 * maintenance timer: every tick it walks the whole table in order, decays
 * each route's flap-damping penalty, applies the flaps of that tick, runs the
 * export policy of the current configuration revision over every match
 * attribute of the route (prefix, next hop, AS path, origin, all community
 * slots, age) and stores the result: the peers it is exported to, the
 * rewritten local preference and MED, and the route's counters.  Every tick
 * reads or writes every byte of every record.
 *
 * Usage: clean_route_table_rebuild [ROUTES [TICKS]]
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPEERS 24
#define NCOMM 8
#define TICK_SECS 5
#define MAX_SUPPRESS 3600	/* seconds after the last flap */
#define FLAP_PENALTY 1000
#define SUPPRESS_AT 2000
#define REUSE_AT 750
#define MIN_AGE 60		/* a route is exported once it is a minute old */
#define COMM_NO_EXPORT 0xffffff01u
#define COMM_BLACKHOLE 0xffff029au	/* 65535:666 */

enum { ORIGIN_IGP, ORIGIN_EGP, ORIGIN_INCOMPLETE };
enum { RT_SUPPRESSED = 1, RT_DENIED = 2, RT_BLACKHOLE = 4, RT_NO_EXPORT = 8 };

/* One route: the match attributes on the first line, the damping state,
 * policy results and counters on the second.  No holes. */
struct route {
	uint32_t prefix;
	uint32_t nexthop;
	uint32_t local_pref;
	uint32_t med;
	uint32_t path_hash;
	uint32_t origin_as;		/* last AS of the path */
	uint32_t neighbor_as;		/* first AS of the path */
	uint16_t peer_id;
	uint8_t plen;
	uint8_t origin;
	uint32_t comm[NCOMM];		/* empty slots are 0 */
	uint64_t rx_time;
	uint64_t last_flap;
	uint32_t penalty;
	uint32_t flaps;
	uint32_t export_mask;
	uint16_t path_len;
	uint8_t ncomm;
	uint8_t flags;
	uint64_t evals;
	uint64_t exports;
	uint64_t policy_rev;
	uint32_t out_med;
	uint32_t out_lp;
};

_Static_assert(offsetof(struct route, comm) == 32, "match attributes packed");
_Static_assert(offsetof(struct route, rx_time) == 64, "damping state on line two");
_Static_assert(offsetof(struct route, out_lp) == 124, "no holes");
_Static_assert(sizeof(struct route) == 128, "two lines per route");

/* One revision of the export policy. */
struct policy {
	uint64_t rev;
	uint32_t max_plen;
	uint32_t max_path_len;
	uint32_t max_ncomm;
	uint32_t med_bias;
	uint32_t lp_tag;		/* community giving +lp_bonus */
	uint32_t lp_bonus;
	uint32_t path_deny[128];	/* bitmap over path_hash & 4095 */
	uint32_t asn_deny[128];		/* bitmap over origin_as & 4095 */
};

static struct route *rib;
static long nroutes;
static uint32_t peer_as[NPEERS];

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* ---- start-up: read the dump ------------------------------------------ */

/* The next line of the dump (the generator stands in for reading the file). */
static int dump_line(char *buf, size_t len, long i, uint64_t *s)
{
	uint64_t r = rng_next(s);
	unsigned plen = 16 + (unsigned)(r % 9), peer = (unsigned)(r >> 8) % NPEERS;
	uint32_t pfx = (uint32_t)(rng_next(s) >> 7) & ~((1u << (32 - plen)) - 1);
	unsigned hops = 1 + (unsigned)(r >> 16) % 7, ncomm = (unsigned)(r >> 24) % 7;
	static const char *const origin[] = { "IGP", "EGP", "IGP", "INCOMPLETE" };
	int n;

	if (i % 211 == 0)
		pfx = 0x0a000000u | (pfx & 0x00ffff00u);	/* leaked 10/8 */
	n = snprintf(buf, len, "TABLE_DUMP2|%ld|B|192.0.2.%u|%u|%u.%u.%u.%u/%u|%u",
		     1700000000L - (long)(r >> 40) % 86400, peer + 1, peer_as[peer],
		     pfx >> 24, pfx >> 16 & 255, pfx >> 8 & 255, pfx & 255, plen, peer_as[peer]);
	for (unsigned h = 1; h < hops; h++)
		n += snprintf(buf + n, len - n, " %u", 1000 + (unsigned)(rng_next(s) % 60000));
	n += snprintf(buf + n, len - n, "|%s|198.51.100.%u|%u|%u|",
		      origin[r >> 32 & 3],
		      1 + (unsigned)(r >> 36) % 250, 100 + 10 * (unsigned)(r >> 44 & 3),
		      (unsigned)(r >> 48) % 200);
	for (unsigned c = 0; c < ncomm; c++) {
		uint64_t q = rng_next(s);
		unsigned hi = (q & 7) == 0 ? 65535 : peer_as[(q >> 3) % NPEERS];
		unsigned lo = (q & 7) == 0 ? ((q & 8) ? 666 : 65281) : (unsigned)(q >> 8) % 400;

		n += snprintf(buf + n, len - n, "%s%u:%u", c ? " " : "", hi, lo);
	}
	n += snprintf(buf + n, len - n, "|NAG||");
	return n;
}

static uint32_t parse_u32(const char **p)
{
	uint32_t v = 0;

	while (**p >= '0' && **p <= '9')
		v = v * 10 + (uint32_t)(*(*p)++ - '0');
	return v;
}

static uint32_t parse_ip(const char **p)
{
	uint32_t a = 0;

	for (int k = 0; k < 4; k++) {
		a = a << 8 | parse_u32(p);
		if (**p == '.')
			(*p)++;
	}
	return a;
}

static void skip_field(const char **p)
{
	while (**p && **p != '|')
		(*p)++;
	if (**p == '|')
		(*p)++;
}

/* Fill in one route from one dump line. */
static void parse_route(struct route *rt, const char *p)
{
	uint32_t h = 2166136261u, as = 0;

	memset(rt, 0, sizeof(*rt));
	skip_field(&p);					/* TABLE_DUMP2 */
	rt->rx_time = parse_u32(&p);
	skip_field(&p);
	skip_field(&p);					/* B */
	rt->peer_id = (uint16_t)((parse_ip(&p) & 255) - 1);
	skip_field(&p);
	skip_field(&p);					/* peer AS */
	rt->prefix = parse_ip(&p);
	p++;
	rt->plen = (uint8_t)parse_u32(&p);
	skip_field(&p);
	while (*p != '|') {
		as = parse_u32(&p);
		if (!rt->path_len)
			rt->neighbor_as = as;
		rt->path_len++;
		h = (h ^ as) * 16777619u;
		if (*p == ' ')
			p++;
	}
	p++;
	rt->origin_as = as;
	rt->path_hash = h;
	rt->origin = *p == 'I' && p[1] == 'G' ? ORIGIN_IGP : *p == 'E' ? ORIGIN_EGP : ORIGIN_INCOMPLETE;
	skip_field(&p);
	rt->nexthop = parse_ip(&p);
	skip_field(&p);
	rt->local_pref = parse_u32(&p);
	skip_field(&p);
	rt->med = parse_u32(&p);
	skip_field(&p);
	while (*p != '|' && rt->ncomm < NCOMM) {
		uint32_t hi = parse_u32(&p);

		p++;
		rt->comm[rt->ncomm++] = hi << 16 | parse_u32(&p);
		if (*p == ' ')
			p++;
	}
	rt->last_flap = rt->rx_time;
	rt->out_lp = rt->local_pref;
	rt->out_med = rt->med;
}

static void load_table(long n)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	char line[512];

	rib = aligned_alloc(64, (size_t)n * sizeof(*rib));
	if (!rib) {
		perror("aligned_alloc");
		exit(1);
	}
	for (long i = 0; i < n; i++) {
		dump_line(line, sizeof(line), i, &s);
		parse_route(&rib[i], line);
	}
	nroutes = n;
}

/* ---- the maintenance timer -------------------------------------------- */

static void make_policy(struct policy *pol, uint64_t rev)
{
	uint64_t s = 0x2545f4914f6cdd1dull ^ (rev * 0x9e3779b97f4a7c15ull);

	memset(pol, 0, sizeof(*pol));
	pol->rev = rev;
	pol->max_plen = 24;
	pol->max_path_len = 5 + (uint32_t)(rev % 3);
	pol->max_ncomm = 5;
	pol->med_bias = (uint32_t)(rev % 4) * 10;
	pol->lp_tag = peer_as[rev % NPEERS] << 16 | (uint32_t)(rev % 400);
	pol->lp_bonus = 20;
	for (int k = 0; k < 40; k++) {
		uint64_t r = rng_next(&s);

		pol->path_deny[(r & 4095) >> 5] |= 1u << (r & 31);
		r >>= 12;
		pol->asn_deny[(r & 4095) >> 5] |= 1u << (r & 31);
	}
}

static int bogon(uint32_t pfx)
{
	return (pfx >> 24) == 10 || (pfx >> 20) == 0xac1 || (pfx >> 16) == 0xc0a8 || (pfx >> 24) == 0;
}

/* One tick: damping, flaps and export policy over every route, in order.
 * Returns the number of routes whose advertisement changed (UPDATEs to send). */
static uint64_t run_tick(const struct policy *pol, uint64_t now, uint64_t tick)
{
	uint32_t all = (1u << NPEERS) - 1;
	uint64_t updates = 0;

	for (long i = 0; i < nroutes; i++) {
		struct route *rt = &rib[i];
		uint32_t deny = 0, mask, lp, med, bonus = 0, noexp = 0, bh = 0, flap;

		/* flap damping: decay (half-life ~15 min), then this tick's flaps */
		rt->penalty -= rt->penalty >> 8;
		flap = (rt->prefix ^ rt->path_hash) * 2654435761u;
		if (flap % 61 == 0 && (flap / 61 + tick) % 13 == 0) {	/* the unstable ones */
			rt->penalty += FLAP_PENALTY;
			rt->flaps++;
			rt->last_flap = now;
		}
		if (rt->penalty >= SUPPRESS_AT)
			rt->flags |= RT_SUPPRESSED;
		else if (rt->penalty < REUSE_AT || now - rt->last_flap > MAX_SUPPRESS)
			rt->flags &= ~RT_SUPPRESSED;

		/* export policy over every match attribute */
		deny |= bogon(rt->prefix) | (rt->plen > pol->max_plen) | (rt->nexthop == 0);
		deny |= rt->path_len > pol->max_path_len;
		deny |= pol->path_deny[(rt->path_hash & 4095) >> 5] >> (rt->path_hash & 31) & 1;
		deny |= pol->asn_deny[(rt->origin_as & 4095) >> 5] >> (rt->origin_as & 31) & 1;
		deny |= rt->ncomm > pol->max_ncomm;
		deny |= now - rt->rx_time < MIN_AGE;
		for (int c = 0; c < NCOMM; c++) {
			noexp |= rt->comm[c] == COMM_NO_EXPORT;
			bh |= rt->comm[c] == COMM_BLACKHOLE;
			bonus |= rt->comm[c] == pol->lp_tag;
		}
		mask = all & ~(1u << rt->peer_id);
		for (int k = 0; k < NPEERS; k++)	/* no route back into the AS it came from */
			mask &= ~((uint32_t)(peer_as[k] == rt->neighbor_as) << k);
		if (noexp)
			mask = 0;
		if (deny || (rt->flags & RT_SUPPRESSED))
			mask = 0;
		lp = rt->local_pref + (bonus ? pol->lp_bonus : 0) - (rt->origin == ORIGIN_INCOMPLETE ? 10 : 0);
		med = rt->med + pol->med_bias + rt->path_len * 5;

		rt->flags = (uint8_t)((rt->flags & RT_SUPPRESSED) | (deny ? RT_DENIED : 0) |
				      (bh ? RT_BLACKHOLE : 0) | (noexp ? RT_NO_EXPORT : 0));
		updates += (mask != rt->export_mask) | (rt->policy_rev != pol->rev && lp != rt->out_lp);
		rt->export_mask = mask;
		rt->out_lp = lp;
		rt->out_med = med;
		rt->exports += (uint64_t)__builtin_popcount(mask);
		rt->evals++;
		rt->policy_rev = pol->rev;
	}
	return updates;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 256 * 1024;
	long ticks = argc > 2 ? atol(argv[2]) : 192;
	uint64_t now = 1700000000ull, sum = 0, updates = 0;
	struct policy pol;

	for (int k = 0; k < NPEERS; k++)
		peer_as[k] = 64500 + 37 * (uint32_t)k;
	load_table(n);

	for (long t = 0; t < ticks; t++) {
		if (t % 16 == 0)			/* configuration reload */
			make_policy(&pol, (uint64_t)t / 16 + 1);
		now += TICK_SECS;
		updates += run_tick(&pol, now, (uint64_t)t);
	}

	for (long i = 0; i < nroutes; i++) {
		const struct route *rt = &rib[i];

		sum = sum * 31 + rt->exports + rt->flaps * 7 + rt->penalty + rt->export_mask +
		      rt->out_lp + rt->out_med + rt->flags;
	}
	printf("checksum %016llx %llu\n", (unsigned long long)sum, (unsigned long long)updates);
	free(rib);
	return 0;
}
