// SPDX-License-Identifier: GPL-2.0-only
/*
 * The processes the profile follows (the target and what it forks): their
 * names, executables and memory-map snapshots, from /proc and from perf's
 * side-band records (fork, exit, comm, mmap2), and which snapshot an
 * address is looked up in.
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/u64map.h"
#include "base/util.h"
#include "model/report.h"
#include "collect/evring.h"

#include "sampler.skel.h"

/* The process's name from /proc (a launched program's, once it has exec'd). */
void prof_proc_read_comm(struct proc *p)
{
	char path[64], buf[sizeof(p->comm)];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p->pid);
	if (!read_line(path, buf, sizeof(buf)))
		memcpy(p->comm, buf, sizeof(p->comm));
}

/* The executable P runs, from /proc (kept as it was when P is gone). */
void prof_proc_read_exe(struct proc *p)
{
	char path[64], buf[sizeof(p->exe)];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = '\0';
	memcpy(p->exe, buf, (size_t)n + 1);
	p->exe_pending = false;
}

struct proc *prof_proc_get(struct prof_state *st, pid_t pid, bool create)
{
	/* by index: a shell loop makes thousands, and every record looks one up */
	uint32_t i = pid > 0 ? u64map__find(&st->proc_idx, (uint64_t)pid) : 0;
	bool added;

	if (i)
		return &st->procs[i - 1];
	if (pid <= 0)
		for (int k = 0; k < st->nr_procs; k++)
			if (st->procs[k].pid == pid)
				return &st->procs[k];
	if (!create)
		return NULL;
	if (st->nr_procs == st->cap_procs) {
		/* pointers into procs are taken anew after every prof_proc_get(..., true) */
		st->cap_procs = st->cap_procs ? 2 * st->cap_procs : 16;
		st->procs = xrealloc(st->procs, st->cap_procs * sizeof(*st->procs));
	}
	memset(&st->procs[st->nr_procs], 0, sizeof(*st->procs));
	st->procs[st->nr_procs].pid = pid;
	if (pid > 0)
		*u64map__get(&st->proc_idx, (uint64_t)pid, &added) = (uint32_t)st->nr_procs + 1;
	return &st->procs[st->nr_procs++];
}

/* Takes a snapshot of PID's maps; keeps it only when the map changed. */
void prof_proc_snapshot(struct prof_state *st, struct proc *p, bool smaps)
{
	struct procmaps *m;

	if (p->exited && !smaps && !p->recs.changed)
		return;
	m = p->exited && !smaps ? NULL : procmaps__capture(p->pid, smaps);
	if (m) {
		prof_proc_read_exe(p);
		p->live = true;
	}
	/* gone already (a short-lived child): what its mapping records said */
	if (!m && !smaps && p->recs.changed) {
		m = maprecs__procmaps(&p->recs, p->pid);
		/*
		 * The records miss what was unmapped: after a snapshot from /proc
		 * they only add mappings made since, as the oldest snapshot (see
		 * prof_finish_regions).
		 */
		if (m && p->live) {
			if (p->nr_snaps == MAX_SNAPS) {
				procmaps__free(m);
				return;
			}
			p->snaps = xrealloc(p->snaps, (p->nr_snaps + 1) * sizeof(*p->snaps));
			memmove(&p->snaps[1], &p->snaps[0], p->nr_snaps * sizeof(*p->snaps));
			p->snaps[0] = m;
			p->nr_snaps++;
			p->recs_first = true;
			return;
		}
	}
	if (!m)
		return;
	if (!smaps && p->nr_snaps && procmaps__same(p->snaps[p->nr_snaps - 1], m)) {
		procmaps__free(m);
		return;
	}
	if (p->nr_snaps == MAX_SNAPS) {
		/*
		 * A map that keeps changing: drop the second oldest snapshot (the
		 * oldest has the start-up libraries), so that fds stay bounded.
		 */
		struct procmaps *old = p->snaps[1];

		if (old == p->at_exit)
			p->at_exit = NULL;
		symbolizer__forget(st->sym, old);
		procmaps__free(old);
		memmove(&p->snaps[1], &p->snaps[2], (MAX_SNAPS - 2) * sizeof(*p->snaps));
		p->nr_snaps--;
	}
	p->snaps = xrealloc(p->snaps, (p->nr_snaps + 1) * sizeof(*p->snaps));
	p->snaps[p->nr_snaps++] = m;
	if (smaps)
		p->at_exit = m;
}

/* Adds a child process to the set thp.bpf.c filters khugepaged activity by. */
static void track_proc(struct prof_state *st, pid_t pid)
{
	__u32 tgid = (__u32)pid;
	__u64 zero = 0;

	if (st->skel && bpf_map_update_elem(bpf_map__fd(st->skel->maps.procs), &tgid, &zero,
					    BPF_NOEXIST) && errno != EEXIST)
		st->procs_full++;
}

/*
 * A record of the side-band ring: perf writes them for the tasks the
 * per-task event follows (the target and everything it forks).
 */
static void on_side_record(void *ctx, const struct perf_event_header *h)
{
	struct prof_state *st = ctx;
	const uint32_t *v = (const void *)(h + 1);
	size_t body = h->size - sizeof(*h);
	struct proc *p, *parent;

	switch (h->type) {
	case PERF_RECORD_FORK: /* pid, ppid, tid, ptid, time */
		if (body < 16 || v[0] == v[1])
			return; /* a new thread */
		p = prof_proc_get(st, (pid_t)v[0], true);
		p->parent = (pid_t)v[1];
		parent = prof_proc_get(st, p->parent, false);
		if (parent && !p->comm[0])
			memcpy(p->comm, parent->comm, sizeof(p->comm));
		if (parent && !p->exe[0])
			memcpy(p->exe, parent->exe, sizeof(p->exe));
		if (parent && !p->recs.n)
			maprecs__copy(&p->recs, &parent->recs);
		track_proc(st, p->pid);
		/*
		 * At the fork its memory is its parent's: a copy of the parent's
		 * newest snapshot stands for reading /proc, which cost a shell
		 * running hundreds of short commands a tenth of its time.  Its
		 * exec, the refresh every MAPS_REFRESH_NS and its exit take its own.
		 */
		if (parent && parent->nr_snaps && !p->nr_snaps) {
			p->snaps = xmalloc(sizeof(*p->snaps));
			p->snaps[0] = procmaps__dup(parent->snaps[parent->nr_snaps - 1], p->pid);
			p->nr_snaps = 1;
			p->live = true;
		} else {
			prof_proc_snapshot(st, p, false);
		}
		break;
	case PERF_RECORD_EXIT: /* pid, ppid, tid, ptid, time */
		if (body < 16 || v[0] != v[2])
			return; /* a thread other than the leader */
		p = prof_proc_get(st, (pid_t)v[0], true);
		prof_fw_proc_exited(st, p);
		p->exited = true;
		prof_proc_snapshot(st, p, false); /* from its records, if it had no maps read */
		break;
	case PERF_RECORD_MMAP2: {
		struct maprec m;
		pid_t pid;

		if (!maprec__parse(h, &pid, &m))
			break;
		p = prof_proc_get(st, pid, true);
		/* an exec maps the program before its interpreter and libraries */
		if (p->exe_pending && (m.prot & PROT_EXEC) && m.path[0] == '/') {
			snprintf(p->exe, sizeof(p->exe), "%s", m.path);
			p->exe_pending = false;
		}
		maprecs__add(&p->recs, &m, (size_t)sysconf(_SC_PAGESIZE));
		break;
	}
	case PERF_RECORD_COMM: /* pid, tid, comm */
		if (body <= 8 || v[0] != v[1])
			return; /* a thread renamed */
		p = prof_proc_get(st, (pid_t)v[0], true);
		snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(body - 8), (const char *)(v + 2));
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* the new image's mappings are recorded next */
			maprecs__clear(&p->recs);
			p->execed = true;
			p->exe[0] = '\0';
			p->exe_pending = true;
			p->live = false;
			prof_proc_snapshot(st, p, false);
		}
		break;
	}
}

/*
 * The side-band ring: a dummy software event on the target, per CPU and
 * inherited, with fork/exit and comm records on.  It never samples.  The
 * sw-addr collector's ring has these records too, and where it is open the
 * profile takes them from there (see run_shared.side_drain).
 */
void prof_open_side(struct prof_state *st, struct report *r)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.task = 1,
		.comm = 1,
		.comm_exec = 1,
		/* mappings: a child gone before its maps were read (code, regions) */
		.mmap = 1,
		.mmap2 = 1,
		.mmap_data = 1,
		.disabled = !st->attached,
		.enable_on_exec = !st->attached,
	};
	char why[160] = "";

	if (st->shared && st->shared->side_drain) {
		st->side_shared = true;
		st->shared->side_sink = on_side_record;
		st->shared->side_sink_ctx = st;
		return;
	}
	/* 64 KiB a CPU: a build's burst of execs writes about 1 KiB of mapping records each */
	st->side = evring__open(&a, st->pid, 4, why, sizeof(why));
	if (!st->side) {
		st->attach_failed++;
		report__add_provenance(r, "profile", "cannot follow the target's processes (%s): "
				       "children's code is not symbolised", why);
		return;
	}
	if (st->attached)
		evring__add_threads(st->side, &a, st->pid);
}

/* The side-band records written since the last drain, to on_side_record. */
void prof_drain_side(struct prof_state *st)
{
	if (st->side)
		evring__drain(st->side, on_side_record, st);
	else if (st->side_shared && st->shared->side_drain)
		st->shared->side_drain(st->shared->side_drain_ctx);
}
static bool same_mapping(const struct procmap *a, const struct procmap *b)
{
	return a && b && a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && !strcmp(a->path, b->path);
}

/*
 * The snapshot of PID (or of its parents) to look ADDR up in: the oldest
 * that maps it as the newest does.  The same address then always gets the
 * same snapshot, and with it the libdwfl session built for it, both while
 * the target runs (prof_warm_symbols) and at the end.
 */
const struct procmaps *prof_maps_for(struct prof_state *st, pid_t pid, uint64_t addr)
{
	int lo;

	for (int depth = 0; depth < 16 && pid > 0; depth++) {
		struct proc *p = prof_proc_get(st, pid, false);

		if (!p)
			return NULL;
		/* the records' snapshot only for what no snapshot from /proc maps */
		lo = p->recs_first && p->nr_snaps > 1;
		for (int i = p->nr_snaps - 1; i >= lo; i--) {
			const struct procmap *pm = procmaps__find(p->snaps[i], addr);

			if (!pm)
				continue;
			for (int j = lo; j < i; j++)
				if (same_mapping(procmaps__find(p->snaps[j], addr), pm))
					return p->snaps[j];
			return p->snaps[i];
		}
		if (lo && procmaps__find(p->snaps[0], addr))
			return p->snaps[0];
		/* A forked child without exec shares its parent's layout. */
		if (p->execed && p->nr_snaps)
			return NULL;
		pid = p->parent;
	}
	return NULL;
}
