// SPDX-License-Identifier: GPL-2.0-only
/*
 * Software data-address sampling: cpu-clock + PERF_SAMPLE_REGS_USER (or in
 * a virtual machine the scheduler tick's samples, which the profile's BPF
 * programs hand over with the same layout: addrsample__sink), the
 * instruction before the sampled IP decoded with capstone, its effective
 * address computed from the sampled registers.  Aggregated per IP (distinct
 * lines and pages, stride, regions), per mapping and per cache line (which
 * threads read and wrote it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <capstone/capstone.h>

#include "collect/addr/addrsample.h"
#include "collect/addr/addrsample_int.h"
#include "collect/collector.h"
#include "collect/evring.h"
#include "base/log.h"
#include "collect/maprecs.h"
#include "collect/sampling/sampler.h"
#include "symbols/symbolizer.h"
#include "machine/sysinfo.h"
#include "base/u64map.h"
#include "base/util.h"
#include "collect/watch.h"

static void space_free(struct aspace *sp);

/* Forgets a space no sample points at (its symboliser session goes too). */
static void space_drop(struct addrsample *as, int i)
{
	struct aspace *sp = as->spaces[i];

	if (sp->maps)
		symbolizer__forget(as->sym, sp->maps);
	space_free(sp);
	memmove(&as->spaces[i], &as->spaces[i + 1], (as->nr_spaces - i - 1) * sizeof(*as->spaces));
	as->nr_spaces--;
}

/*
 * The space of PID.  When all are taken, one that no sample points at and
 * whose process is gone (or exec'd away) makes room: mapping records arrive
 * for every process the target starts, most of which no tick lands in.
 */
static struct aspace *space_find(struct addrsample *as, pid_t pid, bool create)
{
	struct aspace *sp;

	for (int i = as->nr_spaces - 1; i >= 0; i--)
		if (as->spaces[i]->pid == pid)
			return as->spaces[i];
	if (!create)
		return NULL;
	for (int i = 0; i < as->nr_spaces && as->nr_spaces == AS_MAX_PROCS; i++)
		if (!as->spaces[i]->sampled && (as->spaces[i]->exited || as->spaces[i]->pid < 0))
			space_drop(as, i);
	if (as->nr_spaces == AS_MAX_PROCS)
		return NULL;
	sp = xcalloc(1, sizeof(*sp));
	sp->pid = pid;
	sp->serial = ++as->nr_serials;
	as->spaces[as->nr_spaces++] = sp;
	return sp;
}

static void space_free(struct aspace *sp)
{
	maprecs__clear(&sp->recs);
	for (size_t i = 0; i < sp->nr_pages; i++)
		free(sp->pages[i].bytes);
	free(sp->pages);
	u64map__free(&sp->page_idx);
	u64map__free(&sp->ip_idx);
	procmaps__free(sp->maps);
	free(sp->map_region);
	for (int i = 0; i < AS_JUMP_CACHE; i++)
		free(sp->jumps[i].j);
	free(sp);
}

void addrsample__read_maps(struct addrsample *as, struct aspace *sp)
{
	struct procmaps *m = procmaps__capture(sp->pid, false);
	bool from_recs = false;

	sp->maps_read_ns = now_ns();
	if (!m && (!sp->maps || sp->maps_from_recs) && sp->recs.changed) {
		/* gone already: what its mapping records said */
		m = maprecs__procmaps(&sp->recs, sp->pid);
		from_recs = true;
	}
	if (!m)
		return;
	sp->maps_from_recs = from_recs;
	if (procmaps__same(sp->maps, m)) {
		/* the regions stand, and the symbolizer keeps what it loaded */
		procmaps__free(m);
		return;
	}
	symbolizer__forget(as->sym, sp->maps);
	procmaps__free(sp->maps);
	free(sp->map_region);
	sp->maps = m;
	sp->map_region = xcalloc(m->n ? m->n : 1, sizeof(int));
	for (int i = 0; i < m->n; i++) {
		const struct procmap *pm = &m->v[i];
		size_t j;

		for (j = 0; j < as->nr_regions; j++) {
			struct addr_region *r = &as->regions[j].r;

			if (r->start == pm->start && r->end == pm->end &&
			    !strncmp(r->name, pm->path, sizeof(r->name) - 1))
				break;
		}
		if (j == as->nr_regions) {
			as->regions = xgrow(as->regions, &as->cap_regions, j + 1, sizeof(*as->regions));
			memset(&as->regions[j], 0, sizeof(as->regions[j]));
			as->regions[j].r.start = pm->start;
			as->regions[j].r.end = pm->end;
			as->regions[j].r.kind = pm->kind;
			snprintf(as->regions[j].r.name, sizeof(as->regions[j].r.name), "%.*s",
				 (int)sizeof(as->regions[j].r.name) - 1, pm->path);
			as->nr_regions++;
		}
		sp->map_region[i] = (int)j;
	}
}

/*
 * Index of the region holding ea, -1 when unmapped; *shared: a MAP_SHARED
 * mapping; *ro: a mapping that cannot be written.
 */
static int find_region(struct addrsample *as, struct aspace *sp, uint64_t ea, bool *shared,
		       bool *ro)
{
	const struct procmap *e = procmaps__find(sp->maps, ea);

	if (!e && now_ns() - sp->maps_read_ns > AS_MAPS_REFRESH_NS) {
		addrsample__read_maps(as, sp);
		e = procmaps__find(sp->maps, ea);
	}
	*shared = e && e->perms[3] == 's';
	*ro = e && e->perms[1] != 'w';
	return e ? sp->map_region[e - sp->maps->v] : -1;
}

/*
 * The key of the cache line at LINE: processes have their own memory at the
 * same addresses (a forked worker's copy of a global), so a line is one
 * process's, unless it is in a shared mapping (inherited at fork, at the
 * same address in every process).  48-bit user addresses: the line number
 * takes 42 bits, the space the rest.
 */
static uint64_t line_key(const struct aspace *sp, uint64_t line, bool shared)
{
	return (line >> 6) | (shared ? 0 : (uint64_t)sp->serial << 42);
}

/* A line written by two threads: watch the bytes each wrote (--watch auto). */
static void propose_line(struct addrsample *as, struct aspace *sp, struct line_agg *la)
{
	int writers = 0, props = 0, prev = -1;

	for (int j = 0; j < la->nr; j++)
		writers += la->t[j].writes > 0;
	if (writers < 2 || sp->pid <= 0)
		return;
	la->proposed = true;
	for (int j = 0; j < la->nr && props < 2; j++) {
		uint64_t m = la->t[j].wmask;
		char name[96] = "";
		int off, len = 0;

		if (!m)
			continue;
		off = __builtin_ctzll(m);
		while (off + len < 64 && (m >> (off + len) & 1))
			len++;
		if (off == prev)
			continue; /* the same bytes: one watchpoint shows both threads */
		if (sp->maps)
			addrsym__data(as->sym, sp->maps, la->line + off, name, sizeof(name));
		watch__propose(as->shared, sp->pid, la->line + off, len, name);
		prev = off;
		props++;
	}
}

/*
 * One more write of the line by the IP at index IP - 1.  With more writing
 * IPs than slots, the least counted one's slot goes to the newcomer, with
 * its count plus one (an overestimate, as in the space-saving algorithm):
 * an IP that writes the line most keeps its slot.
 */
static void count_writer(struct line_agg *la, uint32_t ip)
{
	int k, min = 0;

	for (k = 0; k < AS_LINE_WRITERS; k++) {
		if (la->w[k].ip == ip || !la->w[k].ip)
			break;
		if (la->w[k].writes < la->w[min].writes)
			min = k;
	}
	if (k == AS_LINE_WRITERS)
		k = min;
	la->w[k].ip = ip;	/* an evicted IP's count carries over */
	la->w[k].writes++;
}

/* The IP (index + 1) that wrote the line most, 0 when none. */
static uint32_t top_writer(const struct line_agg *la)
{
	int best = 0;

	for (int k = 1; k < AS_LINE_WRITERS; k++)
		if (la->w[k].writes > la->w[best].writes)
			best = k;
	return la->w[best].ip;
}

static void note_line(struct addrsample *as, struct aspace *sp, uint32_t ipi, int tid,
		      uint64_t ea, uint64_t key, const struct mem_operand *op)
{
	uint64_t line = ea & ~(uint64_t)(as->line_size - 1);
	unsigned int off = ea - line, sz = op->size ? op->size : 1;
	uint64_t mask = (sz + off >= 64 ? ~0ULL : ((1ULL << sz) - 1)) << off;
	bool added;
	uint32_t *v = u64map__get(&as->line_idx, key, &added);
	struct line_agg *la;
	int k;

	if (added) {
		as->lines = xgrow(as->lines, &as->cap_lines, as->nr_lines + 1, sizeof(*as->lines));
		la = &as->lines[as->nr_lines++];
		memset(la, 0, sizeof(*la));
		la->line = line;
		la->sp = sp;
		*v = as->nr_lines;
	}
	la = &as->lines[*v - 1];
	for (k = 0; k < la->nr; k++)
		if (la->t[k].tid == tid)
			break;
	if (k == la->nr) {
		if (la->nr == AS_LINE_THREADS) {
			la->more = true;
			return;
		}
		la->t[la->nr++].tid = tid;
	}
	if (op->write || op->stored) {
		la->t[k].writes++;
		la->t[k].wmask |= mask;
		count_writer(la, ipi + 1);
		if (!la->proposed && watch__auto(as->shared))
			propose_line(as, la->sp, la);
	} else {
		la->t[k].reads++;
		la->t[k].rmask |= mask;
	}
}

/*
 * The target exec'd another program (sh -c, wrappers): code, symbols and
 * maps change.  IPs seen so far belong to the old image and leave the
 * report; code pages and the symboliser start afresh.
 */
static void new_image(struct addrsample *as, struct aspace *sp)
{
	for (size_t i = 0; i < sp->nr_pages; i++)
		free(sp->pages[i].bytes);
	sp->nr_pages = 0;
	u64map__free(&sp->page_idx);
	for (size_t i = 0; i < as->nr_ips; i++)
		/* one that other processes ran too keeps their samples */
		if (as->ips[i].sp == sp && !as->ips[i].stale && as->ips[i].out.nr_procs == 1) {
			as->ips[i].stale = true;
			as->tot.previous_images += as->ips[i].out.samples;
		}
	u64map__free(&sp->ip_idx);
	/* the old symboliser stays with the stale IPs' space: a fresh space */
	sp->pid = -sp->pid;
}

/* PERF_RECORD_MMAP2: an executable mapping (attr.mmap) or a data one (attr.mmap_data). */
static void on_mmap2(struct addrsample *as, const struct perf_event_header *h)
{
	struct maprec r;
	struct aspace *sp;
	pid_t pid;

	if (maprec__parse(h, &pid, &r) && (sp = space_find(as, pid, true)))
		maprecs__add(&sp->recs, &r, as->page_size);
}

/* A new process forked without exec shares its parent's mappings. */
static void on_fork(struct addrsample *as, const struct perf_event_header *h)
{
	const uint32_t *v = (const void *)(h + 1);	/* pid, ppid, tid, ptid, time */
	struct aspace *parent, *sp;

	if (h->size < sizeof(*h) + 16 || v[0] == v[1] || v[0] != v[2])
		return;	/* a thread */
	/* the child first: making room for it must not drop the parent under us */
	sp = space_find(as, (pid_t)v[0], true);
	parent = space_find(as, (pid_t)v[1], false);
	if (sp && parent && !sp->recs.n)
		maprecs__copy(&sp->recs, &parent->recs);
}

static void on_record(void *ctx, const struct perf_event_header *h)
{
	struct addrsample *as = ctx;
	const uint32_t *c = (const void *)(h + 1);

	struct aspace *sp;

	if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC) &&
	    (sp = space_find(as, (pid_t)c[0], false)))
		new_image(as, sp);
	else if (h->type == PERF_RECORD_MMAP2)
		on_mmap2(as, h);
	else if (h->type == PERF_RECORD_FORK)
		on_fork(as, h);
	else if (h->type == PERF_RECORD_EXIT && c[0] == c[2] && (sp = space_find(as, (pid_t)c[0], false)))
		sp->exited = true;	/* pid, ppid, tid, ptid, time: the leader */
}

/*
 * Where the code at IP comes from: the mapped file's inode, the offset in
 * it and its path hashed.  False for code that is not file-backed (JIT).
 */
static bool code_key(struct addrsample *as, struct aspace *sp, uint64_t ip, uint64_t *ino,
		     uint64_t *off, uint32_t *path)
{
	const struct procmap *pm;
	uint32_t h = 2166136261u;

	if (!sp->maps && now_ns() - sp->maps_read_ns > AS_MAPS_REFRESH_NS)
		addrsample__read_maps(as, sp);
	pm = procmaps__find(sp->maps, ip);
	if (!pm || !pm->inode || pm->path[0] != '/')
		return false;
	for (const char *c = pm->path; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	*ino = pm->inode;
	*off = ip - pm->start + pm->offset;
	*path = h;
	return true;
}

/*
 * The aggregate of a newly sampled IP of space SP: one of another process
 * when it runs the same code (the same file at the same offset: forked
 * workers, the children of a make), so that the rules see all the samples
 * of an instruction together; else a new one.
 */
static uint32_t ip_index(struct addrsample *as, struct aspace *sp, uint64_t ip, int pid)
{
	uint64_t ino = 0, off = 0;
	uint32_t path = 0, *w = NULL;
	bool file = code_key(as, sp, ip, &ino, &off, &path), added = false;
	struct ip_agg *ia;

	if (file) {
		w = u64map__get(&as->img_idx, (ino * 0x9e3779b97f4a7c15ULL) ^ off ^
					      ((uint64_t)path << 40) ^ (1ULL << 63), &added);
		ia = added ? NULL : &as->ips[*w - 1];
		if (ia && ia->img_ino == ino && ia->img_off == off && ia->img_path == path &&
		    !ia->stale && ia->sp != sp) {
			ia->out.nr_procs++;
			return *w - 1;
		}
	}
	as->ips = xgrow(as->ips, &as->cap_ips, as->nr_ips + 1, sizeof(*as->ips));
	ia = &as->ips[as->nr_ips++];
	memset(ia, 0, sizeof(*ia));
	ia->out.ip = ip;
	ia->out.pid = pid;
	ia->out.nr_procs = 1;
	ia->out.space = sp->serial;
	ia->sp = sp;
	ia->img_ino = ino;
	ia->img_off = off;
	ia->img_path = path;
	if (w && added)
		*w = as->nr_ips;
	return as->nr_ips - 1;
}

static void on_sample(void *ctx, const struct perf_event_header *h)
{
	struct addrsample *as = ctx;

	if (h->type != PERF_RECORD_SAMPLE) {
		on_record(ctx, h);
		return;
	}
	const uint64_t *p = (const void *)(h + 1);
	uint64_t ip = p[0], abi = p[3], ea, key, lkey;
	uint32_t pid = (uint32_t)p[1], tid = (uint32_t)(p[1] >> 32);
	const uint64_t *regs = p + 4;
	struct ip_agg *ia;
	struct aspace *sp;
	uint32_t *v, ipi;
	bool added, shared, ro;
	int reg;

	if (ip >> 63)
		return;	/* a kernel-mode tick: the BPF program, when attached, keeps those */
	as->tot.samples++;
	if (!abi || h->size < sizeof(*h) + (4 + AS_NR_REGS) * sizeof(uint64_t)) {
		as->tot.no_regs++;
		return;
	}
	sp = space_find(as, (pid_t)pid, true);
	if (!sp) {
		as->tot.other_process++; /* too many processes */
		return;
	}
	sp->sampled = true;
	v = u64map__get(&sp->ip_idx, ip, &added);
	if (added)
		*v = ip_index(as, sp, ip, (int)pid) + 1;
	ipi = *v - 1;
	ia = &as->ips[ipi];
	ia->out.samples++;
	if (!ia->decoded_once)
		addrsample__decode_ip(as, sp, ia);
	if (ia->out.op.skip != AS_OK) {
		as->tot.skipped[ia->out.op.skip]++;
		if (ia->out.op.skip == AS_UNDECODABLE && !ia->out.op.insn)
			as->tot.unreadable++;
		return;
	}
	if ((ia->out.op.clobbers && !ia->out.op.chase) || ia->out.op.joined) {
		/*
		 * base + the value loaded, or a register changed since, or the
		 * access may not have run: no address
		 */
		ia->out.no_addr++;
		ia->out.joined += ia->out.op.joined;
		as->tot.no_addr++;
		return;
	}
	ea = addrsample__ea(&ia->out.op, regs);
	/*
	 * the same code in another process (ip_index): RIP-relative from where
	 * this process has it, another address where it is loaded elsewhere
	 */
	if (ia->out.op.rip)
		ea += ip - ia->out.ip;
	as->tot.decoded++;
	ia->out.decoded++;
	if (ia->out.op.back)
		as->tot.back++;
	if (ia->out.op.write)
		as->tot.writes++;
	else
		as->tot.reads++;
	if (ia->out.op.clobbers) {
		unsigned int sz = ia->out.op.size;

		ia->out.approx++;
		as->tot.approx++;
		/*
		 * A load that overwrote its base (p = p->n) gives the address of
		 * the same member in the next object.  In a walk over objects laid
		 * out alike, whether that member crosses a line is the same as for
		 * the one read, so splits are kept, apart, as approximate evidence.
		 */
		if (sz && (ea & (as->line_size - 1)) + sz > (unsigned int)as->line_size)
			ia->out.approx_line_splits++;
	} else {
		unsigned int sz = ia->out.op.size, set;

		/* alignment, line splits and the L1D set (exact addresses only) */
		if (sz && (ea & (as->line_size - 1)) + sz > (unsigned int)as->line_size) {
			ia->out.line_splits++;
			as->tot.line_splits++;
		}
		if (sz && (sz & (sz - 1)) == 0 && sz <= 64 && (ea & (sz - 1))) {
			ia->out.misaligned++;
			as->tot.misaligned++;
		}
		if (as->line_size <= ADDR_LINE_OFF_MAX)
			ia->out.line_off[ea & (as->line_size - 1)]++;
		if (!ia->out.ea_max || ea < ia->out.ea_min)
			ia->out.ea_min = ea;
		if (ea > ia->out.ea_max)
			ia->out.ea_max = ea;
		if (ia->out.op.index >= 0 && ia->out.op.base >= 0 && ia->out.op.base != AS_SP) {
			uint64_t org = regs[ia->out.op.base] +
				       (uint64_t)(ia->out.op.disp - ia->out.op.adj);

			set = (unsigned int)(org % ((uint64_t)as->line_size * as->l1_sets));
			ia->out.origin_off = ia->out.origin_n++ ? ia->out.origin_off : set;
			ia->out.origin_same += set == ia->out.origin_off;
			if (set == ia->out.origin_off)
				addr_ip__note_base(&ia->out, org);
		}
		set = (unsigned int)((ea / as->line_size) % as->l1_sets);
		if (!(ia->sets[set / 64] >> (set % 64) & 1)) {
			ia->sets[set / 64] |= 1ULL << (set % 64);
			ia->out.l1_sets++;
		}
	}
	if (ia->out.op.atomic)
		as->tot.atomic++;
	if (ia->out.op.cas)
		as->tot.cas++;
	/* distinct lines and pages, per IP and overall */
	if (u64map__get(&as->ip_lines, (ea >> 6) | ((uint64_t)(ipi + 1) << 42), &added), added)
		ia->out.lines++;
	if (u64map__get(&as->ip_pages, (ea >> 12) | ((uint64_t)(ipi + 1) << 42), &added), added)
		ia->out.pages++;
	footprint__add(&as->fp, ipi, tid, ea >> 6);
	reg = find_region(as, sp, ea, &shared, &ro);
	lkey = line_key(sp, ea, shared);
	if (u64map__get(&as->all_lines, lkey | (1ULL << 63), &added), added)
		as->tot.lines++;
	if (u64map__get(&as->all_pages, (lkey >> 6) | (1ULL << 63), &added), added)
		as->tot.pages++;
	/* stride: delta to the previous exact address of this IP in this thread */
	key = ((uint64_t)(ipi + 1) << 32) | tid;
	v = ia->out.op.clobbers ? NULL : u64map__get(&as->last_ea, key, &added);
	if (!v) {
		/* approximate: not the address accessed */
	} else if (added) {
		as->eas = xgrow(as->eas, &as->cap_eas, as->nr_eas + 1, sizeof(*as->eas));
		as->eas[as->nr_eas++] = ea;
		*v = as->nr_eas;
		ia->out.nr_threads++;
	} else {
		uint64_t *last = &as->eas[*v - 1];

		if (ia->nr_deltas < AS_MAX_DELTAS) {
			if (!(ia->nr_deltas & (ia->nr_deltas - 1)) || !ia->deltas)
				ia->deltas = xrealloc(ia->deltas, (ia->nr_deltas ? ia->nr_deltas * 2 : 1) *
							      sizeof(*ia->deltas));
			ia->deltas[ia->nr_deltas++] = (int64_t)(ea - *last);
		}
		*last = ea;
	}
	/* region */
	if (reg >= 0) {
		as->regions[reg].r.samples++;
		ia->out.region[as->regions[reg].r.kind]++;
		(*u64map__get(&as->ip_region, ((uint64_t)(ipi + 1) << 32) | (uint32_t)(reg + 1),
			      &added))++;
	}
	/*
	 * A write cannot land in a read-only mapping (it would have faulted):
	 * the register the address came from changed since.  Such a line is
	 * no evidence of who writes what (a libc table "written by threads").
	 */
	if (ia->out.op.write && ro) {
		as->tot.write_ro++;
		return;
	}
	/* cache-line sharing: exact addresses only */
	if (!ia->out.op.clobbers) {
		ia->last_exact = ea;
		ia->last_sp = sp;
		note_line(as, sp, ipi, (int)tid, ea, lkey, &ia->out.op);
	}
}

unsigned int addrsample__default_hz(void)
{
	static unsigned int hz;

	if (!hz)
		hz = sysinfo__hypervisor() > 0 ? AS_GUEST_HZ : AS_DEFAULT_HZ;
	return hz;
}

struct addrsample *addrsample__open(pid_t pid, unsigned int freq_hz, bool enable_on_exec,
				    bool sideband_only, char *why, size_t why_len)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_REGS_USER,
		.sample_regs_user = AS_REGS_MASK,
		/* kernel-mode ticks too: the profile's BPF program, run on this
		 * event, charges them to the user code (they are not decoded) */
		.exclude_kernel = 0,
		.exclude_hv = 1,
		.disabled = enable_on_exec,
		.enable_on_exec = enable_on_exec,
		.comm = 1,
		.comm_exec = 1, /* to notice a second exec (sh -c PROG) */
		/*
		 * mappings and forks: the code, symbols and regions of a child
		 * that is gone before its samples are read
		 */
		.mmap = 1,
		.mmap2 = 1,
		.mmap_data = 1,
		.task = 1,
	};
	struct addrsample *as;

	if (!addrsample__decoder_ready()) {
		snprintf(why, why_len, "capstone cannot open an x86-64 decoder");
		errno = ENOTSUP;
		return NULL;
	}
	as = xcalloc(1, sizeof(*as));
	as->pid = pid;
	as->sym = symbolizer__new();
	as->freq_hz = freq_hz ? freq_hz : addrsample__default_hz();
	attr.sample_period = 1000000000ULL / as->freq_hz;
	if (sideband_only) {
		/* the samples come from elsewhere (addrsample__sink): mappings and tasks only */
		attr.config = PERF_COUNT_SW_DUMMY;
		as->sideband_only = true;
	}
	as->line_size = sysinfo__cacheline();
	if (as->line_size <= 0 || as->line_size > 64 || (as->line_size & (as->line_size - 1)))
		as->line_size = 64;
	{
		struct cache_level c[8];
		int n = sysinfo__caches(c, 8);
		const struct cache_level *l1 = n > 0 ? sysinfo__cache(c, n, 1) : NULL;

		as->l1_sets = l1 && l1->sets > 0 && l1->sets <= AS_SET_WORDS * 64 ? l1->sets : 64;
	}
	as->page_size = (size_t)sysconf(_SC_PAGESIZE);
	as->ring = evring__open(&attr, pid, 6, why, why_len);
	if (!as->ring && (errno == EACCES || errno == EPERM)) {
		/* perf_event_paranoid >= 2: user mode only, nothing to share */
		attr.exclude_kernel = 1;
		as->ring = evring__open(&attr, pid, 6, why, why_len);
	}
	as->kernel_ticks = !attr.exclude_kernel;
	if (!as->ring) {
		int e = errno;

		free(as);
		errno = e;
		return NULL;
	}
	/* attached: the threads running already are not children of pid */
	if (!enable_on_exec)
		evring__add_threads(as->ring, &attr, pid);
	as->tot.period_ns = attr.sample_period;
	return as;
}

void addrsample__sink(void *ctx, const struct perf_event_header *rec)
{
	struct addrsample *as = ctx;

	if (!as->finished)
		on_sample(as, rec);
}

/* A record of the ring: ours until finish, and the profile's (run_shared.side_sink). */
static void on_ring_record(void *ctx, const struct perf_event_header *rec)
{
	struct addrsample *as = ctx;

	if (!as->finished)
		on_sample(as, rec);
	if (as->shared && as->shared->side_sink)
		as->shared->side_sink(as->shared->side_sink_ctx, rec);
}

void addrsample__drain_side(void *ctx)
{
	struct addrsample *as = ctx;

	evring__drain(as->ring, on_ring_record, as);
}

/* The ring's records, then (sideband_only) the samples taken since. */
static void drain(struct addrsample *as)
{
	evring__drain(as->ring, on_ring_record, as);
	if (as->shared && as->shared->regs_drain)
		as->shared->regs_drain(as->shared->regs_drain_ctx);
}

int addrsample__poll(struct addrsample *as)
{
	drain(as);
	return 0;
}

void addrsample__at_exit(struct addrsample *as)
{
	struct aspace *sp;

	drain(as);
	sp = space_find(as, as->pid, false);
	if (sp)
		addrsample__read_maps(as, sp);
}

static struct aspace *space_by_serial(struct addrsample *as, uint32_t serial)
{
	for (int i = 0; i < as->nr_spaces; i++)
		if (as->spaces[i]->serial == serial)
			return as->spaces[i];
	return NULL;
}

static int cmp_ip(const void *a, const void *b)
{
	const struct addr_ip *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return (x->ip > y->ip) - (x->ip < y->ip);
}

static int cmp_region(const void *a, const void *b)
{
	const struct addr_region *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/* The lines loads were sampled at (addr_report.read_lines): sorted, distinct. */
static void read_lines(struct addrsample *as, struct addr_report *p)
{
	size_t n = 0;

	p->read_lines = xcalloc(as->ip_lines.cap + 1, sizeof(*p->read_lines));
	for (size_t k = 0; k < as->ip_lines.cap; k++) {
		uint64_t key = as->ip_lines.keys[k], ipi;

		if (!key)
			continue;
		ipi = (key >> 42) - 1;
		if (ipi >= as->nr_ips || !as->ips[ipi].out.op.read || as->ips[ipi].out.op.write)
			continue;
		p->read_lines[n++] = key & ((1ULL << 42) - 1);
	}
	qsort(p->read_lines, n, sizeof(*p->read_lines), cmp_u64);
	p->nr_read_lines = 0;
	for (size_t i = 0; i < n; i++)
		if (!p->nr_read_lines || p->read_lines[p->nr_read_lines - 1] != p->read_lines[i])
			p->read_lines[p->nr_read_lines++] = p->read_lines[i];
}

/*
 * What each region is, across processes: its name (a file, [heap]) or, for
 * an anonymous mapping, its kind and size.  CLS[r] is region r's class.
 */
static void region_classes(const struct addrsample *as, uint32_t *cls)
{
	struct u64map m = { 0 };
	uint32_t nr = 0;

	for (size_t r = 0; r < as->nr_regions; r++) {
		const struct addr_region *x = &as->regions[r].r;
		uint64_t h = 1469598103934665603ULL ^ (uint64_t)x->kind;
		bool added;
		uint32_t *v;

		if (x->name[0])
			for (const char *c = x->name; *c; c++)
				h = (h ^ (uint8_t)*c) * 1099511628211ULL;
		else
			h = (h ^ (x->end - x->start)) * 1099511628211ULL;
		v = u64map__get(&m, h | 1, &added); /* 0 is the map's empty key */
		if (added)
			*v = nr++;
		cls[r] = *v;
	}
	u64map__free(&m);
}

struct addr_report *addrsample__finish(struct addrsample *as)
{
	struct addr_report *p = xcalloc(1, sizeof(*p));
	uint32_t *cls = xcalloc(as->nr_regions + 1, sizeof(*cls));
	uint64_t *tally = xcalloc(as->nr_regions + 1, sizeof(*tally));
	uint32_t *cnt = xcalloc(as->nr_regions + 1, sizeof(*cnt));
	size_t keep;

	drain(as);
	evring__enable(as->ring, false);
	as->finished = true;
	*p = as->tot;
	p->tier = TIER_SW_ADDR;
	snprintf(p->event, sizeof(p->event), "cpu-clock");
	if (as->sideband_only && as->shared && as->shared->regs_event[0]) {
		snprintf(p->event, sizeof(p->event), "%s", as->shared->regs_event);
		p->period_ns = as->shared->regs_period_ns;
	}
	p->line_size = as->line_size;
	p->l1_sets = as->l1_sets;
	p->lost = evring__lost(as->ring);

	/* per-IP results: stride, top region, location */
	region_classes(as, cls);
	for (size_t i = 0; i < as->nr_ips; i++) {
		struct ip_agg *ia = &as->ips[i];
		uint64_t best = 0;
		int best_reg = -1;

		ia->out.stride_deltas = ia->nr_deltas;
		ia->out.stride = addrsample__stride(ia->deltas, ia->nr_deltas, &ia->out.stride_frac);
		ia->out.stride_monotonic = addrsample__monotonic(ia->deltas, ia->nr_deltas,
								 ia->out.stride);
		ia->out.cyclic_z = addrsample__cyclic_z(ia->deltas, ia->nr_deltas);
		for (size_t r = 0; r < as->nr_regions; r++) {
			cnt[r] = u64map__find(&as->ip_region,
					      ((uint64_t)(i + 1) << 32) | (uint32_t)(r + 1));
			if (cnt[r] > best) {
				best = cnt[r];
				best_reg = (int)r;
			}
			tally[cls[r]] += cnt[r];
		}
		/*
		 * Code several processes ran: each has its own mapping of the
		 * same thing ([heap], a file, an anonymous block of one size),
		 * and their samples add up; the mapping named is the class's
		 * most hit one.
		 */
		if (ia->out.nr_procs > 1 && best_reg >= 0) {
			uint32_t bc = cls[best_reg];

			for (size_t r = 0; r < as->nr_regions; r++)
				if (tally[cls[r]] > tally[bc])
					bc = cls[r];
			best = 0;
			for (size_t r = 0; r < as->nr_regions; r++)
				if (cls[r] == bc && cnt[r] > best) {
					best = cnt[r];
					best_reg = (int)r;
				}
			best = tally[bc];
		}
		for (size_t r = 0; r < as->nr_regions; r++)
			tally[cls[r]] = 0;
		if (best_reg >= 0) {
			const struct addr_region *r = &as->regions[best_reg].r;

			ia->out.top_region_samples = best;
			ia->out.top_region_start = r->start;
			ia->out.top_region_end = r->end;
			snprintf(ia->out.top_region, sizeof(ia->out.top_region), "%s",
				 r->name[0] ? r->name : "anon");
		}
	}
	read_lines(as, p);
	p->nr_ips = 0;
	p->ips = xcalloc(as->nr_ips + 1, sizeof(*p->ips));
	for (size_t i = 0; i < as->nr_ips; i++) {
		if (as->ips[i].stale)
			continue;
		p->ips[p->nr_ips] = as->ips[i].out;
		p->ips[p->nr_ips].agg = (uint32_t)i;
		addr_ip__rebase(&p->ips[p->nr_ips]);
		/* a global's name for the address (the rules point at struct.member) */
		if (as->ips[i].last_exact && as->ips[i].last_sp->maps &&
		    as->ips[i].out.samples * 100 >= as->tot.samples)
			addrsym__data(as->sym, as->ips[i].last_sp->maps, as->ips[i].last_exact,
				      p->ips[p->nr_ips].object, sizeof(p->ips[p->nr_ips].object));
		p->nr_ips++;
	}
	qsort(p->ips, p->nr_ips, sizeof(*p->ips), cmp_ip);
	if (p->nr_ips > AS_KEEP_IPS)
		p->nr_ips = AS_KEEP_IPS;
	for (int i = 0; i < p->nr_ips; i++) {
		/* source lines where the samples are (loading DWARF is not free) */
		bool lines = i < AS_LINE_IPS && p->ips[i].samples * 100 >= p->samples;
		struct aspace *sp = space_by_serial(as, p->ips[i].space);

		if (sp && sp->maps)
			symbolizer__site(as->sym, sp->maps,
					 p->ips[i].op.insn ? p->ips[i].op.insn : p->ips[i].ip, lines,
					 &p->ips[i].loc);
	}
	addrsample__pool_spans(&as->fp, as->nr_ips, p);

	/* regions that were hit */
	p->regions = xcalloc(as->nr_regions + 1, sizeof(*p->regions));
	for (size_t r = 0; r < as->nr_regions; r++)
		if (as->regions[r].r.samples)
			p->regions[p->nr_regions++] = as->regions[r].r;
	qsort(p->regions, p->nr_regions, sizeof(*p->regions), cmp_region);
	if (p->nr_regions > AS_KEEP_REGIONS)
		p->nr_regions = AS_KEEP_REGIONS;

	/* lines threads share (addr_line__shared) */
	keep = 0;
	p->shared = xcalloc(1, sizeof(*p->shared));
	for (size_t i = 0; i < as->nr_lines; i++) {
		const struct line_agg *la = &as->lines[i];
		uint32_t top = top_writer(la);
		const struct procmaps *wmaps = top ? as->ips[top - 1].sp->maps : NULL;
		struct addr_line *o;
		uint64_t seen = 0;
		bool overlap = false;

		if (la->nr < 2 || !top)
			continue;	/* one thread, or nobody wrote it */
		p->shared = xrealloc(p->shared, (keep + 1) * sizeof(*p->shared));
		memset(o = &p->shared[keep], 0, sizeof(*o));
		o->nr_threads = la->nr;
		for (int k = 0; k < la->nr; k++) {
			o->t[k].tid = la->t[k].tid;
			o->t[k].reads = la->t[k].reads, o->t[k].writes = la->t[k].writes;
			o->t[k].rmask = la->t[k].rmask;
			o->t[k].wmask = la->t[k].wmask;
			overlap |= (seen & la->t[k].wmask) != 0;
			seen |= la->t[k].wmask;
		}
		if (!addr_line__shared(o))
			continue;
		keep++;
		o->line = la->line;
		for (int k = 0; k < la->nr; k++) {
			/* what it wrote, or for a thread that only read, what it read */
			uint64_t m = la->t[k].wmask ? la->t[k].wmask : la->t[k].rmask;

			if (wmaps && m && keep <= AS_KEEP_SHARED)
				addrsym__data_decl(as->sym, wmaps, la->line + __builtin_ctzll(m),
						   o->t[k].object, sizeof(o->t[k].object),
						   o->decl_file[0] || !la->t[k].wmask ? NULL :
						   o->decl_file, sizeof(o->decl_file), &o->decl_line);
		}
		o->ip = top ? as->ips[top - 1].out.ip : 0;
		/* different bytes of one object (a mutex's lock word, its owner): shared */
		o->false_sharing = !overlap && !addr_line__one_object(o);
	}
	p->nr_shared = (int)keep;
	qsort(p->shared, p->nr_shared, sizeof(*p->shared), addr_line__cmp_writes);
	if (p->nr_shared > AS_KEEP_SHARED)
		p->nr_shared = AS_KEEP_SHARED;
	free(cls);
	free(tally);
	free(cnt);
	return p;
}

void addrsample__close(struct addrsample *as)
{
	if (!as)
		return;
	if (as->shared && as->shared->hot_insns_ctx == as) {
		as->shared->hot_insns = NULL;
		as->shared->insn_site = NULL;
		as->shared->hot_insns_ctx = NULL;
	}
	if (as->shared && as->shared->side_drain_ctx == as) {
		as->shared->side_drain = NULL;
		as->shared->side_drain_ctx = NULL;
		as->shared->side_ring = NULL;
	}
	evring__close(as->ring);
	symbolizer__free(as->sym);
	for (int i = 0; i < as->nr_spaces; i++)
		space_free(as->spaces[i]);
	for (size_t i = 0; i < as->nr_ips; i++)
		free(as->ips[i].deltas);
	free(as->ips);
	free(as->eas);
	u64map__free(&as->last_ea);
	u64map__free(&as->ip_lines);
	footprint__free(&as->fp);
	u64map__free(&as->ip_pages);
	u64map__free(&as->all_lines);
	u64map__free(&as->all_pages);
	u64map__free(&as->ip_region);
	u64map__free(&as->img_idx);
	u64map__free(&as->line_idx);
	free(as->lines);
	free(as->regions);
	free(as);
}

static int cmp_hot(const void *a, const void *b)
{
	const struct hot_insn *x = a, *y = b;

	return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : 0;
}

/*
 * The access instructions sampled so far (run_shared.hot_insns), most
 * sampled first (op.swept: a breakpoint may go on their start).  IPs that
 * decode to one access (the instructions after it) add up.  Those whose
 * operand is not computable from registers come too: the streams say why.
 */
static int addrsample__hot(void *ctx, struct hot_insn *out, int max)
{
	struct addrsample *as = ctx;
	struct hot_insn *all;
	int n = 0;

	if (max <= 0 || !as->nr_ips)
		return 0;
	all = xcalloc(as->nr_ips, sizeof(*all));
	for (size_t i = 0; i < as->nr_ips; i++) {
		const struct ip_agg *ia = &as->ips[i];
		int k;

		if (ia->stale || !ia->out.op.insn || ia->sp->pid <= 0 ||
		    (ia->out.op.skip != AS_OK && ia->out.op.skip != AS_SEGMENT &&
		     ia->out.op.skip != AS_UNSUPPORTED))
			continue;
		for (k = 0; k < n; k++)
			if (all[k].op.insn == ia->out.op.insn && all[k].pid == ia->sp->pid)
				break;
		if (k == n) {
			all[n].pid = ia->sp->pid;
			all[n].op = ia->out.op;
			n++;
		}
		all[k].samples += addrsample__blamed(&ia->out.op, ia->out.samples, ia->out.decoded);
	}
	qsort(all, n, sizeof(*all), cmp_hot);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}

/* Where INSN of process PID is (run_shared.insn_site), from its last maps. */
static int addrsample__site(void *ctx, pid_t pid, uint64_t insn, struct sym_site *out)
{
	struct addrsample *as = ctx;
	struct aspace *sp = space_find(as, pid, false);

	memset(out, 0, sizeof(*out));
	if (!sp || !sp->maps)
		return -1;
	return symbolizer__site(as->sym, sp->maps, insn, true, out) ? -1 : 0;
}

/* --- collector ops --------------------------------------------------------- */

static bool as_wanted(const struct run_ctx *ctx)
{
	return ctx->sample;
}

static int as_open(void **state, const struct run_ctx *ctx, struct report *r)
{
	char why[160] = "", no_tick[160] = "";
	unsigned int tick_hz = sampler__tick_plan(ctx, no_tick, sizeof(no_tick));
	struct addrsample *as = addrsample__open(ctx->pid, tick_hz ? tick_hz : ctx->freq_hz,
						 !ctx->attached, tick_hz && ctx->shared, why,
						 sizeof(why));

	if (!as) {
		int e = errno;

		report__add_provenance(r, "sw_addr", "data-address sampling unavailable: %s", why);
		return -e;
	}
	*state = as;
	as->shared = ctx->shared;
	if (ctx->shared) {
		ctx->shared->hot_insns = addrsample__hot;
		ctx->shared->insn_site = addrsample__site;
		ctx->shared->hot_insns_ctx = as;
		/* the profile follows the target's processes by this ring's records */
		ctx->shared->side_drain = addrsample__drain_side;
		ctx->shared->side_drain_ctx = as;
		ctx->shared->side_ring = as->ring;
	}
	if (as->sideband_only) {
		/* the profile's programs sample, on the tick (see sampler__tick_plan) */
		ctx->shared->regs_sink = addrsample__sink;
		ctx->shared->regs_sink_ctx = as;
		return 0;
	}
	if (no_tick[0])
		report__add_provenance(r, "sw_addr", "cpu-clock, not the scheduler tick: %s",
				       no_tick);
	if (!ctx->freq_hz && as->freq_hz == AS_GUEST_HZ)
		report__add_provenance(r, "sw_addr", "cpu-clock at %u Hz, the default in a virtualized "
				       "guest, where each timer sample costs exits to the hypervisor "
				       "(-F to change)", as->freq_hz);
	if (ctx->shared && as->kernel_ticks) {
		ctx->shared->nr_sw_fds = evring__fds(as->ring, ctx->shared->sw_fds,
						     (int)ARRAY_SIZE(ctx->shared->sw_fds));
		ctx->shared->sw_hz = as->freq_hz;
		ctx->shared->sw_period_ns = as->tot.period_ns;
	}
	return 0;
}

static int as_poll(void *state)
{
	return addrsample__poll(state);
}

static void as_at_exit(void *state, pid_t pid)
{
	addrsample__at_exit(state);
}

static int as_finish(void *state, struct report *r)
{
	struct addr_report *p = addrsample__finish(state);

	if (p->lost)
		report__add_provenance(r, "sw_addr", "%" PRIu64 " records lost from the data-address "
				       "ring (samples, and mapping records: a program that maps "
				       "memory thousands of times a second overflows it)", p->lost);
	if (p->unreadable)
		report__add_provenance(r, "sw_addr", "%" PRIu64 " samples with unreadable code "
				       "(the target was gone)", p->unreadable);
	addr_profile__free(r->addr);
	r->addr = p;
	return 0;
}

static void as_destroy(void *state)
{
	addrsample__close(state);
}

const struct collector collector_addrsample = {
	.name = "addrsample",
	.wanted = as_wanted,
	.open = as_open,
	.poll = as_poll,
	.at_exit = as_at_exit,
	.finish = as_finish,
	.destroy = as_destroy,
};
