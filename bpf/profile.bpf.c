// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * In-kernel aggregation for 'memadvise run': code hot spots (perf_event
 * program on the sampling event), page faults (exceptions tracepoints, and
 * the major-faults software event for minor/major), khugepaged activity on
 * the target's mm, and the set of the target's processes (fork/exec/exit).
 * User space reads the maps at the end; only the rare process events go
 * through the ring buffer, without wakeups (the reader consumes it when it
 * polls: wakeups are expensive, see docs/platform.md).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "profile.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space between open and load. */
const volatile __u32 follow_children = 1; /* add forked children to the process set */
const volatile __u64 bucket_ns = 10000000; /* fault timeline bucket width */
const volatile __u32 nr_buckets = 1;	 /* entries of 'timeline' */

/* Written by user space after load (bss): the object is loaded before the target exists. */
__u32 targ_tgid = 0;	/* the target's thread-group leader */
__u64 t0_ns = 0;	/* CLOCK_MONOTONIC when the target was released */
__u32 active = 0;	/* 1 once the target runs its own program (after exec, or attached) */
__u64 pre_exec_mm = 0;	/* mm of the held child when it called execve */
__u32 procs_gen = 0;
/*
 * 1: on_sample runs on the sw-addr event, whose ring user space reads:
 * user-mode samples go on to it.  (Not an attach cookie: the events that
 * threads and children inherit carry the program but not the cookie.)
 */
__u32 pass_user = 0;	/* changes when 'procs' gains a process or one execs */

#define USER_ADDR_MAX 0x00007ffffffff000ULL

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tgid */
	__type(value, __u64);		/* its mm, once seen faulting (0 before) */
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);		/* mm */
	__type(value, __u32);		/* tgid */
} mms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct prof_hot_key);
	__type(value, struct prof_hot_val);
} hot SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROF_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct prof_stack_key);
	__type(value, struct prof_hot_val);
} stack_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct prof_fault_site_key);
	__type(value, struct prof_fault_val);
} fault_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* 32 GiB of touched address space */
	__type(key, struct prof_chunk_key);
	__type(value, struct prof_chunk_val);
} fault_chunks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* resized before load */
	__type(key, __u32);
	__type(value, struct prof_bucket);
} timeline SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tgid */
	__type(value, struct prof_thp_val);
} thp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct prof_fault_cache);
} fault_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROF_ST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* The map's value for KEY, inserted as INIT first when there is none; NULL when full. */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *init)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

/* Adds one sample to a counter found by lookup_or_init(); false when the map was full. */
static __always_inline bool count_sample(struct prof_hot_val *v, __u64 period, bool kernel)
{
	if (!v)
		return false;
	__sync_fetch_and_add(&v->samples, 1);
	__sync_fetch_and_add(&v->period_sum, period);
	if (kernel)
		__sync_fetch_and_add(&v->kernel_samples, 1);
	return true;
}

static __always_inline void stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &idx);

	if (v)
		*v += 1;
}

/*
 * The tgid of the current task when it is one of the target's processes, else
 * 0; *slot (when given) points to its 'procs' value (its mm).
 */
static __always_inline __u32 tracked_tgid(__u64 **slot)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 *known;

	if (!tgid)
		return 0;
	known = bpf_map_lookup_elem(&procs, &tgid);
	if (!known)
		return 0;
	if (!active) {
		/* A launched target counts from the moment execve switched its mm. */
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		__u64 mm = (__u64)BPF_CORE_READ(task, mm);

		if (tgid != targ_tgid || !pre_exec_mm || mm == pre_exec_mm)
			return 0;
		active = 1;
	}
	if (slot)
		*slot = known;
	return tgid;
}

/* Remember the mm of a tracked process, for the khugepaged filter. */
static __always_inline void note_mm(__u32 tgid, __u64 *known)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 mm = (__u64)BPF_CORE_READ(task, mm);

	if (*known == mm || !mm)
		return;
	*known = mm;
	bpf_map_update_elem(&mms, &mm, &tgid, BPF_ANY);
}

/* The user-mode ip of the current task (for events taken in kernel mode). */
static __always_inline __u64 user_ip(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	return regs ? BPF_CORE_READ(regs, ip) : 0;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = tracked_tgid(NULL);
	struct prof_hot_key hk = {};
	struct prof_stack_key sk = {};
	struct prof_hot_val *v, zero = {};
	__u64 period = ctx->sample_period ? ctx->sample_period : 1;
	bool kernel = ctx->regs.ip >> 63; /* a kernel address */
	/* The event's index in user space's table travels as the attach cookie. */
	__u32 ev = (__u32)bpf_get_attach_cookie(ctx) & (PROF_MAX_EVENTS - 1);
	/* non-zero: perf writes the sample to the event's ring as well */
	int pass = pass_user && !kernel;

	if (!tgid)
		return pass;
	stat_inc(PROF_ST_SAMPLES);
	if (kernel)
		stat_inc(PROF_ST_SAMPLES_KERNEL);

	hk.tgid = tgid;
	hk.tid = (__u32)id;
	hk.ip = kernel ? user_ip() : ctx->regs.ip;
	hk.ev = ev;
	v = lookup_or_init(&hot, &hk, &zero);
	if (!count_sample(v, period, kernel))
		stat_inc(PROF_ST_HOT_FULL);

	sk.tgid = tgid;
	sk.stackid = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	sk.ev = ev;
	if (sk.stackid < 0) {
		stat_inc(PROF_ST_STACK_ERR);
		return pass;
	}
	v = lookup_or_init(&stack_counts, &sk, &zero);
	if (!count_sample(v, period, kernel))
		stat_inc(PROF_ST_STACK_FULL);
	return pass;
}

/* The chunk's entry, created empty on first use (NULL when the map is full). */
static __always_inline struct prof_chunk_val *chunk_of(struct prof_chunk_key *ck)
{
	static const struct prof_chunk_val empty = {};
	struct prof_chunk_val *cv = bpf_map_lookup_elem(&fault_chunks, ck);

	if (cv)
		return cv;
	bpf_map_update_elem(&fault_chunks, ck, &empty, BPF_NOEXIST);
	return bpf_map_lookup_elem(&fault_chunks, ck);
}

static __always_inline void flush_site(struct prof_fault_cache *c)
{
	struct prof_fault_val *fv, fzero = {};

	fv = lookup_or_init(&fault_sites, &c->fk, &fzero);
	if (fv) {
		__sync_fetch_and_add(&fv->count, c->fv.count);
		fv->last_addr = c->fv.last_addr;
		if (c->fv.writes)
			__sync_fetch_and_add(&fv->writes, c->fv.writes);
		if (c->fv.instr)
			__sync_fetch_and_add(&fv->instr, c->fv.instr);
	} else {
		__u32 idx = c->fk.kernel ? PROF_ST_SITE_FULL_KERNEL : PROF_ST_SITE_FULL;
		__u64 *v = bpf_map_lookup_elem(&stats, &idx);

		if (v)
			*v += c->fv.count;
		idx = PROF_ST_SITE_FULL_WRITE;
		v = bpf_map_lookup_elem(&stats, &idx);
		if (v)
			*v += c->fv.writes;
	}
	c->fv.count = c->fv.writes = c->fv.instr = 0;
}

static __always_inline void flush_chunk(struct prof_fault_cache *c)
{
	struct prof_chunk_val *cv = chunk_of(&c->ck);

	if (cv) {
		for (int w = 0; w < PROF_CHUNK_PAGES / 64; w++)
			if (c->cv.pages[w])
				__sync_fetch_and_or(&cv->pages[w], c->cv.pages[w]);
		__sync_fetch_and_add(&cv->faults, c->cv.faults);
		if (c->cv.writes)
			__sync_fetch_and_add(&cv->writes, c->cv.writes);
	} else {
		__u32 idx = PROF_ST_PAGE_FULL;
		__u64 *v = bpf_map_lookup_elem(&stats, &idx);

		if (v)
			*v += c->cv.faults;
	}
	for (int w = 0; w < PROF_CHUNK_PAGES / 64; w++)
		c->cv.pages[w] = 0;
	c->cv.faults = c->cv.writes = 0;
}

static __always_inline void flush_bucket(struct prof_fault_cache *c)
{
	__u32 idx = c->t_idx;
	struct prof_bucket *b = bpf_map_lookup_elem(&timeline, &idx);

	if (b)
		__sync_fetch_and_add(&b->faults, c->t_faults);
	c->t_faults = 0;
}

/*
 * The clock is read once per FAULT_CLOCK_EVERY faults of a run (and when the
 * run changes): a fault storm moves a bucket boundary by at most that many
 * faults, a few microseconds, and saves a clock read on most faults.
 */
#define FAULT_CLOCK_EVERY 16

/*
 * The tgid of the current task when it is one of the target's processes,
 * else 0, for a fault: the per-CPU cache C remembers the last thread that
 * faulted here, so a storm of faults from one thread searches 'procs' (and
 * notes the mm) once.
 */
static __always_inline __u32 fault_tgid(struct prof_fault_cache *c)
{
	__u64 id = bpf_get_current_pid_tgid(), *known = NULL;
	__u32 gen = procs_gen, tgid;

	if (c->who_id == id && c->who_gen == gen && active)
		return c->who_tgid;
	tgid = tracked_tgid(&known);
	if (tgid && known)
		note_mm(tgid, known);
	else
		tgid = 0;
	if (active) {
		c->who_id = id;
		c->who_gen = gen;
		c->who_tgid = tgid;
	}
	return tgid;
}

static __always_inline void count_fault(struct prof_fault_cache *c, __u32 tgid, __u64 addr,
					__u64 ip, __u64 ecode, __u32 kernel)
{
	__u32 pg = (addr >> PROF_PAGE_SHIFT) & (PROF_CHUNK_PAGES - 1);
	__u64 chunk = addr >> PROF_CHUNK_SHIFT;
	bool write = ecode & 2;
	__u32 idx;
	__u64 now;

	/* totals are the sums of the sites (plus the stats when the map is full) */
	if (c->fv.count && (c->fk.tgid != tgid || c->fk.kernel != kernel || c->fk.ip != ip)) {
		flush_site(c);
		c->t_left = 0;	/* a new run: read the clock */
	}
	c->fk.tgid = tgid;
	c->fk.kernel = kernel;
	c->fk.ip = ip;
	c->fv.count++;
	c->fv.last_addr = addr;
	if (write)
		c->fv.writes++;
	if (ecode & 16)
		c->fv.instr++;

	if (c->cv.faults && (c->ck.tgid != tgid || c->ck.chunk != chunk))
		flush_chunk(c);
	c->ck.tgid = tgid;
	c->ck.chunk = chunk;
	c->cv.pages[(pg >> 6) & (PROF_CHUNK_PAGES / 64 - 1)] |= 1ULL << (pg & 63);
	c->cv.faults++;
	if (write)
		c->cv.writes++;

	if (c->t_faults && c->t_left) {
		c->t_left--;
		c->t_faults++;
		return;
	}
	/* before t0 is set (the target is being released): the first bucket */
	now = bpf_ktime_get_ns();
	if (!t0_ns || now < t0_ns)
		now = t0_ns;
	idx = (now - t0_ns) / (bucket_ns ? bucket_ns : 1);
	if (idx >= nr_buckets) {
		if (c->t_faults)
			flush_bucket(c);
		stat_inc(PROF_ST_TIMELINE_LATE);
		return;
	}
	if (c->t_faults && c->t_idx != idx)
		flush_bucket(c);
	c->t_idx = idx;
	c->t_faults++;
	c->t_left = FAULT_CLOCK_EVERY - 1;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(on_fault_user, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	__u32 zero = 0, tgid;
	struct prof_fault_cache *c = bpf_map_lookup_elem(&fault_cache, &zero);

	if (!c)
		return 0;
	tgid = fault_tgid(c);
	if (tgid)
		count_fault(c, tgid, address, regs->ip, error_code, 0); /* BTF pointer: a plain load */
	return 0;
}

/* Faults on user addresses taken in kernel mode (copy_to/from_user): perf's
 * page-faults counter counts them too. */
SEC("tp_btf/page_fault_kernel")
int BPF_PROG(on_fault_kernel, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	__u32 zero = 0, tgid;
	struct prof_fault_cache *c;

	if (address >= USER_ADDR_MAX)
		return 0;
	/*
	 * With page faults disabled (copy_from_user_nofault: our own user-stack
	 * walks, probe reads) the fault is not handled, only failed: perf does
	 * not count it and neither do we.
	 */
	if (bpf_get_current_task_btf()->pagefault_disabled) {
		if (tracked_tgid(NULL))
			stat_inc(PROF_ST_FAULTS_NOFAULT);
		return 0;
	}
	c = bpf_map_lookup_elem(&fault_cache, &zero);
	if (!c)
		return 0;
	tgid = fault_tgid(c);
	if (tgid)
		count_fault(c, tgid, address, user_ip(), error_code, 1);
	return 0;
}

/* The major-faults software event, period 1: ctx->addr is the fault address.
 * It fires after the fault was handled, so the site and page exist already. */
SEC("perf_event")
int on_major(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = tracked_tgid(NULL);
	bool kernel = ctx->regs.ip >> 63; /* a kernel address */
	struct prof_fault_site_key fk = {};
	struct prof_chunk_key ck = {};
	struct prof_fault_val *fv, fzero = {};
	struct prof_chunk_val *cv;
	struct prof_bucket *b;
	__u64 now;
	__u32 idx;

	if (!tgid)
		return 0;
	stat_inc(PROF_ST_FAULTS_MAJOR);
	fk.tgid = tgid;
	fk.kernel = kernel;
	fk.ip = kernel ? user_ip() : ctx->regs.ip;
	fv = lookup_or_init(&fault_sites, &fk, &fzero);
	if (fv)
		__sync_fetch_and_add(&fv->major, 1);
	ck.tgid = tgid;
	ck.chunk = ctx->addr >> PROF_CHUNK_SHIFT;
	cv = bpf_map_lookup_elem(&fault_chunks, &ck);
	if (cv)
		__sync_fetch_and_add(&cv->major, 1);

	/* before t0 is set (the target is being released): the first bucket */
	now = bpf_ktime_get_ns();
	if (!t0_ns || now < t0_ns)
		now = t0_ns;
	idx = (now - t0_ns) / (bucket_ns ? bucket_ns : 1);
	if (idx < nr_buckets) {
		b = bpf_map_lookup_elem(&timeline, &idx);
		if (b)
			__sync_fetch_and_add(&b->major, 1);
	}
	return 0;
}

static __always_inline void proc_event(__u32 kind, __u32 tgid, __u32 parent)
{
	struct prof_proc_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(PROF_ST_RB_DROP);
		return;
	}
	e->kind = kind;
	e->tgid = tgid;
	e->parent = parent;
	e->_pad = 0;
	e->time_ns = bpf_ktime_get_ns();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u64 zero = 0;

	if (!follow_children || ptgid == ctgid || !active)
		return 0;
	if (!bpf_map_lookup_elem(&procs, &ptgid))
		return 0;
	if (bpf_map_update_elem(&procs, &ctgid, &zero, BPF_NOEXIST)) {
		stat_inc(PROF_ST_PROCS_FULL);
		return 0;
	}
	__sync_fetch_and_add(&procs_gen, 1);
	proc_event(PROF_PROC_FORK, ctgid, ptgid);
	return 0;
}

/* The held child starts exec: remember its old mm, counting starts when it changes. */
SEC("tp_btf/sched_prepare_exec")
int BPF_PROG(on_prepare_exec, struct task_struct *task, struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (active || tgid != targ_tgid)
		return 0;
	pre_exec_mm = (__u64)BPF_CORE_READ(task, mm);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	if (tgid == targ_tgid)
		active = 1;
	if (!active)
		return 0;
	/* a new mm: fault_tgid() notes it again */
	__sync_fetch_and_add(&procs_gen, 1);
	proc_event(PROF_PROC_EXEC, tgid, 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	if ((__u32)id != tgid || !active || !bpf_map_lookup_elem(&procs, &tgid))
		return 0;
	proc_event(PROF_PROC_EXIT, tgid, 0);
	return 0;
}

static __always_inline struct prof_thp_val *thp_of(__u64 mm)
{
	struct prof_thp_val zero = {};
	__u32 *tgid = bpf_map_lookup_elem(&mms, &mm);
	struct prof_thp_val *v;

	if (!tgid)
		return NULL;
	v = lookup_or_init(&thp, tgid, &zero);
	if (v)
		stat_inc(PROF_ST_THP_EVENTS);
	return v;
}

/* Only the mm is read: the other arguments changed across kernel versions. */
SEC("tp_btf/mm_khugepaged_scan_pmd")
int BPF_PROG(on_scan_pmd, struct mm_struct *mm)
{
	struct prof_thp_val *v = thp_of((__u64)mm);

	if (v)
		__sync_fetch_and_add(&v->scan_pmd, 1);
	return 0;
}

SEC("tp_btf/mm_collapse_huge_page")
int BPF_PROG(on_collapse, struct mm_struct *mm, int isolated, int status)
{
	struct prof_thp_val *v = thp_of((__u64)mm);

	if (v) {
		if (status == 1)
			__sync_fetch_and_add(&v->collapse_ok, 1);
		else
			__sync_fetch_and_add(&v->collapse_fail, 1);
	}
	return 0;
}
