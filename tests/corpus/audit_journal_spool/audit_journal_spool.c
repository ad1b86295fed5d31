/*
 * audit_journal_spool: the record path of a security audit daemon. Every
 * audited syscall event (process, credentials, syscall number and
 * arguments, exit code, the path it touched) becomes one fixed 256-byte
 * binary journal record, sealed into a hash chain (each record carries
 * the chain value of its predecessor and its own), and is appended to a
 * 256 MiB in-memory spool. The spool is cut into 4 MiB segments that a
 * disk writer takes over once full; the event path itself never reads a
 * record back. The records are built in registers and copied to the spool
 * as sixteen 16-byte chunks. BAD copies them with ordinary stores, so every
 * spool line is first read for ownership and then passes through the
 * caches on its way out; GOOD copies them with non-temporal stores
 * (_mm_stream_si128, one _mm_sfence per batch).
 */
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPOOL_BYTES	(256ul << 20)
#define SEG_BYTES	(4ul << 20)
#define NSEG		(SPOOL_BYTES / SEG_BYTES)
#define REC_BYTES	256
#define REC_CHUNKS	(REC_BYTES / 16)
#define BATCH		256
#define NPROC		64
#define NPATH		32

enum { EV_SYSCALL = 1300, EV_PATH = 1302, EV_EXECVE = 1309 };

struct proc_info {
	char comm[16];
	uint32_t pid, ppid, uid, gid, euid, auid;
	uint64_t exe_hash;
	char cwd[64];
};

struct path_info {
	char name[64];
	uint64_t inode;
	uint32_t mode, dev;
};

struct seg_desc {
	uint64_t first_seq, last_seq;
	uint64_t chain_in, chain_out;
};

struct spool {
	char *base;
	size_t off;		/* next byte to write, wraps at SPOOL_BYTES */
	uint64_t seq;
	uint64_t chain;
	struct seg_desc seg[NSEG];
	uint64_t handed_over;	/* segments passed to the disk writer */
};

struct evsrc {
	uint64_t rng;
	uint64_t clock_ns;
	struct proc_info procs[NPROC];
	struct path_info paths[NPATH];
};

static const char *const comm_names[8] = {
	"sshd", "bash", "cron", "nginx", "postgres", "systemd", "python3", "rsync",
};
static const char *const path_names[8] = {
	"/etc/shadow", "/var/log/auth.log", "/usr/bin/sudo", "/home/deploy/.ssh/authorized_keys",
	"/var/lib/postgresql/14/main/pg_wal", "/etc/nginx/nginx.conf", "/tmp/.X11-unix/X0",
	"/srv/backup/daily/manifest.json",
};

static const char *const cwd_names[6] = {
	"/", "/root", "/home/deploy", "/var/lib/postgresql", "/srv/www/shop/current", "/tmp",
};

static inline uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void evsrc_init(struct evsrc *e)
{
	e->rng = 0x9e3779b97f4a7c15ull;
	e->clock_ns = 1700000000ull * 1000000000ull;
	for (int i = 0; i < NPROC; i++) {
		struct proc_info *p = &e->procs[i];

		memset(p, 0, sizeof(*p));
		snprintf(p->comm, sizeof(p->comm), "%s", comm_names[i & 7]);
		p->pid = 1000 + 37 * i;
		p->ppid = i ? 1000 + 37 * (i / 2) : 1;
		p->uid = (i & 3) ? 1000 + (i & 7) : 0;
		p->gid = p->uid;
		p->euid = (i % 5) ? p->uid : 0;
		p->auid = 1000 + (i & 7);
		p->exe_hash = mix64(0x5bd1e995ull * (uint64_t)(i & 7) + 1);
		snprintf(p->cwd, sizeof(p->cwd), "%s", cwd_names[i % 6]);
	}
	for (int i = 0; i < NPATH; i++) {
		struct path_info *p = &e->paths[i];

		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", path_names[i & 7]);
		p->inode = 131072 + 977 * (uint64_t)i;
		p->mode = (i & 1) ? 0100644 : 0100600;
		p->dev = 0x803 + (i >> 3);
	}
}

/*
 * Build and append n event records. A record, in 16-byte chunks:
 *  0 seq, timestamp           1 type, flags, pid, ppid, uid
 *  2 gid, euid, auid, syscall 3-4 a0..a3
 *  5 comm                     6 exe hash, inode
 *  7-10 path                  11-14 working directory
 *  15 previous chain value, own chain value
 */
static __attribute__((noinline)) void spool_append_batch(struct spool *s, struct evsrc *e, int n)
{
	uint64_t rng = e->rng, clock_ns = e->clock_ns;
	uint64_t seq = s->seq, chain = s->chain;
	size_t off = s->off;

	for (int k = 0; k < n; k++) {
		uint64_t r = xorshift(&rng);
		const struct proc_info *p = &e->procs[r & (NPROC - 1)];
		const struct path_info *f = &e->paths[(r >> 6) & (NPATH - 1)];
		uint32_t sysno = (uint32_t)(r >> 11) & 0x1ff;
		uint32_t type = EV_SYSCALL + 2 * (uint32_t)(r >> 20 & 1);
		uint32_t denied = (r >> 24 & 7) == 0;
		int32_t exit_code = (int32_t)(r >> 27 & 0xfff) - 13 * (int32_t)denied;
		uint64_t a0 = r >> 16, a1 = r * 0x2545f4914f6cdd1dull, a2 = r >> 40, a3 = r & 0xffff;
		uint64_t prev = chain;
		__m128i c[REC_CHUNKS];

		clock_ns += 1 + (r >> 58);
		chain = mix64(prev ^ seq ^ r ^ p->exe_hash ^ f->inode);
		c[0] = _mm_set_epi64x((long long)clock_ns, (long long)seq);
		c[1] = _mm_set_epi32((int)p->uid, (int)p->ppid, (int)p->pid, (int)(type | denied << 16));
		c[2] = _mm_set_epi32((int)sysno, (int)p->auid, (int)p->euid, (int)p->gid);
		c[3] = _mm_set_epi64x((long long)a1, (long long)a0);
		c[4] = _mm_set_epi64x((long long)a3, (long long)(a2 ^ (uint64_t)(uint32_t)exit_code << 32));
		c[5] = _mm_loadu_si128((const __m128i *)p->comm);
		c[6] = _mm_set_epi64x((long long)f->inode, (long long)p->exe_hash);
		for (int i = 0; i < 4; i++) {
			c[7 + i] = _mm_loadu_si128((const __m128i *)f->name + i);
			c[11 + i] = _mm_loadu_si128((const __m128i *)p->cwd + i);
		}
		c[15] = _mm_set_epi64x((long long)chain, (long long)prev);
		seq++;

		__m128i *dst = (__m128i *)(s->base + off);

		_Pragma("GCC unroll 16")
		for (int i = 0; i < REC_CHUNKS; i++) {
#ifdef BAD
			_mm_store_si128(dst + i, c[i]);
#else
			_mm_stream_si128(dst + i, c[i]);
#endif
		}
		off += REC_BYTES;
		if (off % SEG_BYTES == 0) {
			/* segment full: hand it to the disk writer, open the next */
			size_t seg = off / SEG_BYTES - 1;

			s->seg[seg].last_seq = seq - 1;
			s->seg[seg].chain_out = chain;
			s->handed_over++;
			if (off == SPOOL_BYTES)
				off = 0;
			s->seg[off / SEG_BYTES].first_seq = seq;
			s->seg[off / SEG_BYTES].chain_in = chain;
		}
	}
#ifndef BAD
	_mm_sfence();
#endif
	e->rng = rng, e->clock_ns = clock_ns;
	s->seq = seq, s->chain = chain, s->off = off;
}

int main(int argc, char **argv)
{
	long nbatch = argc > 1 ? atol(argv[1]) : 300000;
	struct spool *s = calloc(1, sizeof(*s));
	struct evsrc *e = calloc(1, sizeof(*e));

	if (!s || !e)
		return 1;
	s->base = aligned_alloc(4096, SPOOL_BYTES);
	if (!s->base)
		return 1;
	memset(s->base, 0, SPOOL_BYTES);	/* fault the spool in once */
	evsrc_init(e);
	s->chain = 0x6a09e667f3bcc908ull;

	for (long b = 0; b < nbatch; b++)
		spool_append_batch(s, e, BATCH);

	/* spot-check the newest record against the chain */
	size_t last = (s->off ? s->off : SPOOL_BYTES) - REC_BYTES;
	uint64_t tail_chain, tail_seq;

	memcpy(&tail_seq, s->base + last, 8);
	memcpy(&tail_chain, s->base + last + REC_BYTES - 8, 8);
	printf("checksum %llx seq %llu tail %llu ok %d segments %llu\n",
	       (unsigned long long)s->chain, (unsigned long long)s->seq,
	       (unsigned long long)tail_seq, tail_chain == s->chain,
	       (unsigned long long)s->handed_over);
	free(s->base);
	free(s);
	free(e);
	return 0;
}
