// SPDX-License-Identifier: GPL-2.0-only
/*
 * The import step of a web-analytics job: an access log exported as CSV
 * (320 MiB, 2.2 M rows: time, client, method, "path", status, bytes, latency,
 * "user agent", with quoted fields that may hold commas and doubled quotes)
 * is loaded into memory once, then two parser threads each take one half,
 * split at a line break, and run a small CSV state machine over it byte by
 * byte, exactly once.  Each thread folds its rows into its own summary.
 *
 * Clean control: the buffer is written once while loading and read once,
 * front to back, by the parsers; the summaries are one per thread, each on
 * a cache line of its own.
 *
 * Usage: clean_access_csv_scan [MIB]
 */
#define _GNU_SOURCE	/* memmem */
#include <pthread.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NPARSERS 2

/*
 * One per parser thread.  The members are in the order the report prints
 * them, not by size, and the record is aligned to a cache line so the two
 * parsers never write the same line.  The holes after method_seen and
 * max_status (9 bytes) are there by design: packed, the record would still
 * take its one line, and there are two of them in the whole program.
 */
struct csv_summary {
	_Alignas(64) uint64_t rows;
	uint8_t method_seen;		/* bit per method: GET HEAD POST PUT DELETE */
	uint64_t bytes;
	uint16_t max_status;
	uint32_t slow;			/* latency over 1 s */
	uint64_t latency_ms;
	uint32_t status_class[4];	/* 2xx, 3xx, 4xx, 5xx */
	uint32_t bad_rows;
	uint32_t bot_rows;
};

static struct csv_summary summary[NPARSERS];

#define HLL_BITS 12		/* HyperLogLog of visitors, 4096 registers */

struct part {
	int id;
	const char *begin, *end;
	uint32_t by_hour[24];		/* requests per hour of day (UTC) */
	uint8_t hll[1 << HLL_BITS];	/* distinct visitors (client, agent) */
};

/* ---- loading: the log as it comes out of the exporter ---- */

static const char *const paths[] = {
	"/", "/index.html", "/api/v1/items?page=2&sort=price,desc", "/static/app.js",
	"/login", "/api/v1/cart", "/search?q=\"\"red shoes\"\"", "/favicon.ico",
};
static const char *const agents[] = {
	"Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.6422.113 Mobile Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:126.0) Gecko/20100101 Firefox/126.0",
	"curl/8.5.0",
	"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	"python-requests/2.31.0",
};
static const char *const methods[] = { "GET", "GET", "GET", "POST", "HEAD", "PUT", "DELETE" };

static char *load_log(size_t size, size_t *len)
{
	char *buf = malloc(size + 512), *p = buf;
	time_t t = 1717200000;
	uint32_t x = 88172645u;
	struct tm tm;

	if (!buf)
		exit(1);
	while ((size_t)(p - buf) < size) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		t += x & 1;
		gmtime_r(&t, &tm);
		p += strftime(p, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
		p += snprintf(p, 512, ",10.%u.%u.%u,%s,\"%s\",%u,%u,%u,\"%s\"\n",
			      x >> 8 & 3, x >> 10 & 15, x >> 14 & 255,
			      methods[x % 7], paths[x >> 3 & 7],
			      (x & 0x3f) ? 200 + (x >> 9 & 1) * 104 : 404 + (x >> 7 & 1) * 99,
			      x >> 14 & 0xffff, (x >> 6 & 0xff) * (x >> 26 & 7),
			      agents[x % (sizeof(agents) / sizeof(agents[0]))]);
	}
	*len = (size_t)(p - buf);
	return buf;
}

/* ---- parsing ---- */

static void hll_add(uint8_t *reg, uint64_t h)
{
	uint64_t rest;
	uint8_t rank;

	h ^= h >> 33;			/* fmix64: FNV's high bits mix poorly */
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	rest = h << HLL_BITS | 1u << (HLL_BITS - 1);
	rank = (uint8_t)(__builtin_clzll(rest) + 1);
	if (rank > reg[h >> (64 - HLL_BITS)])
		reg[h >> (64 - HLL_BITS)] = rank;
}

static double hll_estimate(const uint8_t *reg)
{
	const int m = 1 << HLL_BITS;
	double sum = 0;
	int zeros = 0;

	for (int i = 0; i < m; i++) {
		sum += 1.0 / (double)(1ull << reg[i]);
		zeros += !reg[i];
	}
	double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;

	return e < 2.5 * m && zeros ? m * log((double)m / zeros) : e;
}

enum state { FIELD_START, UNQUOTED, QUOTED, QUOTE_IN_QUOTED };
enum field { F_TIME, F_CLIENT, F_METHOD, F_PATH, F_STATUS, F_BYTES, F_LATENCY, F_AGENT };

/* Lower-case markers of crawlers, monitors and scripted clients. */
static const char *const bot_marks[] = {
	"bot", "crawl", "spider", "slurp", "curl/", "wget/", "python-requests", "python-urllib",
	"headlesschrome", "phantomjs", "scrapy", "go-http-client", "okhttp", "java/",
	"libwww-perl", "apache-httpclient", "axios/", "node-fetch", "facebookexternalhit",
	"bingpreview", "mediapartners", "pingdom", "uptimerobot", "statuscake", "zgrab",
	"masscan", "nmap", "nikto", "sqlmap", "httpx", "aiohttp", "postmanruntime",
};

static int is_bot(const char *agent, size_t len)
{
	char low[256];

	if (len > sizeof(low))
		len = sizeof(low);
	for (size_t i = 0; i < len; i++)
		low[i] = (char)(agent[i] >= 'A' && agent[i] <= 'Z' ? agent[i] + 32 : agent[i]);
	for (size_t i = 0; i < sizeof(bot_marks) / sizeof(bot_marks[0]); i++)
		if (memmem(low, len, bot_marks[i], strlen(bot_marks[i])))
			return 1;
	return 0;
}

static void end_row(struct csv_summary *s, int nfields, uint64_t status,
		    uint64_t bytes, uint64_t latency, unsigned method,
		    const char *agent, size_t agent_len)
{
	if (nfields != F_AGENT + 1 || status < 200 || status > 599) {
		s->bad_rows++;
		return;
	}
	s->rows++;
	s->bytes += bytes;
	s->latency_ms += latency;
	s->slow += latency > 1000;
	s->status_class[status / 100 - 2]++;
	s->bot_rows += is_bot(agent, agent_len);
	if (status > s->max_status)
		s->max_status = (uint16_t)status;
	s->method_seen |= (uint8_t)(1u << method);
}

static unsigned method_bit(uint32_t h)
{
	switch (h) {
	case 'G' << 16 | 'E' << 8 | 'T': return 0;
	case 'H' << 16 | 'E' << 8 | 'A': return 1;
	case 'P' << 16 | 'O' << 8 | 'S': return 2;
	case 'P' << 16 | 'U' << 8 | 'T': return 3;
	case 'D' << 16 | 'E' << 8 | 'L': return 4;
	default: return 7;
	}
}

static void *parse_part(void *arg)
{
	struct part *pt = arg;
	struct csv_summary *s = &summary[pt->id];
	enum state st = FIELD_START;
	int field = 0;
	uint64_t num = 0, status = 0, bytes = 0, latency = 0;
	uint32_t mhead = 0;
	unsigned method = 7;
	const char *quoted = NULL, *agent = NULL;
	size_t agent_len = 0;
	uint64_t visitor = 0xcbf29ce484222325ull;	/* FNV-1a of client and agent */
	int fpos = 0, hour = 0;
	/* Kept on this thread's stack while parsing, copied out at the end. */
	uint32_t by_hour[24] = { 0 };
	uint8_t hll[1 << HLL_BITS] = { 0 };

	for (const char *c = pt->begin; c < pt->end; c++) {
		char ch = *c;

		switch (st) {
		case FIELD_START:
			num = 0;
			fpos = 0;
			if (ch == '"') {
				st = QUOTED;
				quoted = c + 1;
				break;
			}
			st = UNQUOTED;
			/* fall through */
		case UNQUOTED:
			if (ch == ',' || ch == '\n') {
				switch (field) {
				case F_METHOD: method = method_bit(mhead); break;
				case F_STATUS: status = num; break;
				case F_BYTES: bytes = num; break;
				case F_LATENCY: latency = num; break;
				case F_AGENT:
					agent = quoted;
					agent_len = quoted ? (size_t)(c - 1 - quoted) : 0;
					break;
				}
				field++;
				st = FIELD_START;
				if (ch == '\n') {
					end_row(s, field, status, bytes, latency, method,
						agent, agent_len);
					hll_add(hll, visitor);
					by_hour[hour]++;
					field = 0;
					quoted = agent = NULL;
					visitor = 0xcbf29ce484222325ull;
				}
			} else if (ch >= '0' && ch <= '9') {
				num = num * 10 + (uint64_t)(ch - '0');
				if (field == F_CLIENT)
					visitor = (visitor ^ (uint8_t)ch) * 0x100000001b3ull;
				else if (field == F_TIME && fpos == 12)	/* YYYY-MM-DDTHH */
					hour = (int)(num % 100) % 24;
			} else if (field == F_CLIENT) {
				visitor = (visitor ^ (uint8_t)ch) * 0x100000001b3ull;
			} else if (field == F_METHOD && mhead < 1u << 16) {
				mhead = mhead << 8 | (uint8_t)ch;	/* the first 3 letters */
			}
			break;
		case QUOTED:
			if (ch == '"')
				st = QUOTE_IN_QUOTED;
			else if (field == F_AGENT)
				visitor = (visitor ^ (uint8_t)ch) * 0x100000001b3ull;
			break;
		case QUOTE_IN_QUOTED:
			if (ch == '"') {		/* a doubled quote: still inside */
				st = QUOTED;
			} else {
				st = UNQUOTED;
				c--;			/* the comma or line break ends the field */
			}
			break;
		}
		if (st == FIELD_START && field == F_METHOD)
			mhead = 0;
		fpos++;
	}
	memcpy(pt->by_hour, by_hour, sizeof(by_hour));
	memcpy(pt->hll, hll, sizeof(hll));
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 320, len;
	char *log = load_log(mib << 20, &len);
	static struct part parts[NPARSERS];
	pthread_t t[NPARSERS];
	const char *from = log;
	struct csv_summary all = { 0 };

	for (int i = 0; i < NPARSERS; i++) {
		const char *to = log + len * (size_t)(i + 1) / NPARSERS;

		while (to < log + len && to[-1] != '\n')
			to++;
		parts[i].id = i;
		parts[i].begin = from;
		parts[i].end = to;
		from = to;
	}
	for (int i = 0; i < NPARSERS; i++)
		if (pthread_create(&t[i], NULL, parse_part, &parts[i]))
			return 1;
	for (int i = 0; i < NPARSERS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NPARSERS; i++) {
		const struct csv_summary *s = &summary[i];

		all.rows += s->rows;
		all.bad_rows += s->bad_rows;
		all.bytes += s->bytes;
		all.latency_ms += s->latency_ms;
		all.slow += s->slow;
		all.method_seen |= s->method_seen;
		if (s->max_status > all.max_status)
			all.max_status = s->max_status;
		all.bot_rows += s->bot_rows;
		for (int k = 0; k < 4; k++)
			all.status_class[k] += s->status_class[k];
		if (i == 0)
			continue;
		for (int k = 0; k < 1 << HLL_BITS; k++)
			if (parts[i].hll[k] > parts[0].hll[k])
				parts[0].hll[k] = parts[i].hll[k];
		for (int h = 0; h < 24; h++)
			parts[0].by_hour[h] += parts[i].by_hour[h];
	}
	printf("rows %llu bad %u bytes %llu mean latency %.1f ms slow %u max status %u methods %#x\n",
	       (unsigned long long)all.rows, all.bad_rows, (unsigned long long)all.bytes,
	       all.rows ? (double)all.latency_ms / (double)all.rows : 0.0, all.slow,
	       all.max_status, all.method_seen);
	printf("2xx %u 3xx %u 4xx %u 5xx %u bots %u visitors ~%.0f\n", all.status_class[0],
	       all.status_class[1], all.status_class[2], all.status_class[3], all.bot_rows,
	       hll_estimate(parts[0].hll));
	for (int h = 0; h < 24; h += 6)
		printf("%02d-%02dh %u%s", h, h + 5,
		       parts[0].by_hour[h] + parts[0].by_hour[h + 1] + parts[0].by_hour[h + 2] +
		       parts[0].by_hour[h + 3] + parts[0].by_hour[h + 4] + parts[0].by_hour[h + 5],
		       h < 18 ? " " : "\n");
	free(log);
	return 0;
}
