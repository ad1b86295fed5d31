// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_conflict: the 1993 direct-mapped cache experiment (Hanemaaijer),
 * redone for a physically indexed set-associative cache. The physical page
 * behind each virtual page decides its "colour" (the cache sets it can use):
 *	colour = PFN mod (cache size / ways / page size)
 * A buffer smaller than the cache still misses when more than 'ways' of its
 * pages share a colour. The program reads the PFNs from /proc/self/pagemap
 * (root only), prints the histogram p(k) = number of colours holding k
 * pages, the 1993 "sum" (pages in shared colours) and the pages beyond the
 * associativity, then times passes that read one byte every 16 bytes.
 *	--placement plain     pages as the kernel gave them
 *	--placement coloured  pages picked from a larger pool so that every
 *	                      colour holds the same number, then moved into one
 *	                      contiguous range with mremap (page colouring)
 *
 * Labels: page_conflict
 */
#include <fcntl.h>
#include <getopt.h>

#include "ex_common.h"

static uint64_t pfn_of(int fd, void *va)
{
	uint64_t entry = 0;
	off_t off = (off_t)((uintptr_t)va / EX_PAGE) * 8;

	if (fd < 0 || pread(fd, &entry, 8, off) != 8 || !(entry >> 63))
		return 0;
	return entry & ((1ull << 55) - 1);
}

static long sysfs_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = 0;
	char unit = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%ld%c", &v, &unit) >= 1 && (unit == 'K' || unit == 'k'))
		v <<= 10;
	else if (unit == 'M')
		v <<= 20;
	fclose(f);
	return v;
}

static __attribute__((noinline)) uint64_t read_pages(volatile unsigned char *buf, long pages,
						     int passes)
{
	uint64_t v = 0;

	for (int r = 0; r < passes; r++)
		for (long i = 0; i < pages * (long)EX_PAGE; i += 16)
			v += buf[i];
	return v;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: page_conflict [OPTIONS]\n"
		"Maps a buffer's pages to cache colours and times reading it (1993 program).\n"
		"\n"
		"  -p, --placement P  plain (as allocated, default) or coloured\n"
		"  -n, --pages N      buffer pages (default: 3/4 of the L2 cache)\n"
		"  -c, --cache SIZE   modelled cache size (default: L2 size from sysfs)\n"
		"  -a, --ways N       its associativity (default: from sysfs; 1 = direct-mapped)\n"
		"  -P, --passes N     passes over the buffer (default 2000)\n"
		"  -h, --help         show this help\n"
		"\n"
		"Needs root to read physical frame numbers; without them it only times.\n"
		"Output: 'checksum N' on stdout; 'result placement=... over_ways=... ns=...'\n"
		"on stderr.\n"
		"\n"
		"Examples:\n"
		"  page_conflict --placement plain\n"
		"  page_conflict --placement coloured --cache 256K --ways 1 --pages 64\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "placement", required_argument, NULL, 'p' }, { "pages", required_argument, NULL, 'n' },
		{ "cache", required_argument, NULL, 'c' },     { "ways", required_argument, NULL, 'a' },
		{ "passes", required_argument, NULL, 'P' },    { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *l2 = "/sys/devices/system/cpu/cpu0/cache/index2/";
	char path[256];
	int c, coloured = 0, passes = 2000;
	long pages = 0, ways = 0;
	uint64_t cache = 0;

	while ((c = getopt_long(argc, argv, "p:n:c:a:P:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!strcmp(optarg, "coloured"))
				coloured = 1;
			else if (strcmp(optarg, "plain"))
				ex_die("page_conflict", "--placement must be plain or coloured");
			break;
		case 'n': pages = ex_parse_long("page_conflict", "--pages", optarg, 1, 1 << 20); break;
		case 'c':
			if (!(cache = ex_parse_size(optarg)))
				ex_die("page_conflict", "bad --cache size");
			break;
		case 'a': ways = ex_parse_long("page_conflict", "--ways", optarg, 1, 64); break;
		case 'P': passes = (int)ex_parse_long("page_conflict", "--passes", optarg, 1, 1 << 24); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("page_conflict", "unexpected argument");
	if (!cache) {
		snprintf(path, sizeof(path), "%ssize", l2);
		cache = (uint64_t)sysfs_long(path);
		if (!cache)
			cache = 256 << 10;
	}
	if (!ways) {
		snprintf(path, sizeof(path), "%sways_of_associativity", l2);
		ways = sysfs_long(path);
		if (ways < 1)
			ways = 1;
	}
	long colours = (long)(cache / (uint64_t)ways / EX_PAGE);
	if (colours < 1)
		colours = 1;
	if (!pages)
		pages = (long)(cache / EX_PAGE) * 3 / 4;

	int fd = open("/proc/self/pagemap", O_RDONLY);
	size_t bytes = (size_t)pages * EX_PAGE;
	unsigned char *buf;
	uint64_t *pfn = calloc(pages, sizeof(*pfn));
	long *count = calloc(colours, sizeof(*count));
	int have_pfn = 0;

	if (!pfn || !count)
		ex_die("page_conflict", "out of memory");
	if (coloured) {
		/*
		 * Take a larger pool and keep an even share of each colour: four
		 * times the buffer, and at least 64 pages a colour, so that a
		 * buffer of one page a colour finds every colour among scattered
		 * physical pages (16 colours from 64 pages missed one half the time)
		 */
		long pool_n = pages * 4 > colours * 64 ? pages * 4 : colours * 64;
		long per = (pages + colours - 1) / colours, got = 0;
		unsigned char *pool = ex_map((size_t)pool_n * EX_PAGE);
		unsigned char *dst = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (dst == MAP_FAILED)
			ex_die("page_conflict", "mmap failed");
		for (long i = 0; i < pool_n; i++)
			pool[i * EX_PAGE] = 1;
		have_pfn = pfn_of(fd, pool) != 0;
		for (long i = 0; i < pool_n && got < pages; i++) {
			long col = have_pfn ? (long)(pfn_of(fd, pool + i * EX_PAGE) % colours) : 0;

			if (have_pfn && count[col] >= per)
				continue;
			count[col]++;
			if (mremap(pool + i * EX_PAGE, EX_PAGE, EX_PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
				   dst + got * EX_PAGE) == MAP_FAILED)
				ex_die("page_conflict", "mremap failed");
			got++;
		}
		if (got < pages)
			ex_die("page_conflict", "pool too small for an even colouring");
		munmap(pool, (size_t)pool_n * EX_PAGE); /* the pages not taken */
		buf = dst;
		memset(count, 0, colours * sizeof(*count));
	} else {
		buf = ex_map(bytes);
		for (long i = 0; i < pages; i++)
			buf[i * EX_PAGE] = 1;
	}
	for (long i = 0; i < pages; i++) {
		pfn[i] = pfn_of(fd, buf + i * EX_PAGE);
		have_pfn |= pfn[i] != 0;
		count[pfn[i] % colours]++;
	}

	/* p(k): colours holding k pages; sum = pages in colours holding 2 or more. */
	long hist[17] = { 0 }, sum = 0, over = 0, maxk = 0;
	for (long col = 0; col < colours; col++) {
		long k = count[col];

		hist[k > 16 ? 16 : k]++;
		if (k >= 2)
			sum += k;
		if (k > ways)
			over += k - ways;
		if (k > maxk)
			maxk = k;
	}
	if (have_pfn) {
		fprintf(stderr, "colours=%ld ways=%ld histogram:", colours, ways);
		for (int k = 1; k <= 16; k++)
			if (hist[k])
				fprintf(stderr, " p(%d%s)=%ld", k, k == 16 ? "+" : "", hist[k]);
		fputc('\n', stderr);
	}

	uint64_t v = read_pages(buf, pages, 1);
	uint64_t t0 = ex_now_ns();
	v += read_pages(buf, pages, passes);
	uint64_t ns = ex_now_ns() - t0;

	if (have_pfn)
		fprintf(stderr,
			"result placement=%s pages=%ld colours=%ld ways=%ld sum=%ld max_per_colour=%ld "
			"over_ways=%ld ns=%llu ns_per_line=%.3f\n",
			coloured ? "coloured" : "plain", pages, colours, ways, sum, maxk, over,
			(unsigned long long)ns, (double)ns / passes / (pages * (double)EX_PAGE / EX_CLS));
	else
		fprintf(stderr,
			"result placement=%s pages=%ld pfn=unavailable ns=%llu ns_per_line=%.3f\n",
			coloured ? "coloured" : "plain", pages, (unsigned long long)ns,
			(double)ns / passes / (pages * (double)EX_PAGE / EX_CLS));
	printf("checksum %llu\n", (unsigned long long)v);
	return 0;
}
