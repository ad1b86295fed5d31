// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fault windows (see "fault windows" in internal.h): in a fault storm the
 * page-faults event is open only in windows, and the faults between them
 * are counted from the processes' own counters.
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"

#include "sampler.skel.h"

/*
 * The faults of process PID (all its threads, alive or gone): its own
 * (minflt + majflt) and those of the children it has reaped (cminflt +
 * cmajflt), where a child that ends between two reads is counted in full.
 */
static bool proc_faults(pid_t pid, uint64_t *own, uint64_t *children)
{
	char path[64], buf[1024], *p;
	unsigned long long v[4];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	/* after the name in parentheses: state ppid pgrp session tty tpgid flags minflt cminflt majflt */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3]) != 4)
		return false;
	*own = v[0] + v[2];
	*children = v[1] + v[3];
	return true;
}

int prof_cmp_site_key(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

void prof_fw_snap_free(struct fw_snapshot *x)
{
	free(x->e[0]);
	free(x->e[1]);
	memset(x, 0, sizeof(*x));
}

/* One map's periods now, sorted by key: the fault sites' or the chunks'. */
static int fw_snap_map(int fd, size_t vsz, size_t off, struct site_snap **out)
{
	unsigned char k[16];
	char *v = xmalloc(vsz);
	struct map_iter it;
	struct site_snap *s = NULL;
	int n = 0, cap = 0;

	prof_map_iter_init(&it, fd, sizeof(k), vsz);
	while (prof_map_iter_next(&it, k, v)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			s = xrealloc(s, cap * sizeof(*s));
		}
		memcpy(s[n].k, k, sizeof(k));
		memcpy(&s[n++].periods, v + off, sizeof(uint64_t));
	}
	free(v);
	prof_sort_array(s, n, sizeof(*s), prof_cmp_site_key);
	*out = s;
	return n;
}

static void fw_snap(struct prof_state *st, struct fw_snapshot *x)
{
	x->n[0] = fw_snap_map(bpf_map__fd(st->skel->maps.fault_sites), sizeof(struct prof_fault_val),
			      offsetof(struct prof_fault_val, count), &x->e[0]);
	x->n[1] = fw_snap_map(bpf_map__fd(st->skel->maps.fault_chunks), sizeof(struct prof_chunk_val),
			      offsetof(struct prof_chunk_val, faults), &x->e[1]);
}

/* CUR - OLD (both sorted): the periods added in between, in CUR. */
static int fw_snap_diff(struct site_snap *cur, int n, const struct site_snap *old, int nr_old)
{
	int out = 0;

	for (int i = 0; i < n; i++) {
		const struct site_snap *o = nr_old ? bsearch(cur[i].k, old, nr_old, sizeof(*old),
							    prof_cmp_site_key) : NULL;
		uint64_t before = o ? o->periods : 0;

		if (cur[i].periods > before) {
			memcpy(cur[out].k, cur[i].k, sizeof(cur[i].k));
			cur[out++].periods = cur[i].periods - before;
		}
	}
	return out;
}

/* The gap's faults in proportion to X's periods (into them). */
void prof_fw_snap_share(struct site_snap *x, int n, uint64_t faults)
{
	uint64_t **v = xcalloc(n ? n : 1, sizeof(*v)), sum = 0;

	for (int i = 0; i < n; i++) {
		sum += x[i].periods;
		v[i] = &x[i].periods;
	}
	prof_apportion(v, n, sum, faults);
	free(v);
}

/* Spreads N faults counted over [A, B) over the timeline buckets they cover. */
static void fw_bucket(struct prof_state *st, uint64_t a, uint64_t b, uint64_t n)
{
	struct fault_win *fw = &st->fw;
	uint64_t ia, ib, given = 0;

	if (!n)
		return;
	if (!fw->buckets)
		fw->buckets = xcalloc(NR_BUCKETS, sizeof(*fw->buckets));
	a = a > st->t0 ? a - st->t0 : 0;
	b = b > st->t0 ? b - st->t0 : 0;
	if (b <= a)
		a = b ? b - 1 : 0;
	ia = a / BUCKET_NS;
	ib = (b - 1) / BUCKET_NS;
	if (ib >= NR_BUCKETS)
		ib = NR_BUCKETS - 1;
	if (ia > ib)
		ia = ib;
	for (uint64_t i = ia; i < ib; i++) {
		uint64_t end = (i + 1) * BUCKET_NS, start = i == ia ? a : i * BUCKET_NS;
		uint64_t part = (uint64_t)((unsigned __int128)n * (end - start) / (b - a));

		fw->buckets[i] += part;
		given += part;
	}
	fw->buckets[ib] += n - given;
}

/*
 * Process P is done: its parent, when it reaps P, gets P's faults in its
 * children's count, of which what was counted of P (its last read) is a debt
 * paid off that count.  Without a parent being read, the faults since P's
 * last read are lost (it was reaped unread, or by a process not followed).
 */
static void fw_proc_done(struct prof_state *st, struct proc *p, bool read)
{
	struct proc *parent = p->parent ? prof_proc_get(st, p->parent, false) : NULL;

	p->flt_done = true;
	if (parent && !parent->flt_done)
		parent->flt_debt += p->flt_own + p->flt_c;
	else if (!read)
		st->fw.lost++;
}

/* Reads P: the faults since its last read, 0 when it is gone. */
static uint64_t fw_read_proc(struct prof_state *st, struct proc *p)
{
	uint64_t own, c, d_own, d_c, pay;

	if (!proc_faults(p->pid, &own, &c)) {
		fw_proc_done(st, p, false);
		return 0;
	}
	d_own = own > p->flt_own ? own - p->flt_own : 0;
	d_c = c > p->flt_c ? c - p->flt_c : 0;
	pay = d_c < p->flt_debt ? d_c : p->flt_debt;
	p->flt_debt -= pay;
	p->flt_own = own;
	p->flt_c = c;
	if (p->exited) /* a zombie: its counts are final */
		fw_proc_done(st, p, true);
	return d_own + d_c - pay;
}

/* Reads the processes not done yet: the faults they added since. */
static uint64_t fw_read_procs(struct prof_state *st)
{
	uint64_t sum = 0;

	for (int i = 0; i < st->nr_procs; i++)
		if (!st->procs[i].flt_done)
			sum += fw_read_proc(st, &st->procs[i]);
	return sum;
}

/* The own faults of the processes not ended: a rate, not a count (see prof_fw_poll). */
static uint64_t fw_own_faults(struct prof_state *st)
{
	uint64_t sum = 0, own, c;

	for (int i = 0; i < st->nr_procs; i++)
		if (!st->procs[i].exited && !st->procs[i].flt_done &&
		    proc_faults(st->procs[i].pid, &own, &c))
			sum += own;
	return sum;
}

/* The faults since the gap's last count, into the gap and the timeline. */
uint64_t prof_fw_gap_count(struct prof_state *st, uint64_t now)
{
	struct fault_win *fw = &st->fw;
	uint64_t n = fw_read_procs(st) + fw->pending;

	fw->pending = 0;
	fw->gaps[fw->nr_gaps - 1].faults += n;
	fw->gap_faults += n;
	fw_bucket(st, fw->gap_last_t, now, n);
	fw->gap_last_t = now;
	return n;
}

/* A process ended (its exit record): between windows, its last count now. */
void prof_fw_proc_exited(struct prof_state *st, struct proc *p)
{
	if (!st->fw.on || st->fw.open || !st->fw.nr_gaps || p->flt_done)
		return;
	p->exited = true;
	st->fw.pending += fw_read_proc(st, p);
}

/* Closes the event at NOW; SNAP: the maps now (taken over). */
static void fw_close(struct prof_state *st, uint64_t now, struct fw_snapshot *snap)
{
	struct fault_win *fw = &st->fw;
	struct fault_gap *g;
	uint64_t c = 0;

	for (int i = 0; i < st->faults.nr; i++)
		ioctl(st->faults.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	if (read_counts_sum(st->faults.fds, st->faults.nr, &c, NULL, NULL))
		fw->closed += c;
	/*
	 * The counts the gap starts from: faults after the disable are the
	 * gap's.  A process that ended in the window was counted there; so is
	 * a zombie, whose parent's children's count will grow by it.
	 */
	for (int i = 0; i < st->nr_procs; i++) {
		struct proc *p = &st->procs[i];

		if (p->flt_done)
			continue;
		if (!proc_faults(p->pid, &p->flt_own, &p->flt_c))
			p->flt_done = true;
		else if (p->exited)
			fw_proc_done(st, p, true);
	}
	prof_close_fds(st->faults.fds, st->faults.links, st->faults.nr);
	memset(&st->faults, 0, sizeof(st->faults));
	fw->open = false;
	fw->open_ns += now - fw->t_open;
	fw->gaps = xrealloc(fw->gaps, (fw->nr_gaps + 1) * sizeof(*fw->gaps));
	g = &fw->gaps[fw->nr_gaps++];
	g->faults = 0;
	for (int m = 0; m < 2; m++)
		snap->n[m] = fw_snap_diff(snap->e[m], snap->n[m], fw->arm.e[m], fw->arm.n[m]);
	g->last = *snap;
	prof_fw_snap_free(&fw->arm);
	fw->armed = false;
	fw->gap_t0 = fw->gap_last_t = now;
	fw->gap_procs = st->nr_procs;
	fw->odd = 0;
	pr_debug("profile: fault window %d closed after %.0f ms at %.0f faults/s",
		 fw->nr, (now - fw->t_open) / 1e6, fw->rate);
}

/* Opens the event again on every thread of every process not ended. */
static void fw_reopen(struct prof_state *st, uint64_t now)
{
	struct fault_win *fw = &st->fw;
	struct task_event *te = &st->faults;
	struct perf_event_attr attr = fw->attr;
	int cap = 0, err = 0;

	attr.disabled = 1;
	attr.enable_on_exec = 0;
	attr.inherit = 1;
	for (int i = 0; i < st->nr_procs; i++)
		if (!st->procs[i].exited && !st->procs[i].flt_done)
			prof_task_event_add_threads(te, &cap, &attr, st->skel->progs.on_fault,
					       st->procs[i].pid, &err);
	/* the gap ends where the new events start counting */
	prof_fw_gap_count(st, now);
	if (!te->nr) {
		if (err) {
			fw->reopen_failed++;
			pr_debug("profile: cannot open the page-faults event again: %s", strerror(-err));
		}
		prof_close_fds(te->fds, te->links, 0);
		memset(te, 0, sizeof(*te));
		return;	/* counted from /proc until the end */
	}
	for (int i = 0; i < te->nr; i++)
		ioctl(te->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	fw->open = true;
	fw->nr++;
	fw->t_open = fw->last_t = now_ns();
	fw->last_count = fw_own_faults(st);
	fw->storm_t = 0;
	pr_debug("profile: fault window %d opened after a gap of %.0f ms (%" PRIu64 " faults)",
		 fw->nr, (now - fw->gap_t0) / 1e6, fw->gaps[fw->nr_gaps - 1].faults);
}

void prof_fw_poll(struct prof_state *st, uint64_t now)
{
	struct fault_win *fw = &st->fw;
	uint64_t c, len, before;
	double rate;

	if (!fw->on || fw->frozen || !st->started || !st->faults_ok)
		return;
	if (!fw->open) {
		before = fw->gap_last_t;
		if (now - before < 5000000)
			return;
		rate = prof_fw_gap_count(st, now) * 1e9 / (now - before);
		fw->odd = rate > 2 * fw->rate || rate < fw->rate / 2 ? fw->odd + 1 : 0;
		/* a new process is a new phase: the window before has none of its sites */
		if (now - fw->gap_t0 >= FW_GAP_NS || rate < FW_STORM || fw->odd >= 2 ||
		    st->nr_procs > fw->gap_procs)
			fw_reopen(st, now);
		return;
	}
	/*
	 * The rate from /proc, not from the event: reading a per-task event
	 * whose task runs on another CPU interrupts that CPU (an IPI, a VM
	 * exit in a guest) every poll.
	 */
	if (now - fw->last_t < 5000000)
		return;
	c = fw_own_faults(st);
	rate = c > fw->last_count ? (c - fw->last_count) * 1e9 / (now - fw->last_t) : 0;
	fw->last_count = c;
	fw->last_t = now;
	if (rate < FW_STORM) {
		prof_fw_snap_free(&fw->arm);	/* the storm starts again from here */
		fw->armed = false;
		fw->storm_t = 0;
		return;
	}
	/*
	 * The interval up to the storm's first poll may hold the phase before
	 * it (a program's first touches, then its storm at the same rate): the
	 * snapshots start one poll later.
	 */
	if (!fw->storm_t)
		fw->storm_t = now;
	len = fw->nr == 1 ? FW_FIRST_NS : FW_NEXT_NS;
	if (now - fw->t_open + FW_ARM_LEAD_NS < len || now - fw->storm_t < FW_ARM_NS)
		return;
	if (fw->armed && now - fw->arm_t >= FW_ARM_NS && now - fw->t_open >= len) {
		struct fw_snapshot snap;

		fw_snap(st, &snap);
		fw->rate = rate;
		fw_close(st, now, &snap);
		return;
	}
	if (!fw->armed || now - fw->arm_t >= FW_ARM_NS) {
		prof_fw_snap_free(&fw->arm);
		fw_snap(st, &fw->arm);
		fw->armed = true;
		fw->arm_t = now;
	}
}

/* The last count of a gap the run ends in (once). */
void prof_fw_final(struct prof_state *st)
{
	struct fault_win *fw = &st->fw;

	if (fw->frozen)
		return;
	fw->frozen = true;
	if (fw->on && !fw->open && fw->nr_gaps)
		prof_fw_gap_count(st, now_ns());
}

/* The page-faults event's count over all windows (false: it never opened). */
bool prof_fw_window_count(struct prof_state *st, uint64_t *n)
{
	uint64_t c = 0;

	if (!st->faults_ok)
		return false;
	if (st->faults.nr && !prof_task_event_count(&st->faults, &c))
		return false;
	*n = st->fw.closed + c;
	return true;
}

/* The counters' page_faults (event_set__provide). */
bool prof_fw_provide(void *ctx, struct provided_count *out)
{
	struct prof_state *st = ctx;
	uint64_t ena = 0, run = 0, w;

	prof_fw_final(st);
	if (!prof_fw_window_count(st, &w))
		return false;
	out->count = w + st->fw.gap_faults;
	if (!st->fw.nr_gaps) {
		if (st->faults.nr)
			read_counts_sum(st->faults.fds, st->faults.nr, &w, &ena, &run);
		out->enabled_ns = ena;
		out->running_ns = run;
		snprintf(out->note, sizeof(out->note), "the fault sampler's count");
	} else {
		/* complete: the processes' own counts between the windows */
		out->enabled_ns = out->running_ns = now_ns() - st->t_start;
		snprintf(out->note, sizeof(out->note),
			 "the fault sampler's windows and /proc/PID/stat between");
	}
	return true;
}
