// SPDX-License-Identifier: GPL-2.0-only
/*
 * A log-search tool in the spirit of "grep for error codes in an access
 * log": it maps an access log read-only and answers a few questions about
 * it, one sequential scan per question, over and over as an operator would
 * while chasing an incident:
 *
 *   - the 5xx rate per path prefix ("/api/v1/orders"), kept in a fixed
 *     open-addressing table of 256 prefixes;
 *   - the bytes served to one client subnet (10.20.0.0/16);
 *   - a latency histogram of 64 buckets, with its median and p99;
 *   - the 502/503/504 lines per hour of the day.
 *
 * So that it runs on its own, it first writes the log it searches: about
 * 192 MiB of lines such as
 *
 *   2024-06-03T14:07:52Z 10.20.7.191 GET /api/v1/orders/48213 200 1843 27
 *
 * (time, client, method, path, status, bytes, latency in ms) into a
 * temporary file made with mkstemp under /tmp, removed again at exit.
 *
 * Clean control: the mapping is made once and stays mapped across all the
 * passes; the first pass takes one minor fault per file page (fault-around
 * maps a few at a time), the later ones none.  Every pass reads the
 * mapping front to back, and the tables it updates are a few KiB.
 *
 * Usage: clean_mmap_log_grep [MIB [ROUNDS]]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- writing the log ---- */

static char tmp_path[] = "/tmp/access-log-XXXXXX";

static void remove_log(void)
{
	unlink(tmp_path);
}

static inline uint32_t xorshift(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* Decimal digits of v at p, returns the end. */
static inline char *put_u32(char *p, uint32_t v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static inline char *put_2d(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

struct route {
	const char *prefix;	/* the path, or its start when an id follows */
	int with_id;		/* a numeric id is appended */
	const char *suffix;
	uint32_t min_bytes, bytes_span;
	uint32_t base_ms;
	uint32_t err_per_1024;	/* 5xx answers per 1024 requests */
};

static const struct route routes[] = {
	{ "/api/v1/orders/", 1, "", 400, 4000, 18, 6 },
	{ "/api/v1/users/", 1, "/profile", 300, 1500, 9, 2 },
	{ "/api/v1/cart", 0, "", 200, 2500, 12, 4 },
	{ "/api/v2/search?q=shoes&page=", 1, "", 2000, 30000, 45, 10 },
	{ "/checkout/confirm", 0, "", 150, 600, 120, 30 },
	{ "/static/js/app.", 1, ".js", 40000, 200000, 2, 0 },
	{ "/static/css/site.css", 0, "", 12000, 4000, 2, 0 },
	{ "/images/products/", 1, ".jpg", 8000, 90000, 3, 0 },
	{ "/login", 0, "", 300, 400, 30, 3 },
	{ "/healthz", 0, "", 2, 0, 1, 1 },
	{ "/", 0, "", 9000, 3000, 6, 1 },
	{ "/feeds/rss.xml", 0, "", 20000, 10000, 15, 2 },
};
#define NROUTES (sizeof(routes) / sizeof(routes[0]))

static const char *const methods[8] = {
	"GET", "GET", "GET", "GET", "GET", "POST", "HEAD", "PUT",
};
static const uint8_t first_octet[4] = { 10, 10, 172, 192 };

/* Writes about `size` bytes of log lines to fd. */
static size_t write_log(int fd, size_t size)
{
	enum { CHUNK = 1 << 20 };
	char *buf = malloc(CHUNK + 256), *p = buf;
	char stamp[21];			/* 2024-06-01T00:00:00Z and a space */
	uint32_t s = 2463534242u;
	time_t t = 1717200000, day_of_stamp = -1;
	size_t total = 0;

	if (!buf)
		exit(1);
	stamp[20] = ' ';
	while (total < size) {
		uint32_t r = xorshift(&s), r2 = xorshift(&s);
		const struct route *rt = &routes[(r >> 4) % NROUTES];
		uint32_t status, lat;

		t += r & 1;
		if (t / 86400 != day_of_stamp) {
			struct tm tm;

			day_of_stamp = t / 86400;
			gmtime_r(&t, &tm);
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT", &tm);
		}
		put_2d(stamp + 11, (unsigned)(t % 86400 / 3600));
		stamp[13] = ':';
		put_2d(stamp + 14, (unsigned)(t % 3600 / 60));
		stamp[16] = ':';
		put_2d(stamp + 17, (unsigned)(t % 60));
		stamp[19] = 'Z';
		memcpy(p, stamp, 21);
		p += 21;

		p = put_u32(p, first_octet[r2 & 3]);
		*p++ = '.';
		p = put_u32(p, r2 >> 2 & 31);
		*p++ = '.';
		p = put_u32(p, r2 >> 7 & 255);
		*p++ = '.';
		p = put_u32(p, r2 >> 15 & 255);
		*p++ = ' ';

		const char *m = methods[r >> 9 & 7];
		size_t ml = strlen(m);

		memcpy(p, m, ml);
		p += ml;
		*p++ = ' ';
		size_t pl = strlen(rt->prefix);

		memcpy(p, rt->prefix, pl);
		p += pl;
		if (rt->with_id) {
			p = put_u32(p, r2 >> 12 & 0xffff);
			pl = strlen(rt->suffix);
			memcpy(p, rt->suffix, pl);
			p += pl;
		}
		*p++ = ' ';

		if ((r >> 12 & 1023) < rt->err_per_1024)
			status = 500 + (r >> 22 & 3) + (r >> 24 & 1);	/* 500..504 */
		else if ((r >> 12 & 1023) < 40)
			status = (r >> 22 & 1) ? 404 : 304;
		else
			status = 200;
		p = put_u32(p, status);
		*p++ = ' ';
		p = put_u32(p, status == 304 ? 0 : rt->min_bytes + (rt->bytes_span ? (r2 % rt->bytes_span) : 0));
		*p++ = ' ';
		lat = rt->base_ms + (r >> 16 & 31);
		if ((r2 & 255) == 0)			/* the slow tail */
			lat += r >> 20 & 2047;
		p = put_u32(p, lat);
		*p++ = '\n';

		if (p - buf >= CHUNK) {
			size_t n = (size_t)(p - buf);

			if (write(fd, buf, n) != (ssize_t)n) {
				perror("write");
				exit(1);
			}
			total += n;
			p = buf;
		}
	}
	free(buf);
	return total;
}

/* ---- searching it ---- */

struct entry {
	const char *line;		/* where a line starts */
	const char *path;
	uint32_t path_len;
	uint32_t client;		/* IPv4, host order */
	uint32_t status;
	uint32_t latency_ms;
	uint64_t bytes;
	unsigned hour;
};

static inline const char *parse_num(const char *p, const char *end, uint64_t *v)
{
	uint64_t n = 0;

	while (p < end && *p >= '0' && *p <= '9')
		n = n * 10 + (uint64_t)(*p++ - '0');
	*v = n;
	return p;
}

/*
 * Parses the line at p into e; returns the start of the next line.  A
 * line that does not parse gets status 0 and is skipped by the queries.
 */
static const char *next_entry(const char *p, const char *end, struct entry *e)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	const char *q;
	uint64_t v;

	if (!eol)
		eol = end;
	e->line = p;
	e->status = 0;
	if (eol - p < 30 || p[10] != 'T' || p[20] != ' ')
		return eol + 1;
	e->hour = (unsigned)(p[11] - '0') * 10 + (unsigned)(p[12] - '0');
	q = p + 21;
	e->client = 0;
	for (int i = 0; i < 4; i++) {
		q = parse_num(q, eol, &v);
		e->client = e->client << 8 | (uint32_t)(v & 255);
		if (q >= eol || *q != (i < 3 ? '.' : ' '))
			return eol + 1;
		q++;
	}
	q = memchr(q, ' ', (size_t)(eol - q));	/* the method */
	if (!q)
		return eol + 1;
	e->path = ++q;
	q = memchr(q, ' ', (size_t)(eol - q));
	if (!q)
		return eol + 1;
	e->path_len = (uint32_t)(q - e->path);
	q = parse_num(q + 1, eol, &v);
	e->status = (uint32_t)v;
	q = parse_num(q + 1, eol, &e->bytes);
	parse_num(q + 1, eol, &v);
	e->latency_ms = (uint32_t)v;
	return eol + 1;
}

/*
 * Query 1: the 5xx rate per path prefix: the path up to its query string or
 * its first numeric id ("/api/v1/orders/48213" counts for "/api/v1/orders").
 */
#define PREFIX_SLOTS 256

struct prefix_count {
	uint32_t hash;
	uint32_t requests;
	uint32_t errors;
	uint8_t len;
	char key[51];
};

static struct prefix_count prefixes[PREFIX_SLOTS];

static void count_prefix(const char *path, uint32_t len, int is_error)
{
	uint32_t n = 0, h = 2166136261u;

	while (n < len && n < sizeof(prefixes[0].key) && path[n] != '?') {
		if ((path[n] == '/' || path[n] == '.') && n + 1 < len &&
		    path[n + 1] >= '0' && path[n + 1] <= '9')
			break;
		h = (h ^ (uint8_t)path[n]) * 16777619u;
		n++;
	}
	for (uint32_t i = h % PREFIX_SLOTS, probes = 0; probes < PREFIX_SLOTS;
	     i = (i + 1) % PREFIX_SLOTS, probes++) {
		struct prefix_count *pc = &prefixes[i];

		if (pc->len == 0) {
			pc->hash = h;
			pc->len = (uint8_t)n;
			memcpy(pc->key, path, n);
		} else if (pc->hash != h || pc->len != n || memcmp(pc->key, path, n)) {
			continue;
		}
		pc->requests++;
		pc->errors += is_error;
		return;
	}
}

static uint64_t errors_by_prefix(const char *map, size_t len)
{
	const char *p = map, *end = map + len;
	struct entry e;
	uint64_t sum = 0;

	memset(prefixes, 0, sizeof(prefixes));
	while (p < end) {
		p = next_entry(p, end, &e);
		if (e.status)
			count_prefix(e.path, e.path_len, e.status >= 500);
	}
	for (int i = 0; i < PREFIX_SLOTS; i++)
		sum += (uint64_t)prefixes[i].errors * 1000003u + prefixes[i].requests;
	return sum;
}

/* Query 2: requests and bytes served to one client subnet. */
static uint64_t subnet_bytes(const char *map, size_t len, uint32_t net, uint32_t mask,
			     uint64_t *requests)
{
	const char *p = map, *end = map + len;
	struct entry e;
	uint64_t bytes = 0, n = 0;

	while (p < end) {
		p = next_entry(p, end, &e);
		if (e.status && (e.client & mask) == net) {
			bytes += e.bytes;
			n++;
		}
	}
	*requests = n;
	return bytes;
}

/* Query 3: the latency histogram, 64 buckets: 4 ms wide up to 128 ms, then 64 ms. */
#define LAT_BUCKETS 64

static unsigned lat_bucket(uint32_t ms)
{
	if (ms < 128)
		return ms / 4;
	ms = 32 + (ms - 128) / 64;
	return ms < LAT_BUCKETS ? ms : LAT_BUCKETS - 1;
}

static uint32_t bucket_upper_ms(unsigned b)
{
	return b < 32 ? (b + 1) * 4 : 128 + (b - 31) * 64;
}

static void latency_histogram(const char *map, size_t len, uint64_t hist[LAT_BUCKETS])
{
	const char *p = map, *end = map + len;
	struct entry e;

	memset(hist, 0, LAT_BUCKETS * sizeof(hist[0]));
	while (p < end) {
		p = next_entry(p, end, &e);
		if (e.status)
			hist[lat_bucket(e.latency_ms)]++;
	}
}

static uint32_t percentile_ms(const uint64_t hist[LAT_BUCKETS], double q)
{
	uint64_t total = 0, seen = 0;

	for (int b = 0; b < LAT_BUCKETS; b++)
		total += hist[b];
	for (unsigned b = 0; b < LAT_BUCKETS; b++) {
		seen += hist[b];
		if ((double)seen >= q * (double)total)
			return bucket_upper_ms(b);
	}
	return bucket_upper_ms(LAT_BUCKETS - 1);
}

/* Query 4: gateway errors (502, 503, 504) per hour of the day. */
static void gateway_errors(const char *map, size_t len, uint32_t per_hour[24])
{
	const char *p = map, *end = map + len;
	struct entry e;

	memset(per_hour, 0, 24 * sizeof(per_hour[0]));
	while (p < end) {
		p = next_entry(p, end, &e);
		if (e.status >= 502 && e.status <= 504 && e.hour < 24)
			per_hour[e.hour]++;
	}
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 192;
	long rounds = argc > 2 ? atol(argv[2]) : 2;
	int fd = mkstemp(tmp_path);
	uint64_t check = 0, hist[LAT_BUCKETS], sub_req = 0, sub_bytes = 0;
	uint32_t per_hour[24];
	size_t len;
	const char *map;

	if (rounds < 1)
		rounds = 1;
	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	atexit(remove_log);
	len = write_log(fd, mib << 20);

	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	close(fd);

	for (long r = 0; r < rounds; r++) {
		check += errors_by_prefix(map, len);
		sub_bytes = subnet_bytes(map, len, 10u << 24 | 20u << 16, 0xffff0000u, &sub_req);
		check += sub_bytes ^ sub_req;
		latency_histogram(map, len, hist);
		for (int b = 0; b < LAT_BUCKETS; b++)
			check = check * 31 + hist[b];
		gateway_errors(map, len, per_hour);
		for (int h = 0; h < 24; h++)
			check = check * 17 + per_hour[h];
	}

	uint32_t worst = 0;
	double worst_rate = -1;

	for (uint32_t i = 0; i < PREFIX_SLOTS; i++) {
		const struct prefix_count *pc = &prefixes[i];
		double rate = pc->requests ? (double)pc->errors / pc->requests : 0;

		if (pc->len && rate > worst_rate) {
			worst_rate = rate;
			worst = i;
		}
	}
	printf("log %zu bytes, %ld rounds of 4 queries\n", len, rounds);
	printf("worst prefix %.*s: %u of %u requests 5xx (%.2f%%)\n", prefixes[worst].len,
	       prefixes[worst].key, prefixes[worst].errors, prefixes[worst].requests,
	       100 * worst_rate);
	printf("10.20.0.0/16: %llu requests, %llu bytes\n", (unsigned long long)sub_req,
	       (unsigned long long)sub_bytes);
	printf("latency p50 <= %u ms, p99 <= %u ms\n", percentile_ms(hist, 0.5),
	       percentile_ms(hist, 0.99));
	printf("gateway errors 00h %u 06h %u 12h %u 18h %u\n", per_hour[0], per_hour[6],
	       per_hour[12], per_hour[18]);
	printf("checksum %016llx\n", (unsigned long long)check);
	return 0;
}
