// SPDX-License-Identifier: GPL-2.0-only
/*
 * One refresh of 'memadvise top' from /proc: every process's CPU time,
 * faults and RSS from /proc/PID/stat (threads from /proc/PID/task/TID/stat),
 * huge pages from /proc/PID/smaps_rollup (read for processes that ran or
 * faulted since the last refresh: smaps_rollup walks the page tables, and
 * an idle process's pages do not change), the machine's from /proc/meminfo,
 * /proc/vmstat and khugepaged's sysfs counters.  Kernel threads have no
 * memory of their own and are left out, as htop does by default.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect/top/internal.h"
#include "base/util.h"
#include "machine/caps.h"
#include "machine/sysinfo.h"
#include "symbols/symbolizer.h"

#define PF_KTHREAD 0x00200000
#define TOP_THP_NS (5 * 1000000000ULL)

/* What /proc/PID/stat says (fields as proc(5) numbers them). */
struct pstat {
	char comm[16];
	char state;
	unsigned long flags;			/* 9 */
	unsigned long long minflt, majflt;	/* 10, 12 */
	unsigned long long utime, stime;	/* 14, 15 */
	long nr_threads;			/* 20 */
	unsigned long long start_time;		/* 22 */
	long rss;				/* 24, pages */
};

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

static int pstat_read(const char *path, struct pstat *s)
{
	char buf[1024], *open_p, *close_p;
	size_t n;

	if (read_small(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	open_p = strchr(buf, '(');
	close_p = strrchr(buf, ')');
	if (!open_p || !close_p || close_p < open_p)
		return -EINVAL;
	n = (size_t)(close_p - open_p - 1);
	if (n >= sizeof(s->comm))
		n = sizeof(s->comm) - 1;
	memcpy(s->comm, open_p + 1, n);
	s->comm[n] = '\0';
	/* 3 state ... 24 rss */
	if (sscanf(close_p + 2, "%c %*d %*d %*d %*d %*d %lu %llu %*u %llu %*u %llu %llu %*d %*d "
		   "%*d %*d %ld %*d %llu %*u %ld", &s->state, &s->flags, &s->minflt, &s->majflt,
		   &s->utime, &s->stime, &s->nr_threads, &s->start_time, &s->rss) != 9)
		return -EINVAL;
	return 0;
}

/* Anonymous and AnonHugePages of smaps_rollup, in bytes. */
static int rollup_read(pid_t pid, uint64_t *anon, uint64_t *huge)
{
	char path[64], buf[4096];
	bool a = false, h = false;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -EACCES;
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long kb;

		if (sscanf(l, "Anonymous: %llu kB", &kb) == 1) {
			*anon = kb * 1024;
			a = true;
		} else if (sscanf(l, "AnonHugePages: %llu kB", &kb) == 1) {
			*huge = kb * 1024;
			h = true;
		}
	}
	return a && h ? 0 : -ENODATA;
}

static int pstate_cmp(const void *a, const void *b)
{
	const struct top_pstate *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return 0;
}

static const struct top_pstate *find_in(const struct top_pstate *v, int n, pid_t pid)
{
	struct top_pstate key = { .pid = pid };

	return n ? bsearch(&key, v, n, sizeof(*v), pstate_cmp) : NULL;
}

/* The state of process PID (in thread mode: of its main thread), or NULL. */
const struct top_pstate *top_proc_find(const struct top_collector *c, pid_t pid)
{
	if (c->o.threads)
		return find_in(c->threads, c->nr_threads, pid);
	return find_in(c->procs, c->nr_procs, pid);
}

static bool wanted_pid(const struct top_collector *c, pid_t pid)
{
	if (!c->pids)
		return true;
	for (int i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == pid)
			return true;
	return false;
}

/* A growing array of rows and their states, built by one scan. */
struct scan {
	struct top_pstate *ps;
	struct top_row *rows;
	int n, cap;
	double dt;
	int hidden;
};

static void scan_add(struct top_collector *c, struct scan *sc, const struct top_pstate *old,
		     const struct pstat *st, pid_t pid, pid_t tgid, uid_t uid, bool is_thread)
{
	struct top_pstate *p;
	struct top_row *r;
	uint64_t ticks = st->utime + st->stime;
	bool fresh = !old || old->start_time != st->start_time;

	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 256;
		sc->ps = xrealloc(sc->ps, sc->cap * sizeof(*sc->ps));
		sc->rows = xrealloc(sc->rows, sc->cap * sizeof(*sc->rows));
	}
	p = &sc->ps[sc->n];
	r = &sc->rows[sc->n];
	sc->n++;
	memset(p, 0, sizeof(*p));
	memset(r, 0, sizeof(*r));
	p->pid = pid;
	p->tgid = tgid;
	p->start_time = st->start_time;
	p->minflt = st->minflt;
	p->majflt = st->majflt;
	p->ticks = ticks;
	if (!fresh) {
		p->thp_known = old->thp_known;
		p->thp_read_ns = old->thp_read_ns;
		p->anon = old->anon;
		p->anon_huge = old->anon_huge;
		memcpy(p->hot, old->hot, sizeof(p->hot));
	}
	r->pid = tgid;
	r->tid = is_thread ? pid : 0;
	r->uid = uid;
	memcpy(r->comm, st->comm, sizeof(r->comm));
	r->state = st->state;
	r->nr_threads = (int)st->nr_threads;
	r->rss = (uint64_t)(st->rss > 0 ? st->rss : 0) * c->page_size;
	r->nr_findings = -1;
	r->is_new = fresh || sc->dt <= 0;
	if (!r->is_new) {
		r->cpu_pct = 100.0 * (double)(ticks - old->ticks) / (double)c->clk_tck / sc->dt;
		r->minflt_s = (double)(st->minflt - old->minflt) / sc->dt;
		r->majflt_s = (double)(st->majflt - old->majflt) / sc->dt;
	}
	/* huge pages: see the top of the file */
	if (!is_thread && (fresh || pid == c->drill_pid ||
			   (c->last_ns - old->thp_read_ns >= TOP_THP_NS &&
			    (ticks != old->ticks || st->minflt != old->minflt)))) {
		uint64_t anon = 0, huge = 0;

		p->thp_read_ns = c->last_ns;
		p->thp_known = !rollup_read(pid, &anon, &huge);
		p->anon = anon;
		p->anon_huge = huge;
	}
	r->thp_known = p->thp_known;
	r->anon = p->anon;
	r->anon_huge = p->anon_huge;
}

static void scan_threads(struct top_collector *c, struct scan *sc, pid_t tgid, uid_t uid)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct pstat st;
		pid_t tid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
		if (pstat_read(path, &st))
			continue;
		scan_add(c, sc, find_in(c->threads, c->nr_threads, tid), &st, tid, tgid, uid, true);
	}
	closedir(d);
}

/* Every visible process into SC (processes, or their threads when c->o.threads). */
static void scan_proc(struct top_collector *c, struct scan *sc, struct top_header *h)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[64];
		struct pstat st;
		struct stat sb;
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (!wanted_pid(c, pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d", pid);
		if (stat(path, &sb))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (pstat_read(path, &st) || (st.flags & PF_KTHREAD))
			continue;
		if (c->o.only_uid != (uid_t)-1 && !c->o.all_users && sb.st_uid != c->o.only_uid) {
			sc->hidden++;
			continue;
		}
		h->nr_procs++;
		h->nr_threads += (int)st.nr_threads;
		if (c->o.threads)
			scan_threads(c, sc, pid, sb.st_uid);
		else
			scan_add(c, sc, top_proc_find(c, pid), &st, pid, pid, sb.st_uid, false);
	}
	closedir(d);
}

static uint64_t kv_find(const char *text, const char *key)
{
	const char *p = text;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == ':'))
			return strtoull(p + kl + 1 + (p[kl] == ':'), NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* The machine's meters: THP mode, anonymous memory, faults, khugepaged. */
static void header_read(struct top_collector *c, struct top_header *h, double dt)
{
	char buf[8192];
	uint64_t v;

	sysinfo__thp_mode(h->thp_mode, sizeof(h->thp_mode));
	sysinfo__thp_defrag(h->thp_defrag, sizeof(h->thp_defrag));
	if (read_small("/proc/meminfo", buf, sizeof(buf)) > 0) {
		h->mem_known = true;
		h->anon = kv_find(buf, "AnonPages") * 1024;
		h->anon_huge = kv_find(buf, "AnonHugePages") * 1024;
	}
	if (read_small("/proc/vmstat", buf, sizeof(buf)) > 0) {
		uint64_t f = kv_find(buf, "pgfault"), mj = kv_find(buf, "pgmajfault");

		if (c->vm_known && dt > 0) {
			h->faults_known = true;
			h->majflt_s = (double)(mj - c->pgmajfault) / dt;
			h->minflt_s = (double)((f - c->pgfault) - (mj - c->pgmajfault)) / dt;
			if (c->nr_spark == TOP_SPARK)
				memmove(c->spark, c->spark + 1, (TOP_SPARK - 1) * sizeof(c->spark[0]));
			else
				c->nr_spark++;
			c->spark[c->nr_spark - 1] = h->minflt_s + h->majflt_s;
		}
		c->vm_known = true;
		c->pgfault = f;
		c->pgmajfault = mj;
	}
	memcpy(h->spark, c->spark, sizeof(h->spark));
	h->nr_spark = c->nr_spark;
	if (!read_u64_file("/sys/kernel/mm/transparent_hugepage/khugepaged/pages_collapsed", &v)) {
		h->khuge_known = true;
		if (c->khuge_collapsed && dt > 0)
			h->khuge_collapsed_s = (double)(v - c->khuge_collapsed) / dt;
		h->khuge_collapsed = c->khuge_collapsed = v;
		read_u64_file("/sys/kernel/mm/transparent_hugepage/khugepaged/full_scans",
			      &h->khuge_scans);
	}
	h->pmu = c->pmu;
	snprintf(h->pmu_why, sizeof(h->pmu_why), "%s", c->pmu_why);
	h->sampling = c->sampling;
	h->tick_hz = c->tick_hz;
	snprintf(h->sampling_why, sizeof(h->sampling_why), "%s", c->sampling_why);
	h->samples_lost = c->lost_seen;
}

static int row_sample_cmp(const void *a, const void *b)
{
	const struct top_sample *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return 0;
}

/* A function's samples, summed over its ips. */
struct fsum {
	char name[128];
	uint64_t n;
};

/*
 * The hottest function of each sampled process (threads: of each thread)
 * this refresh, named from its memory map; the drilled process's samples
 * are kept for its snapshot.
 */
static void name_hot(struct top_collector *c, struct scan *sc)
{
	if (c->nr_samples > 1)
		qsort(c->samples, c->nr_samples, sizeof(*c->samples), row_sample_cmp);
	for (int i = 0; i < sc->n; i++) {
		struct top_pstate *p = &sc->ps[i];
		struct top_row *r = &sc->rows[i];
		struct top_sample key = { .tgid = p->tgid }, *s;
		struct fsum best = { "", 0 }, cur = { "", 0 };
		int lo = 0, hi = c->nr_samples;

		while (lo < hi) {	/* the first sample of tgid */
			int mid = (lo + hi) / 2;

			if (c->samples[mid].tgid < key.tgid)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int j = lo; j < c->nr_samples && c->samples[j].tgid == p->tgid; j++) {
			struct sampling_loc loc;

			s = &c->samples[j];
			if (r->tid && s->tid != r->tid)
				continue;
			r->samples += s->n;
			if (top_name_ip(c, p->tgid, p->start_time, s->ip, false, &loc) ||
			    !loc.function[0])
				snprintf(loc.function, sizeof(loc.function), loc.module[0] == '[' ? "%.120s" : "[%.120s]",
					 loc.module[0] ? loc.module : "unknown");
			if (strcmp(loc.function, cur.name)) {
				snprintf(cur.name, sizeof(cur.name), "%s", loc.function);
				cur.n = 0;
			}
			cur.n += s->n;	/* ips of one function are adjacent (sorted by ip) */
			if (cur.n > best.n)
				best = cur;
		}
		if (best.n)
			symbolizer__name(p->hot, sizeof(p->hot), best.name);
		memcpy(r->hot, p->hot, sizeof(r->hot));
	}
}

/* The drilled process's samples, added to those since the drill began. */
static void drill_add_samples(struct top_collector *c)
{
	for (int j = 0; j < c->nr_samples; j++) {
		const struct top_sample *s = &c->samples[j];
		int k;

		if (s->tgid != c->drill_pid)
			continue;
		for (k = 0; k < c->nr_dips && c->dips[k].ip != s->ip; k++)
			;
		if (k == c->nr_dips) {
			if (c->nr_dips == c->cap_dips) {
				c->cap_dips = c->cap_dips ? 2 * c->cap_dips : 256;
				c->dips = xrealloc(c->dips, c->cap_dips * sizeof(*c->dips));
			}
			memset(&c->dips[k], 0, sizeof(c->dips[k]));
			c->dips[k].ip = s->ip;
			c->nr_dips++;
		}
		c->dips[k].samples += s->n;
		if (s->kernel)
			c->dips[k].kernel_samples += s->n;
	}
}

static void drill_switch(struct top_collector *c, struct top_frame *f)
{
	if (c->drill_want == c->drill_pid)
		return;
	c->drill_pid = c->drill_want;
	c->nr_dips = 0;
	c->drill_since = now_ns();
	if (top_bpf_watch(c, c->drill_pid) && c->drill_pid)
		snprintf(f->drill.findings_why, sizeof(f->drill.findings_why),
			 "faults by line are not traced: %s",
			 c->skel ? "the page_fault_user tracepoint did not attach" : c->sampling_why);
}

static void drill_fill(struct top_collector *c, struct top_frame *f, struct scan *sc)
{
	const struct top_pstate *p;
	const char *comm = "";

	drill_switch(c, f);
	if (!c->drill_pid)
		return;
	p = top_proc_find(c, c->drill_pid);
	for (int i = 0; i < sc->n; i++)
		if (sc->rows[i].pid == c->drill_pid) {
			comm = sc->rows[i].comm;
			break;
		}
	f->drill.pid = c->drill_pid;
	f->drill.since_ns = c->drill_since;
	if (!p) {
		snprintf(f->drill.findings_why, sizeof(f->drill.findings_why),
			 "process %d is gone", c->drill_pid);
		return;
	}
	snprintf(f->drill.comm, sizeof(f->drill.comm), "%s", comm);
	drill_add_samples(c);
	f->drill.snap = top_drill_snapshot(c, p, comm);
}

int top_collector__refresh(struct top_collector *c, struct top_frame **out)
{
	struct top_frame *f = xcalloc(1, sizeof(*f));
	struct scan sc = { 0 };
	uint64_t now = now_ns();
	struct timespec ts;

	sc.dt = c->last_ns ? (now - c->last_ns) / 1e9 : 0;
	c->last_ns = now;
	clock_gettime(CLOCK_REALTIME, &ts);
	f->hdr.seq = ++c->seq;
	f->hdr.time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	f->hdr.interval_s = sc.dt;
	top_bpf_drain(c);
	header_read(c, &f->hdr, sc.dt);
	scan_proc(c, &sc, &f->hdr);
	f->hdr.nr_hidden = sc.hidden;
	name_hot(c, &sc);
	/* the new states replace the old ones (processes, or threads) */
	if (sc.n > 1)
		qsort(sc.ps, sc.n, sizeof(*sc.ps), pstate_cmp);
	if (c->o.threads) {
		free(c->threads);
		c->threads = sc.ps;
		c->nr_threads = sc.n;
	} else {
		free(c->procs);
		c->procs = sc.ps;
		c->nr_procs = sc.n;
	}
	top_maps_sweep(c);
	drill_fill(c, f, &sc);
	f->rows = sc.rows;
	f->nr_rows = sc.n;
	*out = f;
	return 0;
}
