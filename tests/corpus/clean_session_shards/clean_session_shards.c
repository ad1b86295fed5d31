// SPDX-License-Identifier: GPL-2.0-only
/*
 * clean_session_shards: the session check of a shop's HTTP front end.
 * Two request threads take turns on a stream of request headers; each
 * thread parses the header block, finds the `sid` cookie, decodes it and
 * checks its MAC (all without a lock), then looks the session up in a
 * sharded session store and updates its counters under the shard's mutex.
 *
 * The store has 32 shards.  A shard is its own mutex, its open-addressing
 * table of sessions and a few counters, aligned to and padded to whole cache
 * lines, so no two shards share a line; a session record is one line too.
 * The shard of a request is a hash of its session id, so now and then the
 * two threads want the same shard at the same moment: that is real sharing
 * of one lock (and one session), not something padding could remove, and
 * with 32 shards and a short critical section it is rare.
 *
 * Build with -DSESSION_LOCK_STATS to count how often a shard's mutex was
 * already held when a thread came to take it.
 */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS	2
#define REQUESTS	(2400u * 1000)		/* per thread */
#define NSHARDS		32
#define NSESSIONS	8192			/* live sessions */
#define SHARD_SLOTS	1024			/* per shard, power of two */
#define HOT_SESSIONS	(NSESSIONS / 16)

struct session {
	uint8_t sid[16];
	uint32_t user_id;		/* 0 = empty slot */
	uint32_t flags;
	uint64_t created;
	uint64_t expires;
	uint64_t last_seen;
	uint64_t hits;
	uint64_t bytes_in;
} __attribute__((aligned(64)));
static_assert(sizeof(struct session) == 64, "one session per cache line");

struct shard {
	pthread_mutex_t lock;
	struct session *slots;
	uint32_t mask;
	uint32_t nsessions;
	uint64_t lookups;
	uint64_t rejected;
	uint64_t bytes_in;
} __attribute__((aligned(64)));
static_assert(sizeof(struct shard) % 64 == 0, "a shard is whole cache lines");

static struct shard shards[NSHARDS];

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* The server's cookie MAC: a keyed hash of the first 12 bytes of the id. */
static uint32_t sid_mac(const uint8_t sid[16])
{
	uint64_t a, b, h = 0x6a09e667f3bcc908ull;
	uint32_t c;

	memcpy(&a, sid, 8);
	memcpy(&c, sid + 8, 4);
	b = c;
	for (int r = 0; r < 24; r++) {
		h = mix64(h ^ a) + b;
		a = (a << 17 | a >> 47) ^ h;
	}
	return (uint32_t)(h >> 32);
}

/* The id the server issued to session n; n >= NSESSIONS are forged ids. */
static void session_id(uint32_t n, uint8_t sid[16])
{
	uint64_t a = mix64(n * 0x9e3779b97f4a7c15ull + 1);
	uint32_t b = (uint32_t)mix64(a), mac;

	memcpy(sid, &a, 8);
	memcpy(sid + 8, &b, 4);
	mac = sid_mac(sid);
	if (n >= NSESSIONS)
		mac ^= (n & 1) ? 0x10u : 0;	/* half of them have a valid MAC */
	memcpy(sid + 12, &mac, 4);
}

static inline uint64_t sid_hash(const uint8_t sid[16])
{
	uint64_t a, b;

	memcpy(&a, sid, 8);
	memcpy(&b, sid + 8, 8);
	return mix64(a ^ mix64(b));
}

static inline struct shard *shard_of(uint64_t h)
{
	return &shards[h % NSHARDS];
}

#ifdef SESSION_LOCK_STATS
static __thread uint64_t lock_busy, lock_taken;
static void shard_lock(struct shard *s)
{
	lock_taken++;
	if (pthread_mutex_trylock(&s->lock) == 0)
		return;
	lock_busy++;
	pthread_mutex_lock(&s->lock);
}
#else
static inline void shard_lock(struct shard *s)
{
	pthread_mutex_lock(&s->lock);
}
#endif

static inline void shard_unlock(struct shard *s)
{
	pthread_mutex_unlock(&s->lock);
}

/* Setup, one thread: put session n into its shard. */
static void session_insert(uint32_t n)
{
	uint8_t sid[16];
	uint64_t h;
	struct shard *s;
	uint32_t i;

	session_id(n, sid);
	h = sid_hash(sid);
	s = shard_of(h);
	for (i = (uint32_t)(h >> 32) & s->mask; s->slots[i].user_id; i = (i + 1) & s->mask)
		;
	memcpy(s->slots[i].sid, sid, 16);
	s->slots[i].user_id = 100000 + (uint32_t)(mix64(n + 77) % 900000);
	s->slots[i].flags = n % 5 == 0;		/* logged in as a guest */
	s->slots[i].created = 1700000000ull + n;
	s->slots[i].expires = s->slots[i].created + 86400;
	s->nsessions++;
}

/*
 * The store's one shared step: find the session, count the request.
 * Returns the session's user id, 0 if the id is unknown.
 */
static __attribute__((noinline)) uint32_t
session_touch(const uint8_t sid[16], uint64_t now, uint32_t clen)
{
	uint64_t h = sid_hash(sid);
	struct shard *s = shard_of(h);
	uint32_t i, user = 0;

	shard_lock(s);
	for (i = (uint32_t)(h >> 32) & s->mask; s->slots[i].user_id; i = (i + 1) & s->mask) {
		struct session *e = &s->slots[i];

		if (memcmp(e->sid, sid, 16) == 0) {
			e->hits++;
			e->bytes_in += clen;
			if (now > e->last_seen)
				e->last_seen = now;
			user = e->user_id;
			break;
		}
	}
	s->lookups++;
	if (user)
		s->bytes_in += clen;
	else
		s->rejected++;
	shard_unlock(s);
	return user;
}

static const char *const paths[8] = {
	"/api/v1/cart/items?page=2", "/api/v1/catalog/search?q=running+shoes&size=42",
	"/api/v1/checkout/shipping-options", "/api/v1/account/orders?limit=20",
	"/static/img/products/3312/thumb.webp", "/api/v1/recommendations?slot=home",
	"/api/v1/cart/items/8841/quantity", "/api/v1/wishlist",
};

/* One request's header block, as the client would send it. */
static size_t make_request(char *buf, uint64_t x, uint32_t n)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t sid[16];
	char *p = buf;
	int len;

	session_id(n, sid);
	len = sprintf(p, "%s %s HTTP/1.1\r\n", (x >> 3) & 1 ? "POST" : "GET", paths[(x >> 4) & 7]);
	p += len;
	p = stpcpy(p, "Host: shop.example.com\r\n"
		   "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0\r\n"
		   "Accept: application/json, text/plain, */*\r\n"
		   "Accept-Language: de-DE,de;q=0.9,en-US;q=0.7,en;q=0.5\r\n"
		   "Accept-Encoding: gzip, deflate, br\r\n"
		   "Referer: https://shop.example.com/cart\r\n"
		   "Cookie: _ga=GA1.2.1842215371.1712063320; theme=dark; sid=");
	for (int i = 0; i < 16; i++) {
		*p++ = hex[sid[i] >> 4];
		*p++ = hex[sid[i] & 15];
	}
	p = stpcpy(p, "; consent=analytics%2Cads\r\n");
	len = sprintf(p, "Content-Length: %u\r\nConnection: keep-alive\r\n\r\n",
		      (unsigned)((x >> 8) & 1023));
	return (size_t)(p - buf) + (size_t)len;
}

struct req {
	uint8_t sid[16];
	int have_sid;
	uint32_t clen;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int name_is(const char *p, size_t n, const char *want)
{
	if (strlen(want) != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((p[i] | 0x20) != want[i])
			return 0;
	return 1;
}

static void parse_cookies(const char *p, const char *end, struct req *r)
{
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *eq;

		if (!semi)
			semi = end;
		while (p < semi && *p == ' ')
			p++;
		eq = memchr(p, '=', (size_t)(semi - p));
		if (eq && eq - p == 3 && memcmp(p, "sid", 3) == 0 && semi - eq - 1 == 32) {
			int ok = 1;

			for (int i = 0; i < 16; i++) {
				int hi = hexval(eq[1 + 2 * i]), lo = hexval(eq[2 + 2 * i]);

				if (hi < 0 || lo < 0)
					ok = 0;
				r->sid[i] = (uint8_t)(hi << 4 | lo);
			}
			r->have_sid = ok;
		}
		p = semi + 1;
	}
}

/* Header parsing: request line, then "Name: value" lines. */
static void parse_request(const char *buf, size_t len, struct req *r)
{
	const char *p = buf, *end = buf + len;

	r->have_sid = 0;
	r->clen = 0;
	p = memchr(p, '\n', len) + 1;
	while (p < end) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		const char *colon, *v;

		if (!eol || eol == p)
			break;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon) {
			v = colon + 1;
			while (v < eol && *v == ' ')
				v++;
			if (name_is(p, (size_t)(colon - p), "cookie"))
				parse_cookies(v, eol, r);
			else if (name_is(p, (size_t)(colon - p), "content-length"))
				r->clen = (uint32_t)strtoul(v, NULL, 10);
		}
		p = eol + 2;
	}
}

struct worker {
	pthread_t tid;
	uint64_t seed;
	uint64_t sum;
	uint64_t served, refused;
	unsigned id;
} __attribute__((aligned(64)));

static void *request_thread(void *arg)
{
	struct worker *w = arg;
	uint64_t x = w->seed, sum = 0, served = 0, refused = 0;
	char buf[1024];
	struct req r;

	for (uint32_t i = 0; i < REQUESTS; i++) {
		uint32_t n, user = 0, mac;
		size_t len;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* busy shoppers send most of the requests; some ids are forged */
		n = (uint32_t)(x >> 40) % NSESSIONS;
		if ((x >> 20) & 7)
			n %= HOT_SESSIONS;
		if ((x >> 24) % 64 == 0)
			n = NSESSIONS + (uint32_t)(x >> 32) % 4096;
		len = make_request(buf, x, n);
		parse_request(buf, len, &r);
		if (r.have_sid) {
			memcpy(&mac, r.sid + 12, 4);
			if (mac == sid_mac(r.sid))
				user = session_touch(r.sid, 2ull * i + w->id, r.clen);
		}
		if (user) {
			served++;
			sum += mix64(user ^ ((uint64_t)r.clen << 32));
		} else {
			refused++;
		}
	}
#ifdef SESSION_LOCK_STATS
	fprintf(stderr, "thread %u: %llu of %llu shard locks were busy\n", w->id,
		(unsigned long long)lock_busy, (unsigned long long)lock_taken);
#endif
	w->seed = x;
	w->sum = sum;
	w->served = served;
	w->refused = refused;
	return NULL;
}

int main(void)
{
	static struct worker w[NTHREADS];
	uint64_t sum = 0, served = 0, refused = 0, lookups = 0, rejected = 0;

	for (int k = 0; k < NSHARDS; k++) {
		pthread_mutex_init(&shards[k].lock, NULL);
		shards[k].slots = aligned_alloc(64, SHARD_SLOTS * sizeof(struct session));
		if (!shards[k].slots)
			return 1;
		memset(shards[k].slots, 0, SHARD_SLOTS * sizeof(struct session));
		shards[k].mask = SHARD_SLOTS - 1;
	}
	for (uint32_t n = 0; n < NSESSIONS; n++)
		session_insert(n);

	for (unsigned i = 0; i < NTHREADS; i++) {
		w[i].id = i;
		w[i].seed = 0x9e3779b97f4a7c15ull * (i + 5);
		if (pthread_create(&w[i].tid, NULL, request_thread, &w[i]))
			return 1;
	}
	for (unsigned i = 0; i < NTHREADS; i++) {
		pthread_join(w[i].tid, NULL);
		sum += w[i].sum;
		served += w[i].served;
		refused += w[i].refused;
	}
	/* the store's final state: sums and maxima, whatever the interleaving */
	for (int k = 0; k < NSHARDS; k++) {
		struct shard *s = &shards[k];

		lookups += s->lookups;
		rejected += s->rejected;
		for (uint32_t i = 0; i < SHARD_SLOTS; i++) {
			struct session *e = &s->slots[i];

			if (e->user_id)
				sum += mix64(e->user_id + e->hits * 0x100000001b3ull +
					     e->bytes_in * 31 + e->last_seen);
		}
		sum += s->bytes_in;
	}
	printf("checksum %016llx served %llu refused %llu lookups %llu rejected %llu\n",
	       (unsigned long long)sum, (unsigned long long)served,
	       (unsigned long long)refused, (unsigned long long)lookups,
	       (unsigned long long)rejected);
	for (int k = 0; k < NSHARDS; k++)
		free(shards[k].slots);
	return 0;
}
