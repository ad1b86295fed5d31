// SPDX-License-Identifier: GPL-2.0-only
/*
 * page_faults: a loop that needs a fresh scratch buffer per batch
 * (section 7.5 and the page-fault workloads of 7.1).
 *	--buffer fresh   mmap, fill, munmap per batch: every page is a new
 *	                 minor fault each time (first touch in the hot loop)
 *	--buffer reuse   one buffer, faulted in once and reused by every batch
 *	--buffer populate  like fresh, but MAP_POPULATE takes the faults in mmap
 *
 * Labels: page_faults
 */
#include <getopt.h>
#include <sys/resource.h>

#include "ex_common.h"

static __attribute__((noinline)) uint64_t fill_and_sum(unsigned char *buf, size_t len, int batch)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < len; i += 64)
		buf[i] = (unsigned char)(i / 64 + batch);
	for (size_t i = 0; i < len; i += 64)
		sum += buf[i];
	return sum;
}

static long minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: page_faults [OPTIONS]\n"
		"Fills a scratch buffer per batch, fresh or reused (section 7.5).\n"
		"\n"
		"  -b, --buffer B    fresh (mmap per batch, default), reuse or populate\n"
		"  -s, --size SIZE   buffer size (default 8M)\n"
		"  -n, --batches N   batches (default 200)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result buffer=... minor_faults=... ns=...'\n"
		"on stderr.\n"
		"\n"
		"Examples:\n"
		"  page_faults --buffer fresh\n"
		"  page_faults --buffer reuse --batches 50\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "buffer", required_argument, NULL, 'b' }, { "size", required_argument, NULL, 's' },
		{ "batches", required_argument, NULL, 'n' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *modes[] = { "fresh", "reuse", "populate" };
	int c, mode = 0, batches = 200;
	uint64_t size = 8u << 20, sum = 0;
	unsigned char *buf = NULL;

	while ((c = getopt_long(argc, argv, "b:s:n:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			for (mode = 0; mode < 3 && strcmp(optarg, modes[mode]); mode++)
				;
			if (mode == 3)
				ex_die("page_faults", "--buffer must be fresh, reuse or populate");
			break;
		case 's':
			if (!(size = ex_parse_size(optarg)))
				ex_die("page_faults", "bad --size");
			break;
		case 'n': batches = (int)ex_parse_long("page_faults", "--batches", optarg, 1, 1 << 24); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("page_faults", "unexpected argument");

	long f0 = minor_faults();
	uint64_t t0 = ex_now_ns();
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (mode == 2 ? MAP_POPULATE : 0);

	for (int b = 0; b < batches; b++) {
		if (!buf) {
			buf = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
			if (buf == MAP_FAILED)
				ex_die("page_faults", "mmap failed");
		}
		sum += fill_and_sum(buf, size, b);
		if (mode != 1) {
			munmap(buf, size);
			buf = NULL;
		}
	}
	uint64_t ns = ex_now_ns() - t0;
	long faults = minor_faults() - f0;

	fprintf(stderr,
		"result buffer=%s size=%llu batches=%d minor_faults=%ld ns=%llu ns_per_batch=%.0f\n",
		modes[mode], (unsigned long long)size, batches, faults, (unsigned long long)ns,
		(double)ns / batches);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
