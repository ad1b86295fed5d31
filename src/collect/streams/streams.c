// SPDX-License-Identifier: GPL-2.0-only
/*
 * Exact address streams at the hot instructions, without a PMU.
 *
 * Data-address sampling names the hot memory instructions and decodes
 * their operands.  For the most sampled ones (STREAM_MAX_ATTACH) this
 * collector puts a BPF uprobe on the instruction itself (its offset in the
 * mapped file), the operand in the 'probes' map under the instruction's
 * address, and lets the program record the exact address of every
 * execution for a burst of a few milliseconds; then it detaches them and
 * waits.  A hit costs the target a trap and, for a load or a store, a
 * single step out of line: 9-15 us on our guests (1-2 us where the kernel
 * emulates the instruction).
 *
 * How the probes come off decides what a burst costs beyond its hits.
 * Attached as a uprobe_multi link (Linux 6.6 and later), closing the link
 * takes the breakpoints out before the kernel waits for its grace period:
 * the target traps only while the burst runs.  Attached as perf-event
 * uprobes (older kernels), the breakpoints stay in the code through that
 * wait, 100-130 ms on our guests: a hot loop traps on every pass of it (the
 * target's system time grew by 32 ms a burst, 25 bursts of 2 ms on a loop
 * that does nothing else).  So a burst is charged:
 *   - uprobe_multi: STREAM_LINK_FIXED_NS a link plus its hits at
 *     STREAM_HIT_NS.  An attach and detach of a link on an instruction
 *     the target never ran cost the target 42 us of CPU (95 % interval
 *     19-65 us; 8 runs of 2000 cycles against runs that made no BPF calls,
 *     the target's thread CPU time read every 0.8 ms around each cycle):
 *     the kernel rewrites the page twice, shoots down its TLB entries and,
 *     on the page of the target's loop, the target faults the page back
 *     once.  The same page as the hot loop or another made no difference;
 *     the charge takes the interval's top, rounded up;
 *   - perf-event uprobes: its whole span, attach to detach, as if the
 *     target had stood still for it (110-180 ms here).
 * One starts only when the budget saved (--stream-budget, 1 % of the time
 * the target has run by default) covers the next burst's charge with a
 * burst of STREAM_MIN_BURST_NS (the first: STREAM_FIRST_BURST_NS): with
 * uprobe_multi the first after about 0.55 s and then about one every half
 * second; with perf-event uprobes after about 15 s.
 * The BPF object is loaded when the first burst is paid for.
 *
 * The uprobes are per process (the target's pid): children the target
 * forks are not probed.  Code the kernel will not probe and operands not
 * computable from pt_regs (fs/gs segment bases, VSIB gathers) are skipped
 * with their reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "collect/streams/streams.h"
#include "collect/streams/analyze.h"
#include "base/log.h"
#include "base/util.h"
#include "machine/machine_profile.h"
#include "machine/sysinfo.h"
#include "model/addr.h"
#include "model/streams.h"
#include "symbols/decode.h"
#include "symbols/procmaps.h"
#include "streams.skel.h"

#define STREAM_MAX_ATTACH 4		/* instructions probed in one burst */
#define STREAM_MAX_SAMPLED 8		/* sampled instructions followed at a time */
#define STREAM_MAX_IPS STREAM_MAX_PROBES	/* ... those retired, and loop stores */
#define STREAM_HIT_NS 15000.0		/* cost of one hit assumed: a single-stepped load */
#define STREAM_SPAN_NS 150000000ULL	/* a perf-event burst's span, before one was timed */
#define STREAM_LINK_FIXED_NS 100000.0	/* a uprobe_multi link beyond its hits (see above) */
/* a burst's fixed part, planned before it: as many links as it may attach */
#define STREAM_MULTI_FIXED_NS (STREAM_MAX_ATTACH * STREAM_LINK_FIXED_NS)
/* BPF_TRACE_UPROBE_MULTI (Linux 6.6): the uapi headers of older systems lack it */
#define STREAM_UPROBE_MULTI 48
/*
 * 3 ms is about 330 hits of a probe hit all the time (shared among the
 * probes of one loop), enough for a stride, a set histogram over as many
 * lines and a write-only test (20 lines) over an instruction's bursts,
 * though seldom for the cache model to decide first touches: a burst long
 * enough for a walk to pass the L1d's lines (512 here) at 9-13 us a hit
 * would come 1.7 s apart at the default budget, and runs of a few seconds
 * would get one.  A burst ends early once each probe has twice that many
 * records.  The first comes after about 0.55 s of a run.
 */
#define STREAM_MIN_BURST_NS 3000000ULL
#define STREAM_FIRST_BURST_NS 3000000ULL
/*
 * A thread that hits all the time pays a hit every 9 us of the burst (5500
 * hits in 25 bursts of 2 ms on a loop that did nothing else); charged at
 * STREAM_HIT_NS, a burst may last this share of what the budget saved.
 */
#define STREAM_HIT_WALL_NS 9000.0
#define STREAM_MAX_BURST_NS 20000000ULL
#define STREAM_MIN_SAMPLES 8		/* samples before an instruction is probed */
#define STREAM_LOOP_STORES 4		/* stores probed in the hottest loop, one a burst */
#define STREAM_MAX_RECS (1u << 20)	/* accesses kept for the analysis */
#define STREAM_CAP 8192			/* records per probe and burst */

struct sprobe {
	struct stream_ip out;
	struct stream_probe p;
	char path[256];
	uint64_t off;
	struct bpf_link *link;
	int link_fd;		/* the uprobe_multi link, -1: none */
	bool region_looked;	/* out.region_bytes looked for */
	bool retired;		/* outranked by a later phase's instruction: no more bursts */
};

struct streams {
	pid_t pid;
	/*
	 * The bursts run in a thread of their own: attaching a uprobe takes
	 * 8-30 ms here and detaching one about 100 ms (the kernel waits for
	 * a grace period), which the 20 ms poll of the other collectors must
	 * not wait for.  poll hands it the hot instructions under lock.
	 */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	struct hot_insn hot[STREAM_MAX_SAMPLED * 2];
	int nr_hot;
	uint64_t hot_ns;
	volatile bool stop;
	struct streams_bpf *skel;
	struct ring_buffer *rb;
	bool load_failed;
	bool multi;		/* probes attached as uprobe_multi links */
	char load_why[160];
	struct run_shared *shared;
	uint64_t start_ns;
	double cost_ns;
	double budget;		/* share of the run the bursts may cost */
	uint64_t span_ns;	/* the last burst's span, attach to detach */
	double hits_cost_ns;	/* hits * STREAM_HIT_NS */
	uint64_t probed_ns;
	int bursts;
	struct sprobe ips[STREAM_MAX_IPS];
	int nr_ips;
	uint64_t loop_of;	/* the hot instruction whose loop's stores were looked for */
	struct stream_access *recs;
	size_t nr_recs, cap_recs;
	uint64_t dropped_recs;	/* past STREAM_MAX_RECS */
	struct stream_geom geom;
};

static void geom_fill(struct stream_geom *g)
{
	struct cache_level c[8];
	int n = sysinfo__caches(c, 8);
	const struct cache_level *l1 = n > 0 ? sysinfo__cache(c, n, 1) : NULL;
	const struct cache_level *l2 = n > 0 ? sysinfo__cache(c, n, 2) : NULL;
	struct machine_profile mp;
	long page = sysconf(_SC_PAGESIZE);

	memset(g, 0, sizeof(*g));
	g->line = sysinfo__cacheline();
	if (g->line <= 0)
		g->line = 64;
	g->page = page > 0 ? (int)page : 4096;
	if (l1 && l1->ways > 0 && l1->sets > 0) {
		g->l1_sets = l1->sets;
		g->l1_ways = l1->ways;
	}
	if (l2 && l2->ways > 0 && l2->sets > 0) {
		g->l2_sets = l2->sets;
		g->l2_ways = l2->ways;
	}
	for (int i = 0; i < n; i++)
		if (c[i].size > g->llc_bytes && strcmp(c[i].type, "Instruction"))
			g->llc_bytes = c[i].size;
	machine_profile__init(&mp);
	if (!machine_profile__load(&mp) && mp.dtlb_entries > 0) {
		g->tlb_entries = mp.dtlb_entries;
		snprintf(g->tlb_source, sizeof(g->tlb_source), "machine profile (calibrate)");
	}
}

static int on_rec(void *ctx, void *data, size_t size)
{
	struct streams *st = ctx;
	const struct stream_rec *r = data;
	struct stream_access *a;

	if (size < sizeof(*r) || r->slot >= st->nr_ips)
		return 0;
	if (st->nr_recs >= STREAM_MAX_RECS) {
		st->dropped_recs++;
		return 0;
	}
	if (st->nr_recs == st->cap_recs) {
		st->cap_recs = st->cap_recs ? st->cap_recs * 2 : 65536;
		st->recs = xrealloc(st->recs, st->cap_recs * sizeof(*st->recs));
	}
	a = &st->recs[st->nr_recs++];
	a->addr = r->addr;
	a->tid = r->tid;
	a->ipi = r->slot;
	a->burst = (uint16_t)st->bursts;
	a->size = r->size;
	a->write = r->flags & STREAM_F_WRITE;
	return 0;
}

/* A uprobe_multi link on NR offsets of path in the target; the fd or -errno. */
static int multi_attach(struct streams *st, const char *path, const uint64_t *offs, uint32_t nr)
{
	/* union bpf_attr's link_create, laid out as in Linux 6.6's uapi */
	struct {
		uint32_t prog_fd, target_fd, attach_type, flags;
		uint64_t path, offsets, ref_ctr_offsets, cookies;
		uint32_t cnt, uflags, pid, pad;
		uint8_t rest[64];
	} attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = (uint32_t)bpf_program__fd(st->skel->progs.stream_hit);
	attr.attach_type = STREAM_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offs;
	attr.cnt = nr;
	attr.pid = (uint32_t)st->pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : (int)fd;
}

/*
 * Whether the kernel has uprobe_multi links: on "/" a kernel that has them
 * gets as far as the path (not a regular file: EBADF); one that has not
 * refuses the attach type (EINVAL).
 */
static bool multi_supported(struct streams *st)
{
	uint64_t off = 0;
	int fd = multi_attach(st, "/", &off, 1);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	return fd == -EBADF;
}

static int load(struct streams *st)
{
	int err;

	if (st->skel)
		return 0;
	if (st->load_failed)
		return -1;
	st->multi = true;
again:
	st->skel = streams_bpf__open();
	if (!st->skel) {
		snprintf(st->load_why, sizeof(st->load_why), "cannot open the BPF object: %s",
			 strerror(errno));
		goto fail;
	}
	st->skel->rodata->target_tgid = (__u32)st->pid;
	st->skel->rodata->cap = STREAM_CAP;
	if (st->multi)
		bpf_program__set_expected_attach_type(st->skel->progs.stream_hit,
						      STREAM_UPROBE_MULTI);
	err = streams_bpf__load(st->skel);
	if (!err && st->multi && !multi_supported(st)) {
		/* a program meant for uprobe_multi is refused by perf-event uprobes */
		streams_bpf__destroy(st->skel);
		st->skel = NULL;
		st->multi = false;
		goto again;
	}
	if (err) {
		snprintf(st->load_why, sizeof(st->load_why), "cannot load the BPF program: %s",
			 strerror(-err));
		goto fail;
	}
	st->rb = ring_buffer__new(bpf_map__fd(st->skel->maps.stream_ring), on_rec, st, NULL);
	if (!st->rb) {
		snprintf(st->load_why, sizeof(st->load_why), "cannot map the ring: %s",
			 strerror(errno));
		goto fail;
	}
	return 0;
fail:
	streams_bpf__destroy(st->skel);
	st->skel = NULL;
	st->load_failed = true;
	return -1;
}

/* Where the instruction at insn lives: its file and offset; false with out->skip set. */
static bool locate(struct streams *st, struct sprobe *sp, const struct procmaps *m)
{
	const struct procmap *pm = procmaps__find(m, sp->out.insn);
	uint8_t code[16];
	struct iovec local = { code, sizeof(code) };
	struct iovec remote = { (void *)(uintptr_t)sp->out.insn, sizeof(code) };
	ssize_t got;

	if (!pm || !pm->inode || pm->path[0] != '/' || strstr(pm->path, " (deleted)")) {
		sp->out.skip = STREAM_SKIP_NO_FILE;
		snprintf(sp->out.why, sizeof(sp->out.why), "not in a file mapping");
		return false;
	}
	snprintf(sp->path, sizeof(sp->path), "%s", pm->path);
	sp->off = sp->out.insn - pm->start + pm->offset;
	got = process_vm_readv(st->pid, &local, 1, &remote, 1, 0);
	if (got <= 0) {
		sp->out.skip = STREAM_SKIP_OPERAND;
		snprintf(sp->out.why, sizeof(sp->out.why), "code unreadable: %s", strerror(errno));
		return false;
	}
	sp->out.skip = streams__probe_from_code(code, (size_t)got, sp->out.insn, &sp->p,
						 sp->out.text, sizeof(sp->out.text));
	if (sp->out.skip == STREAM_SKIP_SEGMENT)
		snprintf(sp->out.why, sizeof(sp->out.why),
			 "fs/gs relative: the segment base is not in pt_regs");
	else if (sp->out.skip == STREAM_SKIP_EMULATED)
		snprintf(sp->out.why, sizeof(sp->out.why),
			 "the kernel's uprobe would take it for a branch and not run it");
	else if (sp->out.skip != STREAM_OK)
		snprintf(sp->out.why, sizeof(sp->out.why),
			 "operand not computable from pt_regs (VSIB, implicit or undecodable)");
	sp->out.read = sp->p.flags & STREAM_F_READ;
	sp->out.write = sp->p.flags & STREAM_F_WRITE;
	sp->out.size = sp->p.size;
	return sp->out.skip == STREAM_OK;
}

/*
 * A probe for the instruction at INSN; NULL when the table is full or it is
 * there.  SURE: its start was found by a decode from its function's start;
 * a breakpoint off an instruction's start would break the target, so one
 * placed by a vote is listed, not probed.
 */
static struct sprobe *add_probe(struct streams *st, uint64_t insn, uint64_t samples,
				const struct procmaps *m, bool sure)
{
	struct sprobe *sp;

	for (int k = 0; k < st->nr_ips; k++)
		if (st->ips[k].out.insn == insn)
			return NULL;
	if (st->nr_ips == STREAM_MAX_IPS)
		return NULL;
	sp = &st->ips[st->nr_ips];
	memset(sp, 0, sizeof(*sp));
	sp->link_fd = -1;
	sp->out.insn = insn;
	sp->out.pid = st->pid;
	sp->out.addr_samples = samples;
	sp->p.slot = (uint8_t)st->nr_ips;
	st->nr_ips++;
	if (!sure) {
		sp->out.skip = STREAM_SKIP_OPERAND;
		snprintf(sp->out.why, sizeof(sp->out.why),
			 "start not sure: no function start to decode from (no symbols)");
	} else if (locate(st, sp, m)) {
		uint64_t key = sp->out.insn;

		sp->p.slot = (uint8_t)(sp - st->ips);
		if (bpf_map__update_elem(st->skel->maps.probes, &key, sizeof(key), &sp->p,
					 sizeof(sp->p), BPF_ANY)) {
			sp->out.skip = STREAM_SKIP_ATTACH;
			snprintf(sp->out.why, sizeof(sp->out.why), "probe map full");
		}
	}
	return sp;
}

/*
 * The stores of the loop around the hottest instruction: stores retire into
 * the store buffer and are seldom the instruction a sample blames, yet
 * whether a loop's stores stream into lines nobody reads back is what
 * non-temporal stores are about.  Looked for once per hottest instruction.
 */
static void add_loop_stores(struct streams *st, const struct hot_insn *hot, const struct procmaps *m)
{
	const struct procmap *pm = procmaps__find(m, hot->op.insn);
	uint64_t lo, hi, from, to, stores[STREAM_LOOP_STORES];
	uint8_t code[2 * AS_LOOP_SCAN];
	struct iovec local, remote;
	ssize_t got;
	int n;

	if (!pm || st->loop_of == hot->op.insn)
		return;
	st->loop_of = hot->op.insn;
	from = hot->op.insn - AS_LOOP_SCAN > pm->start && hot->op.insn >= AS_LOOP_SCAN
	       ? hot->op.insn - AS_LOOP_SCAN : pm->start;
	to = hot->op.insn + AS_LOOP_SCAN < pm->end ? hot->op.insn + AS_LOOP_SCAN : pm->end;
	local.iov_base = code;
	local.iov_len = (size_t)(to - from);
	remote.iov_base = (void *)(uintptr_t)from;
	remote.iov_len = local.iov_len;
	got = process_vm_readv(st->pid, &local, 1, &remote, 1, 0);
	if (got <= 0)
		return;
	n = addrsample__loop_stores(code, (size_t)got, from, hot->op.insn, &lo, &hi, stores,
				    STREAM_LOOP_STORES);
	for (int i = 0; i < n; i++) {
		struct sprobe *sp = add_probe(st, stores[i], 0, m, true);

		if (sp)
			sp->out.loop_store = true;
		/* one probed already for its samples: the loop is still its loop */
		for (int k = 0; !sp && k < st->nr_ips; k++)
			if (st->ips[k].out.insn == stores[i])
				sp = &st->ips[k];
		if (sp) {
			struct mem_operand op;

			sp->out.loop_lo = lo;
			sp->out.loop_hi = hi;
			if (!addrsample__decode(code + (stores[i] - from),
						(size_t)got - (size_t)(stores[i] - from), stores[i], &op))
				sp->out.fill = addrsample__loop_fill(code, (size_t)got, from, &op);
		}
	}
}

/* New hot instructions of the target since the last burst. */
static void refresh(struct streams *st)
{
	struct hot_insn hot[STREAM_MAX_SAMPLED * 2];
	struct procmaps *m = NULL;
	int n;

	pthread_mutex_lock(&st->lock);
	n = st->nr_hot;
	memcpy(hot, st->hot, (size_t)n * sizeof(*hot));
	pthread_mutex_unlock(&st->lock);
	for (int i = 0; i < n; i++) {
		struct sprobe *sp = NULL, *weakest = NULL;
		int sampled = 0;

		if (hot[i].pid != st->pid)
			continue;
		for (int k = 0; k < st->nr_ips; k++)
			if (st->ips[k].out.insn == hot[i].op.insn)
				sp = &st->ips[k];
		if (sp) {
			sp->out.addr_samples = hot[i].samples;
			continue;
		}
		for (int k = 0; k < st->nr_ips; k++) {
			struct sprobe *o = &st->ips[k];

			/* one never probed (kernel_emulates, segment, ...) takes no place */
			if (o->out.loop_store || o->retired ||
			    (o->out.skip != STREAM_OK && o->out.skip != STREAM_SKIP_NO_HITS))
				continue;
			sampled++;
			if (!weakest || o->out.addr_samples < weakest->out.addr_samples)
				weakest = o;
		}
		if (hot[i].samples < STREAM_MIN_SAMPLES || st->nr_ips == STREAM_MAX_IPS)
			continue;
		/*
		 * All places taken: a program's later phase (lookups after the
		 * loading, a merge after the scan) takes the place of the
		 * followed instruction it outsamples twice over, which keeps what
		 * its bursts recorded.  Twice, so that two of about the same heat
		 * do not take turns.
		 */
		if (sampled >= STREAM_MAX_SAMPLED) {
			if (!weakest || hot[i].samples < 2 * weakest->out.addr_samples)
				continue;
			weakest->retired = true;
			pr_debug("streams: %#" PRIx64 " (%" PRIu64 " samples) retired for %#" PRIx64
				 " (%" PRIu64 ")\n", weakest->out.insn, weakest->out.addr_samples,
				 hot[i].op.insn, hot[i].samples);
		}
		if (!m && !(m = procmaps__capture(st->pid, false)))
			break;
		add_probe(st, hot[i].op.insn, hot[i].samples, m, hot[i].op.swept);
	}
	/* the hottest instruction's loop: its stores, probed though not sampled */
	for (int i = 0; i < n; i++) {
		if (hot[i].pid != st->pid || hot[i].samples < STREAM_MIN_SAMPLES)
			continue;
		if (st->loop_of != hot[i].op.insn && hot[i].op.swept &&
		    (m || (m = procmaps__capture(st->pid, false))))
			add_loop_stores(st, &hot[i], m);
		break;
	}
	procmaps__free(m);
}

static uint64_t stat(struct streams *st, enum stream_stat i)
{
	__u32 k = i;
	__u64 v = 0;

	if (st->skel)
		bpf_map__lookup_elem(st->skel->maps.stream_stats, &k, sizeof(k), &v, sizeof(v), 0);
	return v;
}

/* The size of the mapping each instruction's first access in recs[from..] fell in. */
static void note_regions(struct streams *st, size_t from)
{
	struct procmaps *m = NULL;

	for (size_t i = from; i < st->nr_recs; i++) {
		struct sprobe *sp = &st->ips[st->recs[i].ipi];
		const struct procmap *pm;

		if (sp->region_looked)
			continue;
		if (!m && !(m = procmaps__capture(st->pid, false)))
			return;
		sp->region_looked = true;
		pm = procmaps__find(m, st->recs[i].addr);
		sp->out.region_start = pm ? pm->start : 0;
		sp->out.region_bytes = pm ? pm->end - pm->start : 0;
	}
	procmaps__free(m);
}

/*
 * Written lines read back by code no probe is on: loads sampled over the
 * whole run (any code) within the span of the lines each store wrote, or
 * whose own addresses (lowest to highest) range over that span: a loop
 * that reads the data back takes samples like the one that wrote it, and
 * walks over the buffer the store fills.
 */
static void read_back_sampled(struct streams *st, const struct report *r,
			      struct streams_report *s)
{
	uint64_t *lo = xcalloc((size_t)s->nr_ips + 1, sizeof(*lo));
	uint64_t *hi = xcalloc((size_t)s->nr_ips + 1, sizeof(*hi));

	for (int i = 0; i < s->nr_ips; i++)
		lo[i] = UINT64_MAX;
	for (size_t i = 0; i < st->nr_recs; i++) {
		const struct stream_access *a = &st->recs[i];
		uint64_t line = a->addr / 64;	/* as the sampler keeps them */

		if (!a->write || a->ipi >= s->nr_ips)
			continue;
		if (line < lo[a->ipi])
			lo[a->ipi] = line;
		if (line > hi[a->ipi])
			hi[a->ipi] = line;
	}
	for (int i = 0; i < s->nr_ips; i++) {
		if (lo[i] > hi[i])
			continue;
		s->ips[i].sampled_reads_in_span = addr_report__reads_in(r->addr, lo[i], hi[i]);
		/*
		 * a sampled load whose addresses range over the lines written,
		 * over no more than the last level cache holds: one that walks
		 * more (a checksum over the whole 512 MiB written) finds the
		 * lines gone from the cache whatever the stores did
		 */
		for (int k = 0; r->addr && k < r->addr->nr_ips; k++) {
			const struct addr_ip *ip = &r->addr->ips[k];

			if (ip->op.read && !ip->op.write && ip->decoded >= 2 && ip->ea_max &&
			    ip->pid == s->ips[i].pid && ip->ea_min / 64 <= hi[i] &&
			    ip->ea_max / 64 >= lo[i] &&
			    (!s->geom.llc_bytes || ip->ea_max - ip->ea_min <= s->geom.llc_bytes))
				s->ips[i].loads_over_span++;
		}
		if (s->ips[i].sampled_reads_in_span >= 2 || s->ips[i].loads_over_span)
			s->ips[i].write_only = false;
	}
	free(lo);
	free(hi);
}

/* Whether probe A goes before B in a burst (see burst()). */
static bool probe_before(const struct stream_ip *a, const struct stream_ip *b)
{
	if (a->loop_store != b->loop_store)
		return !a->loop_store;
	if (a->bursts != b->bursts)
		return a->bursts < b->bursts;
	return a->addr_samples > b->addr_samples;
}

/*
 * Take the probes order[0..nr) out: each link once (a uprobe_multi link
 * holds every probe of its file); COUNT: a burst they were recorded in.
 */
static void links_close(struct streams *st, const int *order, int nr, bool count)
{
	for (int i = 0; i < nr; i++) {
		struct sprobe *sp = &st->ips[order[i]];
		int fd = sp->link_fd;

		if (fd >= 0) {
			for (int j = i; j < nr; j++)
				if (st->ips[order[j]].link_fd == fd) {
					st->ips[order[j]].link_fd = -1;
					st->ips[order[j]].out.bursts += count;
				}
			close(fd);
		}
		if (sp->link) {
			bpf_link__destroy(sp->link);
			sp->link = NULL;
			sp->out.bursts += count;
		}
	}
}

/*
 * Put the probes order[0..nr) in; the number attached (st->stop when the
 * target is gone).  As uprobe_multi, one link per file: closing a link
 * takes its breakpoints out before it waits for a grace period (30-40 ms
 * here), so links closed one after the other would leave the later ones
 * trapping through the earlier ones' waits, at a hit's cost each (the
 * last of four probes on one loop recorded 8192 accesses where the first
 * recorded 88 in a burst of 3 ms).  A link a probe's file refuses is
 * tried again one probe at a time, to name the probe the kernel refuses.
 */
/*
 * ORDER's probes with those of the files they sample least first: the
 * probes attached first are hit, unarmed, while the later links go in, and
 * a link on a shared library takes milliseconds (the kernel walks every
 * mapping of the file, in every process).  The hot loop's file goes last.
 */
static void attach_order(const struct streams *st, const int *order, int nr, int *out)
{
	uint64_t sum[STREAM_MAX_IPS];

	for (int i = 0; i < nr; i++) {
		sum[i] = 0;
		for (int j = 0; j < nr; j++)
			if (!strcmp(st->ips[order[j]].path, st->ips[order[i]].path))
				sum[i] += st->ips[order[j]].out.addr_samples;
		out[i] = order[i];
	}
	for (int i = 1; i < nr; i++)
		for (int j = i; j > 0 && sum[j] < sum[j - 1]; j--) {
			uint64_t t = sum[j];
			int o = out[j];

			sum[j] = sum[j - 1], sum[j - 1] = t;
			out[j] = out[j - 1], out[j - 1] = o;
		}
}

static int attach_all(struct streams *st, const int *by_heat, int nr)
{
	int attached = 0, order[STREAM_MAX_IPS];

	attach_order(st, by_heat, nr, order);
	for (int i = 0; i < nr && !st->stop; i++) {
		struct sprobe *sp = &st->ips[order[i]];
		int err = 0;

		if (sp->link_fd >= 0)
			continue;	/* in the link of its file */
		if (st->multi) {
			uint64_t offs[STREAM_MAX_IPS];
			int in[STREAM_MAX_IPS], cnt = 0, fd;

			for (int j = i; j < nr; j++)
				if (st->ips[order[j]].link_fd < 0 &&
				    !strcmp(st->ips[order[j]].path, sp->path)) {
					in[cnt] = order[j];
					offs[cnt++] = st->ips[order[j]].off;
				}
			fd = multi_attach(st, sp->path, offs, (uint32_t)cnt);
			if (fd < 0 && fd != -ESRCH && cnt > 1) {
				cnt = 1;
				fd = multi_attach(st, sp->path, &sp->off, 1);
			}
			err = fd < 0 ? -fd : 0;
			for (int k = 0; !err && k < cnt; k++)
				st->ips[in[k]].link_fd = fd;
			if (!err)
				attached += cnt;
		} else {
			sp->link = bpf_program__attach_uprobe(st->skel->progs.stream_hit, false,
							      st->pid, sp->path, sp->off);
			err = sp->link ? 0 : errno;
			attached += !err;
		}
		if (err == ESRCH) {
			st->stop = true;	/* the process is gone */
			break;
		}
		if (err) {
			sp->out.skip = STREAM_SKIP_ATTACH;
			snprintf(sp->out.why, sizeof(sp->out.why), "the kernel refused the uprobe: %s",
				 strerror(err));
		}
	}
	return attached;
}

/* One burst: attach the hottest probes, sleep, detach, read the records. */
static void burst(struct streams *st, uint64_t len_ns)
{
	int order[STREAM_MAX_IPS], nr = 0, attached = 0;
	uint64_t hits0 = stat(st, STREAM_ST_HITS), t0, t1;
	uint32_t want = st->geom.l1_sets > 0 && st->geom.l1_ways > 0 ?
			2u * (uint32_t)(st->geom.l1_sets * st->geom.l1_ways) : 1024;
	double hits_ns;
	struct timespec ts;
	__u32 zero = 0;
	size_t recs0;

	for (int i = 0; i < st->nr_ips; i++)
		if (st->ips[i].out.skip == STREAM_OK && !st->ips[i].retired)
			order[nr++] = i;
	/*
	 * Sampled instructions first, those recorded in the fewest bursts
	 * first (they take turns when more are hot than a burst probes), the
	 * most sampled first among those; loop stores last.
	 */
	for (int i = 1; i < nr; i++)
		for (int j = i; j > 0 && probe_before(&st->ips[order[j]].out,
						      &st->ips[order[j - 1]].out); j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	/*
	 * One place for the loop stores (they sort last, with no samples): the
	 * one recorded in the fewest bursts, so that they take turns.
	 */
	{
		int first = nr, pick = -1;

		for (int i = 0; i < nr; i++)
			if (st->ips[order[i]].out.loop_store) {
				if (first == nr)
					first = i;
				if (pick < 0 || st->ips[order[i]].out.bursts <
						st->ips[order[pick]].out.bursts)
					pick = i;
			}
		if (pick >= 0) {
			int keep = first < STREAM_MAX_ATTACH - 1 ? first : STREAM_MAX_ATTACH - 1;

			order[keep] = order[pick];
			nr = keep + 1;
		} else if (nr > STREAM_MAX_ATTACH) {
			nr = STREAM_MAX_ATTACH;
		}
	}
	for (int i = 0; i < nr; i++) {
		__u32 slot = (__u32)order[i];

		bpf_map__update_elem(st->skel->maps.burst_count, &slot, sizeof(slot), &zero,
				     sizeof(zero), BPF_ANY);
	}
	t0 = now_ns();
	if (kill(st->pid, 0) && errno == ESRCH) {
		st->stop = true;	/* gone: no attach to fail (and warn) */
		return;
	}
	attached = attach_all(st, order, nr);
	if (attached)
		st->skel->bss->armed = 1;
	t1 = now_ns();
	/*
	 * Until len_ns, or until every attached probe has recorded twice as
	 * many accesses as the L1d has lines (enough for the cache model to
	 * decide; the rest of the burst would only cost), or until its hits
	 * have cost what the budget saved: len_ns assumes one hit every
	 * STREAM_HIT_WALL_NS, and a loop with several probed accesses hits
	 * them several times a pass.  Spent in one burst in a program's set-up
	 * phase, that would leave nothing for the phase after it.
	 */
	double may_hit = (double)len_ns / STREAM_HIT_WALL_NS;

	for (uint64_t end = now_ns() + len_ns; attached && !st->stop;) {
		uint64_t now = now_ns(), left = end > now ? end - now : 0;
		bool enough = true;

		if (!left || (double)(stat(st, STREAM_ST_HITS) - hits0) >= may_hit)
			break;
		if (left > 1000000ULL)
			left = 1000000ULL;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)left;
		nanosleep(&ts, NULL);
		for (int i = 0; i < nr && enough; i++) {
			__u32 slot = (__u32)order[i], n = 0;

			if (st->ips[order[i]].link || st->ips[order[i]].link_fd >= 0)
				bpf_map__lookup_elem(st->skel->maps.burst_count, &slot,
						     sizeof(slot), &n, sizeof(n), 0);
			else
				continue;
			enough = n >= want;
		}
		if (enough)
			break;
	}
	st->skel->bss->armed = 0;
	if (attached)
		pr_debug("streams: burst %d: %d probes attached in %.1f ms, armed %.1f ms\n",
			 st->bursts, attached, (double)(t1 - t0) / 1e6, (double)(now_ns() - t1) / 1e6);
	links_close(st, order, nr, true);
	st->probed_ns += now_ns() - t0;
	hits_ns = (double)(stat(st, STREAM_ST_HITS) - hits0) * STREAM_HIT_NS;
	st->hits_cost_ns += hits_ns;
	if (attached) {
		st->span_ns = now_ns() - t0;
		st->cost_ns += st->multi ? attached * STREAM_LINK_FIXED_NS + hits_ns
					 : (double)st->span_ns;
	}
	recs0 = st->nr_recs;
	ring_buffer__consume(st->rb);
	note_regions(st, recs0);
	if (attached)
		st->bursts++;
}

static bool streams_wanted(const struct run_ctx *ctx)
{
	return ctx->streams;
}

static int streams_open(void **state, const struct run_ctx *ctx, struct report *r)
{
	struct streams *st;

	if (!ctx->shared || !ctx->shared->hot_insns) {
		report__add_provenance(r, "uprobe_stream", "no address streams: data-address "
				       "sampling, which names the instructions to probe, is off");
		return -ENOENT;
	}
	st = xcalloc(1, sizeof(*st));
	st->pid = ctx->pid;
	st->shared = ctx->shared;
	geom_fill(&st->geom);
	st->budget = ctx->stream_budget > 0 ? ctx->stream_budget : 0.01;
	st->span_ns = STREAM_SPAN_NS;
	pthread_mutex_init(&st->lock, NULL);
	*state = st;
	return 0;
}

static void streams_started(void *state)
{
	struct streams *st = state;

	st->start_ns = now_ns();
}

/* The bursts' thread: one whenever the budget saved allows, until stop. */
static void *burst_thread(void *arg)
{
	struct streams *st = arg;
	const struct timespec tick = { 0, 5000000 };

	while (!st->stop) {
		uint64_t now = now_ns(), len;
		/*
		 * The next burst's fixed charge: uprobe_multi's fixed part, or a
		 * perf-event burst's last span (the first one assumed).  Which
		 * one is known once the program is loaded, when the budget saved
		 * would cover a uprobe_multi burst.  With uprobe_multi the rest
		 * of what is saved bounds the hits: a thread hitting all the time
		 * costs about the burst's length.
		 */
		double fixed = !st->skel || st->multi ? STREAM_MULTI_FIXED_NS : (double)st->span_ns;
		double saved = st->budget * (double)(now - st->start_ns) - st->cost_ns - fixed;

		uint64_t min_len = st->bursts ? STREAM_MIN_BURST_NS : STREAM_FIRST_BURST_NS;

		if (st->skel && st->multi)
			saved *= STREAM_HIT_WALL_NS / STREAM_HIT_NS;
		nanosleep(&tick, NULL);
		if (saved < (double)min_len || !st->nr_hot)
			continue;
		/*
		 * Loading takes this process's CPU (with the bursts and the
		 * analysis, 20-40 ms over a 2.6 s run here), which a busy
		 * machine takes from the target: only once a burst is paid for
		 * (runs shorter than that never load it).
		 */
		if (!st->skel) {
			if (load(st))
				break;
			continue;	/* the charge is known now: from the next tick */
		}
		refresh(st);
		len = saved > (double)STREAM_MAX_BURST_NS ? STREAM_MAX_BURST_NS : (uint64_t)saved;
		for (int i = 0; i < st->nr_ips && !st->stop; i++)
			if (st->ips[i].out.skip == STREAM_OK) {
				burst(st, len);
				break;
			}
	}
	return NULL;
}

static int streams_poll(void *state)
{
	struct streams *st = state;
	uint64_t now = now_ns();

	if (st->stop || !st->start_ns || now - st->hot_ns < 100000000ULL ||
	    !st->shared->hot_insns)
		return 0;
	st->hot_ns = now;
	pthread_mutex_lock(&st->lock);
	st->nr_hot = st->shared->hot_insns(st->shared->hot_insns_ctx, st->hot,
					   (int)ARRAY_SIZE(st->hot));
	pthread_mutex_unlock(&st->lock);
	if (!st->running && st->nr_hot) {
		sigset_t all, old;

		/* signals stay the main thread's (run.c handles Ctrl-C there) */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		st->running = !pthread_create(&st->thread, NULL, burst_thread, st);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return 0;
}

static void stop_thread(struct streams *st)
{
	st->stop = true;
	if (st->running)
		pthread_join(st->thread, NULL);
	st->running = false;
}

static void streams_at_exit(void *state, pid_t pid)
{
	struct streams *st = state;

	if (pid == st->pid)
		st->stop = true;
}

static void note_skips(struct streams *st, struct report *r)
{
	for (int i = 0; i < st->nr_ips; i++) {
		struct stream_ip *o = &st->ips[i].out;

		if (o->skip == STREAM_OK && !o->accesses) {
			o->skip = STREAM_SKIP_NO_HITS;
			snprintf(o->why, sizeof(o->why), "%s", o->bursts ?
				 "not executed during a burst" : "no burst ran after it was found");
		}
		if (o->skip != STREAM_OK)
			report__add_provenance(r, "uprobe_stream", "0x%" PRIx64 " (%s) not streamed: %s",
					       o->insn, o->text[0] ? o->text : "?", o->why);
	}
}

static int streams_finish(void *state, struct report *r)
{
	struct streams *st = state;
	struct streams_report *s;

	stop_thread(st);
	if (st->load_failed) {
		report__add_provenance(r, "uprobe_stream", "no address streams: %s", st->load_why);
		return 0;
	}
	if (!st->nr_ips) {
		report__add_provenance(r, "uprobe_stream", "no address streams: %s",
				       !st->nr_hot ? "no hot memory instruction was found to probe" :
				       "the run ended before the budget saved (--stream-budget) "
				       "covered a burst");
		return 0;
	}
	if (st->rb)
		ring_buffer__consume(st->rb);
	s = xcalloc(1, sizeof(*s));
	s->tier = TIER_UPROBE_STREAM;
	s->geom = st->geom;
	s->bursts = st->bursts;
	s->probed_ns = st->probed_ns;
	s->hits = stat(st, STREAM_ST_HITS);
	s->records = st->nr_recs;
	s->dropped = stat(st, STREAM_ST_FULL) + st->dropped_recs;
	s->capped = stat(st, STREAM_ST_CAPPED);
	s->unarmed = stat(st, STREAM_ST_UNARMED);
	s->ip_at_probe = stat(st, STREAM_ST_AT_IP);
	s->ip_after_int3 = stat(st, STREAM_ST_AT_IP1);
	s->cost_ns = st->cost_ns;
	s->multi = st->multi;
	s->hits_cost_ns = st->hits_cost_ns;
	s->cost_per_hit_ns = STREAM_HIT_NS;
	s->run_ns = now_ns() - st->start_ns;
	s->budget = st->budget;
	s->burst_ns = STREAM_MAX_BURST_NS;
	s->ips = xcalloc(st->nr_ips, sizeof(*s->ips));
	s->nr_ips = st->nr_ips;
	for (int i = 0; i < st->nr_ips; i++)
		s->ips[i] = st->ips[i].out;
	streams__analyze(st->recs, st->nr_recs, &st->geom, s->ips, s->nr_ips);
	read_back_sampled(st, r, s);
	for (int i = 0; i < st->nr_ips; i++)
		st->ips[i].out = s->ips[i];
	note_skips(st, r);
	for (int i = 0; i < st->nr_ips; i++) {
		s->ips[i] = st->ips[i].out;
		/* where it is: the data-address section symbolised it */
		for (int k = 0; r->addr && k < r->addr->nr_ips; k++)
			if (r->addr->ips[k].op.insn == s->ips[i].insn &&
			    r->addr->ips[k].pid == s->ips[i].pid) {
				s->ips[i].loc = r->addr->ips[k].loc;
				break;
			}
		/* a loop store was not sampled: the sampler's symbols place it */
		if (!s->ips[i].loc.file[0] && st->shared && st->shared->insn_site)
			st->shared->insn_site(st->shared->hot_insns_ctx, s->ips[i].pid,
					      s->ips[i].insn, &s->ips[i].loc);
	}
	if (!st->geom.tlb_entries)
		report__add_provenance(r, "uprobe_stream", "no TLB model: the data TLB's size is "
				       "measured by 'memadvise calibrate' (no machine profile has it)");
	if (s->dropped)
		report__add_provenance(r, "uprobe_stream", "%" PRIu64 " stream records lost "
				       "(ring full)", s->dropped);
	streams_report__free(r->streams);
	r->streams = s;
	return 0;
}

static void streams_destroy(void *state)
{
	struct streams *st = state;
	int order[STREAM_MAX_IPS];

	if (!st)
		return;
	stop_thread(st);
	pthread_mutex_destroy(&st->lock);
	for (int i = 0; i < st->nr_ips; i++)
		order[i] = i;
	links_close(st, order, st->nr_ips, false);
	ring_buffer__free(st->rb);
	streams_bpf__destroy(st->skel);
	free(st->recs);
	free(st);
}

const struct collector collector_streams = {
	.name = "streams",
	.wanted = streams_wanted,
	.open = streams_open,
	.started = streams_started,
	.poll = streams_poll,
	.at_exit = streams_at_exit,
	.finish = streams_finish,
	.destroy = streams_destroy,
};
