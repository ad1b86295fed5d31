// SPDX-License-Identifier: GPL-2.0-only
#include "collect/event.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "machine/pmu.h"
#include "base/util.h"

const char *const event__default_names[] = {
	"task_clock", "page_faults", "minor_faults", "major_faults", "context_switches",
	"cpu_migrations", "cycles", "instructions", "l1d_miss", "llc_miss", "dtlb_miss",
	"branch_miss", NULL,
};

struct ev {
	char name[48];
	/*
	 * Not opened: page_faults - major_faults.  Every minor fault runs the
	 * minor-faults software event's path in the kernel once a counter of it
	 * exists: about 1.3 % of a first-touch fault storm's time in our guests
	 * (perf stat -e page-faults,minor-faults pays it too), for a number the
	 * other two give.  Only the default set derives it; -e minor_faults
	 * opens the event.
	 */
	bool derived;
	/*
	 * Opened late, or not at all: page_faults while the profile samples
	 * page faults.  Each event on the page-faults path costs about 1 % of
	 * a fault storm here; the fault sampler's own count is the same
	 * number (event_set__provide), and the counter is opened only when
	 * there is no such sampler (event_set__open_deferred).
	 */
	bool deferred;
	provided_count_fn ext;	   /* provided: called when the set is read */
	void *ext_ctx;
	struct pmu_event chosen;   /* the candidate that opened (or the first tried) */
	bool opened;
	int err;
	char reason[160];
	int group;		   /* group index within one thread */
	int *fds;		   /* one per thread (nr_threads) */
	uint64_t id_of_thread0;
};

struct event_set {
	struct ev *evs;
	int nr;
	int nr_threads;
	pid_t *tids;
	int nr_groups;
	int *leader;		   /* ev index of each group's leader, -1 when empty */
	bool on_exec;
};

static long sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

int event_set__add(struct event_set *es, const char *name)
{
	struct ev *e;

	if (!*name || strlen(name) >= sizeof(e->name))
		return -EINVAL;
	for (int i = 0; i < es->nr; i++)
		if (!strcmp(es->evs[i].name, name))
			return 0;
	es->evs = xrealloc(es->evs, (es->nr + 1) * sizeof(*es->evs));
	e = &es->evs[es->nr++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->group = -1;
	return 0;
}

int event_set__parse(struct event_set **out, const char *list)
{
	struct event_set *es = xcalloc(1, sizeof(*es));
	char *copy = xstrdup(list), *rest = copy, *tok;
	int err = 0;

	/* libpfm4 raw strings use ':' and may contain '=', never ','; an empty field is a typo. */
	while ((tok = strsep(&rest, ","))) {
		err = event_set__add(es, tok);
		if (err)
			break;
	}
	if (!err && es->nr == 0)
		err = -EINVAL;
	free(copy);
	if (err) {
		event_set__free(es);
		return err;
	}
	*out = es;
	return 0;
}

struct event_set *event_set__defaults(void)
{
	struct event_set *es = xcalloc(1, sizeof(*es));

	for (int i = 0; event__default_names[i]; i++)
		event_set__add(es, event__default_names[i]);
	for (int i = 0; i < es->nr; i++)
		es->evs[i].derived = !strcmp(es->evs[i].name, "minor_faults");
	return es;
}

static int list_threads(pid_t pid, pid_t **tids)
{
	char path[64];
	struct dirent *d;
	int n = 0, cap = 16;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	*tids = xmalloc(cap * sizeof(pid_t));
	while ((d = readdir(dir))) {
		int tid;

		if (parse_int(d->d_name, 1, 1 << 30, &tid))
			continue;
		if (n == cap)
			*tids = xrealloc(*tids, (cap *= 2) * sizeof(pid_t));
		(*tids)[n++] = tid;
	}
	closedir(dir);
	return n;
}

static void setup_attr(struct perf_event_attr *a, bool leader, bool on_exec)
{
	a->size = sizeof(*a);
	a->inherit = 1;
	a->exclude_kernel = 0;
	a->exclude_hv = 1;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			 PERF_FORMAT_ID | PERF_FORMAT_GROUP;
	a->disabled = leader && on_exec;
	a->enable_on_exec = leader && on_exec;
}

/* Tries each candidate encoding; a kernel that refuses kernel-mode counting gets user-only. */
static int open_one(struct ev *e, const struct pmu_event *cand, int nc, pid_t tid, int group_fd,
		    bool leader, bool on_exec, int *fd_out)
{
	int last = -ENOENT;

	for (int c = 0; c < nc; c++) {
		struct pmu_event pe = cand[c];
		long fd;

		setup_attr(&pe.attr, leader, on_exec);
		fd = sys_perf_event_open(&pe.attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			pe.attr.exclude_kernel = 1;
			fd = sys_perf_event_open(&pe.attr, tid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
		}
		if (fd >= 0) {
			e->chosen = pe;
			*fd_out = (int)fd;
			return 0;
		}
		last = -errno;
		if (c == 0) {
			e->chosen = pe;
			pmu__strerror_open(errno, &pe.attr, e->reason, sizeof(e->reason));
		}
	}
	return last;
}

static void open_evs(struct event_set *es);

int event_set__open(struct event_set *es, pid_t pid, bool on_exec)
{
	struct pmu_event cand[8];
	int err;

	err = pmu__init();
	if (err)
		pr_warn("libpfm4 did not initialise (%s): using perf's generic events only",
			strerror(-err));
	if (on_exec) {
		es->tids = xmalloc(sizeof(pid_t));
		es->tids[0] = pid;
		es->nr_threads = 1;
	} else {
		es->nr_threads = list_threads(pid, &es->tids);
		if (es->nr_threads < 0)
			return es->nr_threads;
	}
	/* Resolve names first: an unknown name is the user's error, not a capability. */
	for (int i = 0; i < es->nr; i++) {
		int nc = pmu__candidates(es->evs[i].name, cand, 1);

		if (nc < 0) {
			pr_err("unknown event '%s'%s", es->evs[i].name,
			       nc == -EINVAL ? ": malformed libpfm4 event string" : "");
			pr_hint("generic names: task_clock page_faults minor_faults major_faults "
				"context_switches cpu_migrations cycles instructions l1d_miss "
				"llc_miss dtlb_miss branch_miss, or a libpfm4 string (see 'memadvise probe')");
			return nc;
		}
	}
	es->leader = xmalloc(sizeof(int) * (es->nr + 1));
	es->on_exec = on_exec;
	open_evs(es);
	return 0;
}

/* Opens every event not opened yet (nor derived, deferred or provided), in new groups. */
static void open_evs(struct event_set *es)
{
	struct pmu_event cand[8];
	int err, hw_group = -1, hw_in_group = 0, sw_group = -1, first_group = es->nr_groups;
	bool on_exec = es->on_exec;

	for (int i = 0; i < es->nr; i++) {
		struct ev *e = &es->evs[i];
		int nc, g;
		bool hw;

		if (e->derived || e->deferred || e->ext || e->opened || e->fds)
			continue;
		nc = pmu__candidates(e->name, cand, (int)ARRAY_SIZE(cand));
		hw = nc > 0 && cand[0].hardware;
		e->fds = xmalloc(sizeof(int) * es->nr_threads);
		for (int t = 0; t < es->nr_threads; t++)
			e->fds[t] = -1;
		if (hw) {
			if (hw_group < 0 || hw_in_group >= EVENT_GROUP_MAX) {
				hw_group = es->nr_groups++;
				es->leader[hw_group] = -1;
				hw_in_group = 0;
			}
			g = hw_group;
		} else {
			if (sw_group < 0) {
				sw_group = es->nr_groups++;
				es->leader[sw_group] = -1;
			}
			g = sw_group;
		}
		for (int t = 0; t < es->nr_threads; t++) {
			int lead = es->leader[g];
			int gfd = lead >= 0 ? es->evs[lead].fds[t] : -1;
			int fd = -1;

			err = open_one(e, cand, nc, es->tids[t], gfd, lead < 0, on_exec, &fd);
			if (err == -ESRCH && !on_exec)
				continue; /* that thread ended meanwhile */
			if (err) {
				e->err = err;
				for (int u = 0; u < t; u++) {
					if (e->fds[u] >= 0)
						close(e->fds[u]);
					e->fds[u] = -1;
				}
				break;
			}
			e->fds[t] = fd;
		}
		if (e->err) {
			if (!e->reason[0])
				snprintf(e->reason, sizeof(e->reason), "%s", strerror(-e->err));
			continue;
		}
		e->opened = true;
		e->group = g;
		if (es->leader[g] < 0)
			es->leader[g] = i;
		if (hw)
			hw_in_group++;
		if (e->fds[0] >= 0)
			ioctl(e->fds[0], PERF_EVENT_IOC_ID, &e->id_of_thread0);
	}
	if (!on_exec) {
		/* An attached process runs already: start every group now. */
		for (int g = first_group; g < es->nr_groups; g++) {
			int lead = es->leader[g];

			for (int t = 0; lead >= 0 && t < es->nr_threads; t++)
				if (es->evs[lead].fds[t] >= 0)
					ioctl(es->evs[lead].fds[t], PERF_EVENT_IOC_ENABLE,
					      PERF_IOC_FLAG_GROUP);
		}
	}
}

void event_set__defer(struct event_set *es, const char *name)
{
	for (int i = 0; i < es->nr; i++)
		if (!strcmp(es->evs[i].name, name) && !es->evs[i].derived)
			es->evs[i].deferred = true;
}

void event_set__provide(struct event_set *es, const char *name, provided_count_fn fn, void *ctx)
{
	for (int i = 0; i < es->nr; i++) {
		struct ev *e = &es->evs[i];

		if (strcmp(e->name, name) || !e->deferred || !fn)
			continue;
		e->ext = fn;
		e->ext_ctx = ctx;
		e->deferred = false;
	}
}

void event_set__open_deferred(struct event_set *es)
{
	bool any = false;

	for (int i = 0; i < es->nr; i++) {
		any |= es->evs[i].deferred;
		es->evs[i].deferred = false;
	}
	if (any && es->leader)
		open_evs(es);
}

void event_set__disable(struct event_set *es)
{
	for (int g = 0; g < es->nr_groups; g++) {
		int lead = es->leader[g];

		for (int t = 0; lead >= 0 && t < es->nr_threads; t++)
			if (es->evs[lead].fds[t] >= 0)
				ioctl(es->evs[lead].fds[t], PERF_EVENT_IOC_DISABLE,
				      PERF_IOC_FLAG_GROUP);
	}
}

static struct counter *counter_named(struct report *r, const char *name)
{
	for (int i = 0; i < r->nr_counters; i++)
		if (!strcmp(r->counters[i].name, name))
			return &r->counters[i];
	return NULL;
}

/* minor_faults = page_faults - major_faults (see struct ev). */
static void derive_minor(struct event_set *es, struct report *r)
{
	struct counter *c = counter_named(r, "minor_faults");
	const struct counter *pf = counter_named(r, "page_faults");
	const struct counter *maj = counter_named(r, "major_faults");
	bool derived = false;

	for (int i = 0; i < es->nr; i++)
		derived |= es->evs[i].derived;
	if (!derived || !c)
		return;
	snprintf(c->event, sizeof(c->event), "page_faults - major_faults");
	c->tier = TIER_SOFTWARE;
	c->opened = pf && maj && pf->opened && maj->opened;
	if (!pf || !maj || !pf->counted || !maj->counted) {
		c->counted = false;
		snprintf(c->reason, sizeof(c->reason),
			 "derived from page_faults and major_faults, which did not both count");
		return;
	}
	c->counted = true;
	c->raw = pf->raw > maj->raw ? pf->raw - maj->raw : 0;
	c->scaled = (double)c->raw;
	c->enabled_ns = pf->enabled_ns;
	c->running_ns = pf->running_ns;
	snprintf(c->derived, sizeof(c->derived), "page_faults - major_faults");
	snprintf(c->note, sizeof(c->note), "= page_faults - major_faults");
}

/* Why a counter read with no enabled or no running time did not count. */
#define REASON_NEVER_ENABLED \
	"never enabled: the program ended before the counter was enabled"
#define REASON_NOT_SCHEDULED "never scheduled on the PMU (too many events?)"

int event_set__read(struct event_set *es, struct report *r)
{
	/* Group read layout: nr, time_enabled, time_running, {value, id}[nr]. */
	uint64_t buf[3 + 2 * 64];
	uint64_t *val = xcalloc(es->nr, sizeof(uint64_t));
	uint64_t *ena = xcalloc(es->nr, sizeof(uint64_t));
	uint64_t *run = xcalloc(es->nr, sizeof(uint64_t));
	bool *got = xcalloc(es->nr, sizeof(bool));

	for (int g = 0; g < es->nr_groups; g++) {
		int lead = es->leader[g];

		for (int t = 0; lead >= 0 && t < es->nr_threads; t++) {
			int fd = es->evs[lead].fds[t];
			ssize_t n;
			int k = 0;

			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf));
			if (n < (ssize_t)(3 * sizeof(uint64_t)))
				continue;
			/* Members appear in the order they were added to the group. */
			for (int i = 0; i < es->nr && (uint64_t)k < buf[0]; i++) {
				if (!es->evs[i].opened || es->evs[i].group != g)
					continue;
				val[i] += buf[3 + 2 * k];
				ena[i] += buf[1];
				run[i] += buf[2];
				got[i] = true;
				k++;
			}
		}
	}
	for (int i = 0; i < es->nr; i++) {
		struct ev *e = &es->evs[i];
		struct counter *c = report__add_counter(r);

		snprintf(c->name, sizeof(c->name), "%s", e->name);
		snprintf(c->event, sizeof(c->event), "%s", e->chosen.encoding);
		c->tier = e->chosen.tier;
		c->err = e->err;
		if (e->derived)
			continue;	/* derive_minor() fills it */
		if (e->ext) {	/* provided: the fault sampler's count */
			struct provided_count pc = { 0 };

			if (!e->ext(e->ext_ctx, &pc)) {
				snprintf(c->reason, sizeof(c->reason),
					 "the fault sampler's count could not be read");
				continue;
			}
			c->tier = TIER_SOFTWARE;
			c->opened = true;
			snprintf(c->event, sizeof(c->event), "perf::PERF_COUNT_SW_PAGE_FAULTS");
			c->raw = pc.count;
			c->enabled_ns = pc.enabled_ns;
			c->running_ns = pc.running_ns;
			if (!pc.enabled_ns || !pc.running_ns) {
				/* a count of 0 here says nothing: it did not count */
				snprintf(c->reason, sizeof(c->reason), "%s",
					 pc.enabled_ns ? REASON_NOT_SCHEDULED : REASON_NEVER_ENABLED);
				continue;
			}
			c->counted = true;
			c->scaled = (double)pc.count;
			snprintf(c->note, sizeof(c->note), "%s", pc.note);
			continue;
		}
		if (!e->opened) {
			snprintf(c->reason, sizeof(c->reason), "%s", e->reason);
			continue;
		}
		c->opened = true;
		if (!got[i]) {
			snprintf(c->reason, sizeof(c->reason), "the counter could not be read");
			continue;
		}
		c->raw = val[i];
		c->enabled_ns = ena[i];
		c->running_ns = run[i];
		if (run[i] == 0) {
			/* Enabled but never scheduled on the PMU: it did not count. */
			c->counted = false;
			snprintf(c->reason, sizeof(c->reason), "%s",
				 ena[i] ? REASON_NOT_SCHEDULED : REASON_NEVER_ENABLED);
			continue;
		}
		c->counted = true;
		c->scaled = run[i] < ena[i] ? (double)val[i] * ena[i] / run[i] : (double)val[i];
	}
	derive_minor(es, r);
	free(val);
	free(ena);
	free(run);
	free(got);
	return 0;
}

void event_set__free(struct event_set *es)
{
	if (!es)
		return;
	for (int i = 0; i < es->nr; i++) {
		for (int t = 0; es->evs[i].fds && t < es->nr_threads; t++)
			if (es->evs[i].fds[t] >= 0)
				close(es->evs[i].fds[t]);
		free(es->evs[i].fds);
	}
	free(es->evs);
	free(es->tids);
	free(es->leader);
	free(es);
}
