// SPDX-License-Identifier: GPL-2.0-only
/*
 * log_shipper_stats: the two threads of a log shipper.  The filter thread
 * parses key=value log lines and applies the shipper's field rules (keep,
 * drop, redact, pseudonymise), looked up by a seeded hash of the key in the
 * rule table the configuration points to; values longer than the configured
 * limit are cut.  The sender thread frames the filtered records for the
 * collector (a check value per frame, length header into its send queue) and counts
 * what it sent in the shipper's statistics, which the status endpoint reads.
 * BAD: the statistics follow the configuration in struct shipper, so the
 * sender's counter stores and the filter's configuration loads hit the same
 * cache line.
 * GOOD: the statistics start a cache line of their own (_Alignas(64)).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLINES		4096		/* lines in the filter's input buffer */
#define FILTER_PASSES	1800
#define NFRAMES		4096		/* records in the sender's batch */
#define SEND_PASSES	32000
#define NRULES		64

#ifdef BAD
#define STATS_ALIGN
#else
#define STATS_ALIGN	_Alignas(64)
#endif

enum action { KEEP, DROP, REDACT, PSEUDO };

struct field_rule {
	uint32_t key_hash;
	uint8_t action;
	uint8_t pad[3];
};

struct shipper {
	/* configuration, set at start-up */
	const struct field_rule *rules;
	uint32_t rule_mask;
	uint32_t hash_seed;
	uint32_t max_value;		/* longer values are cut */
	uint32_t level_min;		/* records below this level are dropped */
	/* statistics, updated by the sender */
	STATS_ALIGN uint64_t bytes_sent;
	uint64_t frames_sent;
	uint32_t last_check;
};

static _Alignas(64) struct shipper shipper;
static struct field_rule rule_table[NRULES];

struct sendq {
	uint32_t *hdr;			/* frame headers: length and check value */
	size_t head;
	size_t cap;
};

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint32_t key_hash(uint32_t seed, const char *k, size_t n)
{
	uint32_t h = seed;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)k[i]) * 16777619u;
	return h ^ h >> 15;
}

/*
 * Filter one line "k=v k=v ...\n" into out; returns the bytes written
 * (0: the record is dropped).
 */
static __attribute__((noinline)) size_t filter_line(const struct shipper *sh,
						    const char *line, char *out)
{
	const char *p = line;
	char *o = out;

	if ((uint32_t)(p[6] - '0') < sh->level_min)	/* "level=N" comes first */
		return 0;
	while (*p != '\n') {
		const char *k = p, *v;
		size_t kn, vn;
		uint32_t h;
		const struct field_rule *r;

		while (*p != '=')
			p++;
		kn = p - k;
		v = ++p;
		while (*p != ' ' && *p != '\n')
			p++;
		vn = p - v;
		if (*p == ' ')
			p++;

		h = key_hash(sh->hash_seed, k, kn);
		r = &sh->rules[h & sh->rule_mask];
		if (r->key_hash != h || r->action == DROP)
			continue;
		memcpy(o, k, kn + 1);
		o += kn + 1;
		if (r->action == REDACT) {
			memcpy(o, "***", 3);
			o += 3;
		} else if (r->action == PSEUDO) {
			uint32_t x = key_hash(sh->hash_seed, v, vn);

			for (int i = 0; i < 8; i++, x >>= 4)
				*o++ = "0123456789abcdef"[x & 15];
		} else {
			if (vn > sh->max_value)
				vn = sh->max_value;
			memcpy(o, v, vn);
			o += vn;
		}
		*o++ = ' ';
	}
	o[-1] = '\n';
	return o - out;
}

static void *filter_main(void *arg)
{
	const char *lines = arg;
	char out[512];
	uint64_t sum = 0, kept = 0;

	for (int pass = 0; pass < FILTER_PASSES; pass++) {
		const char *p = lines;

		for (int i = 0; i < NLINES; i++) {
			size_t n = filter_line(&shipper, p, out);

			if (n) {
				kept++;
				for (size_t j = 0; j < n; j += 8) {
					uint64_t w = 0;

					memcpy(&w, out + j, n - j < 8 ? n - j : 8);
					sum = (sum ^ w) * 0x100000001b3ull;
				}
			}
			p = strchr(p, '\n') + 1;
		}
	}
	return (void *)(uintptr_t)(sum ^ kept);
}

/* The frame check value: a word-at-a-time hash of the record (the collector's). */
static uint32_t frame_check(const uint8_t *b, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	if (i < n) {
		uint64_t w = 0;

		memcpy(&w, b + i, n - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	return (uint32_t)(h >> 32 ^ h);
}

/* Frame one record for the collector and account it. */
static __attribute__((noinline)) void send_frame(struct shipper *sh, struct sendq *q,
						 const uint8_t *rec, size_t len)
{
	uint32_t chk = frame_check(rec, len);

	q->hdr[q->head] = (uint32_t)len << 24 | (chk & 0xffffff);
	q->head = (q->head + 1) & (q->cap - 1);
	sh->bytes_sent += len + 4;
	sh->frames_sent++;
	sh->last_check = chk;
}

struct batch {
	uint8_t *data;
	uint16_t len[NFRAMES];
	uint32_t off[NFRAMES];
};

static void *sender_main(void *arg)
{
	struct batch *b = arg;
	struct sendq q = { malloc(1024 * sizeof(uint32_t)), 0, 1024 };
	uint64_t sum = 0;

	for (int pass = 0; pass < SEND_PASSES; pass++) {
		for (int i = 0; i < NFRAMES; i++)
			send_frame(&shipper, &q, b->data + b->off[i], b->len[i]);
		sum = sum * 31 + q.hdr[(q.head - 1) & (q.cap - 1)];
	}
	free(q.hdr);
	return (void *)(uintptr_t)sum;
}

static const char *const keys[] = {
	"ts", "level", "svc", "host", "user", "ip", "msg", "latency_ms",
	"trace_id", "status", "path", "bytes", "session", "ua", "region", "retry"
};
static const uint8_t key_action[] = {
	KEEP, KEEP, KEEP, DROP, PSEUDO, REDACT, KEEP, KEEP,
	KEEP, KEEP, KEEP, KEEP, REDACT, DROP, KEEP, KEEP
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static char *make_lines(uint64_t *seed)
{
	static const char *const svcs[] = { "auth", "billing", "search", "cart", "gateway" };
	static const char *const msgs[] = {
		"login_ok", "token_refresh", "cache_miss", "upstream_timeout",
		"order_created", "payment_declined", "rate_limited", "shutdown_requested_by_operator"
	};
	char *buf = malloc(NLINES * 256), *p = buf;

	for (int i = 0; i < NLINES; i++) {
		uint64_t x = rng(seed), y = rng(seed);

		p += sprintf(p, "level=%u ts=%llu svc=%s", (unsigned)(x % 5),
			     1700000000000ull + i * 37ull, svcs[(x >> 8) % 5]);
		p += sprintf(p, " user=u%05u ip=10.%u.%u.%u msg=%s latency_ms=%u",
			     (unsigned)(y % 100000), (unsigned)(y >> 20) & 255,
			     (unsigned)(y >> 28) & 255, (unsigned)(y >> 36) & 255,
			     msgs[(x >> 16) & 7], (unsigned)(x >> 24) % 2000);
		if (x >> 40 & 1)
			p += sprintf(p, " trace_id=%016llx", (unsigned long long)y);
		if (x >> 41 & 1)
			p += sprintf(p, " path=/api/v2/items/%u status=%u", (unsigned)(y >> 44) % 10000,
				     200 + (unsigned)(x >> 44) % 4 * 100);
		if (x >> 42 & 1)
			p += sprintf(p, " session=%08x ua=curl/8.%u", (unsigned)(y >> 8),
				     (unsigned)(x >> 50) % 9);
		*p++ = '\n';
	}
	*p = 0;
	return buf;
}

static void make_batch(struct batch *b, uint64_t *seed)
{
	size_t off = 0;

	b->data = malloc(NFRAMES * 64);
	for (int i = 0; i < NFRAMES; i++) {
		size_t n = 20 + rng(seed) % 40;

		for (size_t j = 0; j < n; j++)
			b->data[off + j] = 32 + rng(seed) % 95;
		b->off[i] = off;
		b->len[i] = n;
		off += n;
	}
}

int main(void)
{
	pthread_t ft, st;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	static struct batch batch;
	char *lines;
	void *fres, *sres;

	shipper.hash_seed = 0x811c9dcdu;
	shipper.rule_mask = NRULES - 1;
	shipper.max_value = 24;
	shipper.level_min = 1;
	shipper.rules = rule_table;
	for (size_t i = 0; i < NKEYS; i++) {
		uint32_t h = key_hash(shipper.hash_seed, keys[i], strlen(keys[i]));
		struct field_rule *r = &rule_table[h & (NRULES - 1)];

		if (r->key_hash)
			return 2;	/* the rule table is sized for no collisions */
		r->key_hash = h;
		r->action = key_action[i];
	}
	lines = make_lines(&seed);
	make_batch(&batch, &seed);

	if (pthread_create(&ft, NULL, filter_main, lines) ||
	    pthread_create(&st, NULL, sender_main, &batch))
		return 1;
	pthread_join(ft, &fres);
	pthread_join(st, &sres);
	printf("checksum %016llx %016llx %llu %llu %08x\n",
	       (unsigned long long)(uintptr_t)fres, (unsigned long long)(uintptr_t)sres,
	       (unsigned long long)shipper.bytes_sent, (unsigned long long)shipper.frames_sent,
	       shipper.last_check);
	free(lines);
	free(batch.data);
	return 0;
}
