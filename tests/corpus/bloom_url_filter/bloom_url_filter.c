/*
 * bloom_url_filter: the seen-URL filter of a web crawler. Every link the
 * fetchers extract is built into its normalised URL, hashed and checked
 * against a Bloom filter of 2^32 bits (512 MiB) before it may enter the
 * frontier; a link the filter has not seen is added and queued. The filter
 * is register-blocked: the 5 bits of a URL lie in one 64-bit word picked by
 * the hash, so a check is one 8-byte read at a random place in 512 MiB. At
 * start the crawler re-adds the URLs the previous crawl fetched, then it
 * works through the links of 150000 fetched pages (about 5.9M checks).
 * BAD maps the bit array with plain mmap (transparent huge pages are in
 * "madvise" mode here, so it stays on 4 KiB pages: 131072 pages, and
 * nearly every check misses the TLBs); GOOD maps it 2 MiB aligned and calls
 * madvise(MADV_HUGEPAGE) before the first bit is set.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FILTER_LOG2_BITS	32		/* 2^32 bits = 512 MiB */
#define FILTER_PROBES		5
#define HUGE_SZ			(2ul << 20)

#define NHOSTS			4096
#define PAGES_PER_HOST_SEEN	128		/* fetched by the previous crawl */
#define PAGES_PER_HOST		512		/* pages a link may point at */

struct url_filter {
	uint64_t *words;
	uint64_t word_mask;
	uint64_t added;
};

static const char *const tlds[] = { "com", "org", "net", "de", "io", "co.uk", "fr", "info" };
static const char *const sections[] = { "news", "blog", "product", "docs", "forum", "tag",
					"user", "archive" };

struct host {
	char name[31];
	uint8_t len;
};

static struct host hosts[NHOSTS];
static const uint8_t section_len[] = { 4, 4, 7, 4, 5, 3, 4, 7 };

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void make_hosts(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	static const char syl[][4] = { "ka", "lo", "mi", "ne", "ru", "ta", "vo", "zen", "qua", "bel",
				       "dor", "fi", "gra", "hu", "jo", "pex" };

	for (int h = 0; h < NHOSTS; h++) {
		char *p = hosts[h].name;
		int n = 2 + xorshift64(&s) % 3;

		p += sprintf(p, "www.");
		for (int i = 0; i < n; i++)
			p += sprintf(p, "%s", syl[xorshift64(&s) % 16]);
		p += sprintf(p, ".%s", tlds[xorshift64(&s) % 8]);
		hosts[h].len = p - hosts[h].name;
	}
}

/* "https://www.kaloru.de/blog/812.html" */
static size_t url_build(char *buf, unsigned host, unsigned page)
{
	char *p = buf;
	size_t n;

	memcpy(p, "https://", 8);
	p += 8;
	n = hosts[host].len;
	memcpy(p, hosts[host].name, n);
	p += n;
	*p++ = '/';
	n = section_len[page & 7];
	memcpy(p, sections[page & 7], n);
	p += n;
	*p++ = '/';
	char digits[12];
	int d = 0;
	do {
		digits[d++] = '0' + page % 10;
		page /= 10;
	} while (page);
	while (d)
		*p++ = digits[--d];
	memcpy(p, ".html", 5);
	p += 5;
	return p - buf;
}

/* MurmurHash64A */
static uint64_t url_hash(const char *s, size_t len)
{
	const uint64_t m = 0xc6a4a7935bd1e995ull;
	const int r = 47;
	uint64_t h = 0x5bd1e995u ^ (len * m);
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t k;

		memcpy(&k, s + i, 8);
		k *= m;
		k ^= k >> r;
		k *= m;
		h ^= k;
		h *= m;
	}
	if (i < len) {
		uint64_t k = 0;

		memcpy(&k, s + i, len - i);
		h ^= k;
		h *= m;
	}
	h ^= h >> r;
	h *= m;
	h ^= h >> r;
	return h;
}

static uint64_t *filter_map(size_t bytes)
{
#ifdef BAD
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
#else
	char *p = mmap(NULL, bytes + HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (madvise(a, bytes, MADV_HUGEPAGE))
		perror("madvise");
	return (uint64_t *)a;
#endif
}

/*
 * Register-blocked: all FILTER_PROBES bits of a URL lie in one 64-bit word,
 * picked by the low hash bits; the bit positions come from 6-bit fields of
 * the high half, so a check costs one memory access.
 */
static uint64_t probe_mask(uint64_t h)
{
	uint64_t m = 0;

	for (int i = 0; i < FILTER_PROBES; i++)
		m |= 1ull << ((h >> (32 + 6 * i)) & 63);
	return m;
}

static void filter_add(struct url_filter *f, uint64_t h)
{
	f->words[h & f->word_mask] |= probe_mask(h);
	f->added++;
}

static __attribute__((noinline)) int filter_contains(const struct url_filter *f, uint64_t h)
{
	uint64_t m = probe_mask(h);
	uint64_t word = f->words[h & f->word_mask];

	return (~word & m) == 0;	/* no probe bit clear */
}

/* the URLs the previous crawl fetched */
static void filter_restore(struct url_filter *f)
{
	char url[128];

	for (unsigned h = 0; h < NHOSTS; h++)
		for (unsigned pg = 0; pg < PAGES_PER_HOST_SEEN; pg++)
			filter_add(f, url_hash(url, url_build(url, h, pg)));
}

/* extract the links of `pages` fetched pages, queue the unseen ones */
static uint64_t crawl(struct url_filter *f, long pages, uint64_t *queued)
{
	uint64_t s = 0x2545f4914f6cdd1dull, dup = 0;
	char url[128];

	for (long p = 0; p < pages; p++) {
		unsigned host = xorshift64(&s) % NHOSTS;
		int nlinks = 24 + xorshift64(&s) % 32;

		for (int l = 0; l < nlinks; l++) {
			uint64_t r = xorshift64(&s);
			/* three links in four stay on the page's host */
			unsigned lh = (r & 3) ? host : (unsigned)(r >> 2) % NHOSTS;
			unsigned pg = (unsigned)(r >> 20) % PAGES_PER_HOST;
			uint64_t h = url_hash(url, url_build(url, lh, pg));

			if (filter_contains(f, h)) {
				dup++;
				continue;
			}
			filter_add(f, h);
			(*queued)++;
		}
	}
	return dup;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 150000;
	size_t bytes = 1ul << (FILTER_LOG2_BITS - 3);
	struct url_filter f = { .word_mask = (1ull << (FILTER_LOG2_BITS - 6)) - 1 };
	uint64_t queued = 0, dup;

	make_hosts();
	f.words = filter_map(bytes);
	if (!f.words) {
		perror("mmap");
		return 1;
	}
	filter_restore(&f);
	dup = crawl(&f, pages, &queued);
	printf("checksum %llu dup %llu queued %llu added %llu\n",
	       (unsigned long long)(dup * 31 + queued), (unsigned long long)dup,
	       (unsigned long long)queued, (unsigned long long)f.added);
	return 0;
}
