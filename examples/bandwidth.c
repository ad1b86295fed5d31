// SPDX-License-Identifier: GPL-2.0-only
/*
 * bandwidth: sequential read, write, copy and read/write mixes over a
 * buffer (section 3.5.1, Figs 3.24-3.29; the MLC-style read:write mixes and
 * the read-only vs write-only programs of the 2020s course project).
 * Every byte read is summed into the checksum, so the read loop cannot be
 * optimised away (the 640 GB/s artefact of that project). --stride reads
 * one word every N bytes (the strided-multiplication experiment).
 *
 * Labels: none (measurement workload)
 */
#include <getopt.h>
#include <immintrin.h>

#include "ex_common.h"

enum mode { M_READ, M_WRITE, M_COPY, M_MIX };
static const char *mode_names[] = { "read", "write", "copy", "mix" };

struct job {
	enum mode mode;
	uint64_t *a, *b;
	size_t words;
	size_t stride_words;
	int rd, wr; /* mix: rd lines read, then wr lines written */
	int nt;
	int passes;
	int cpu;
	uint64_t sum;
	uint64_t ns;
	pthread_barrier_t *start;
};

static __attribute__((noinline)) uint64_t do_read(const uint64_t *a, size_t words, size_t stride)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t i = 0;

	if (stride == 1) { /* four independent sums: the loads, not the adds, set the pace */
		for (; i + 4 <= words; i += 4) {
			s0 += a[i];
			s1 += a[i + 1];
			s2 += a[i + 2];
			s3 += a[i + 3];
		}
	}
	for (; i < words; i += stride)
		s0 += a[i];
	return s0 + s1 + s2 + s3;
}

static __attribute__((noinline)) void do_write(uint64_t *a, size_t words, uint64_t v, int nt)
{
	if (nt) {
		for (size_t i = 0; i < words; i++)
			_mm_stream_si64((long long *)&a[i], (long long)(v + i));
		_mm_sfence();
		return;
	}
	for (size_t i = 0; i < words; i++)
		a[i] = v + i;
}

static __attribute__((noinline)) uint64_t do_copy(uint64_t *dst, const uint64_t *src, size_t words)
{
	for (size_t i = 0; i < words; i++)
		dst[i] = src[i];
	return dst[words / 2];
}

static __attribute__((noinline)) uint64_t do_mix(uint64_t *a, size_t words, int rd, int wr,
						 uint64_t v)
{
	const size_t lw = EX_CLS / sizeof(uint64_t);
	uint64_t s = 0;
	size_t i = 0;

	while (i + (size_t)(rd + wr) * lw <= words) {
		for (int r = 0; r < rd; r++, i += lw)
			for (size_t k = 0; k < lw; k++)
				s += a[i + k];
		for (int w = 0; w < wr; w++, i += lw)
			for (size_t k = 0; k < lw; k++)
				a[i + k] = v + k;
	}
	return s;
}

static void *worker(void *p)
{
	struct job *j = p;
	uint64_t t0;

	ex_pin(j->cpu);
	/* Fault the buffers in before the clock starts. */
	do_write(j->a, j->words, 1, 0);
	if (j->b)
		do_write(j->b, j->words, 2, 0);
	pthread_barrier_wait(j->start);
	t0 = ex_now_ns();
	for (int r = 0; r < j->passes; r++) {
		switch (j->mode) {
		case M_READ: j->sum += do_read(j->a, j->words, j->stride_words); break;
		case M_WRITE: do_write(j->a, j->words, (uint64_t)r, j->nt); j->sum += j->a[r]; break;
		case M_COPY: j->sum += do_copy(j->b, j->a, j->words); break;
		case M_MIX: j->sum += do_mix(j->a, j->words, j->rd, j->wr, (uint64_t)r); break;
		}
	}
	j->ns = ex_now_ns() - t0;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: bandwidth [OPTIONS]\n"
		"Sequential memory bandwidth (section 3.5.1; read/write mixes).\n"
		"\n"
		"  -m, --mode M      read (default), write, copy or mix\n"
		"  -x, --ratio R:W   mix: lines read per lines written (default 1:1)\n"
		"  -n, --nt          write: non-temporal stores (movnti)\n"
		"  -w, --size SIZE   buffer per thread (default 256M)\n"
		"  -S, --stride N    read: one 8-byte word every N bytes (default 8)\n"
		"  -t, --threads N   threads, one per CPU (default 1)\n"
		"  -p, --passes N    passes over the buffer (default 4)\n"
		"  -h, --help        show this help\n"
		"\n"
		"Output: 'checksum N' on stdout; 'result mode=... gb_per_s=...' on stderr\n"
		"(GB = 10^9 bytes; for --stride, bytes of whole lines touched).\n"
		"\n"
		"Examples:\n"
		"  bandwidth --mode read --size 512M\n"
		"  bandwidth --mode mix --ratio 3:1 --threads 2\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, 'm' },    { "ratio", required_argument, NULL, 'x' },
		{ "nt", no_argument, NULL, 'n' },	     { "size", required_argument, NULL, 'w' },
		{ "stride", required_argument, NULL, 'S' },  { "threads", required_argument, NULL, 't' },
		{ "passes", required_argument, NULL, 'p' },  { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct job jobs[64];
	pthread_t tid[64];
	pthread_barrier_t start;
	enum mode mode = M_READ;
	int c, nt = 0, nthreads = 1, passes = 4, rd = 1, wr = 1;
	uint64_t size = 256u << 20, stride = 8, sum = 0, slowest = 0;

	while ((c = getopt_long(argc, argv, "m:x:nw:S:t:p:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (mode = 0; mode < 4 && strcmp(optarg, mode_names[mode]); mode++)
				;
			if (mode == 4)
				ex_die("bandwidth", "--mode must be read, write, copy or mix");
			break;
		case 'x':
			if (sscanf(optarg, "%d:%d", &rd, &wr) != 2 || rd < 0 || wr < 0 || rd + wr == 0 ||
			    rd > 64 || wr > 64)
				ex_die("bandwidth", "--ratio wants R:W, e.g. 3:1");
			break;
		case 'n': nt = 1; break;
		case 'w':
			if ((size = ex_parse_size(optarg)) < 4096)
				ex_die("bandwidth", "bad --size (4K or more)");
			break;
		case 'S': stride = (uint64_t)ex_parse_long("bandwidth", "--stride", optarg, 8, 1 << 20); break;
		case 't': nthreads = (int)ex_parse_long("bandwidth", "--threads", optarg, 1, 64); break;
		case 'p': passes = (int)ex_parse_long("bandwidth", "--passes", optarg, 1, 1 << 20); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		ex_die("bandwidth", "unexpected argument");
	if (stride % 8)
		ex_die("bandwidth", "--stride must be a multiple of 8");

	pthread_barrier_init(&start, NULL, nthreads);
	for (int t = 0; t < nthreads; t++) {
		jobs[t] = (struct job){ .mode = mode, .words = size / 8, .stride_words = stride / 8,
					.rd = rd, .wr = wr, .nt = nt, .passes = passes, .cpu = t,
					.start = &start };
		jobs[t].a = ex_map(size);
		if (mode == M_COPY)
			jobs[t].b = ex_map(size);
		if (t && pthread_create(&tid[t], NULL, worker, &jobs[t]))
			ex_die("bandwidth", "cannot create thread");
	}
	worker(&jobs[0]);
	for (int t = 1; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < nthreads; t++) {
		sum += jobs[t].sum;
		if (jobs[t].ns > slowest)
			slowest = jobs[t].ns;
	}
	/* Bytes moved per pass: copy counts read + write; strided reads count whole lines. */
	double bytes = (double)size * (mode == M_COPY ? 2 : 1);
	if (mode == M_READ && stride > EX_CLS)
		bytes = (double)(size / stride) * EX_CLS;
	double gbs = bytes * passes * nthreads / (double)slowest;
	double accesses = (double)(size / (mode == M_READ ? stride : 8)) * passes;
	fprintf(stderr,
		"result mode=%s ratio=%d:%d nt=%d size=%llu stride=%llu threads=%d ns=%llu gb_per_s=%.3f "
		"ns_per_access=%.3f\n",
		mode_names[mode], rd, wr, nt, (unsigned long long)size, (unsigned long long)stride,
		nthreads, (unsigned long long)slowest, gbs, (double)slowest / accesses);
	printf("checksum %llu\n", (unsigned long long)sum);
	return 0;
}
