// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming the code of the processes 'memadvise top' samples: one memory-map
 * snapshot per process, taken when one of its samples is first named and
 * again when an address falls outside it (a library loaded since), at most
 * once a second; dropped when the process is gone.  Runs on the collector's
 * thread, never on the drawing one.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "collect/top/internal.h"
#include "base/util.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"

static struct top_maps *maps_find(struct top_collector *c, pid_t pid)
{
	for (int i = 0; i < c->nr_maps; i++)
		if (c->maps[i].pid == pid)
			return &c->maps[i];
	return NULL;
}

static void maps_drop(struct top_collector *c, struct top_maps *tm)
{
	if (tm->m) {
		symbolizer__forget(c->sym, tm->m);
		procmaps__free(tm->m);
	}
	*tm = c->maps[--c->nr_maps];
}

struct procmaps *top_maps_get(struct top_collector *c, pid_t pid, uint64_t start_time,
			      uint64_t ip)
{
	struct top_maps *tm = maps_find(c, pid);
	uint64_t now = now_ns();

	if (tm && tm->start_time != start_time) {
		maps_drop(c, tm);	/* the pid was reused */
		tm = NULL;
	}
	if (!tm) {
		if (c->nr_maps == c->cap_maps) {
			c->cap_maps = c->cap_maps ? 2 * c->cap_maps : 64;
			c->maps = xrealloc(c->maps, c->cap_maps * sizeof(*c->maps));
		}
		tm = &c->maps[c->nr_maps++];
		memset(tm, 0, sizeof(*tm));
		tm->pid = pid;
		tm->start_time = start_time;
	}
	tm->seen = true;
	if ((!tm->m || !procmaps__find(tm->m, ip)) &&
	    (!tm->taken_ns || now - tm->taken_ns >= 1000000000ULL)) {
		struct procmaps *m = procmaps__capture(pid, false);

		tm->taken_ns = now;
		if (m) {
			if (tm->m) {
				symbolizer__forget(c->sym, tm->m);
				procmaps__free(tm->m);
			}
			tm->m = m;
		}
	}
	return tm->m;
}

/* Drops the maps of processes that are gone (or whose pid was reused). */
void top_maps_sweep(struct top_collector *c)
{
	for (int i = 0; i < c->nr_maps;) {
		const struct top_pstate *p = top_proc_find(c, c->maps[i].pid);

		if (!p || p->start_time != c->maps[i].start_time) {
			maps_drop(c, &c->maps[i]);
			continue;
		}
		i++;
	}
}

/* Names IP of process PID (function only, or with its line when LINES). 0 or -ENOENT. */
int top_name_ip(struct top_collector *c, pid_t pid, uint64_t start_time, uint64_t ip,
		bool lines, struct sampling_loc *loc)
{
	const struct procmap *pm;
	struct procmaps *m;

	memset(loc, 0, sizeof(*loc));
	loc->ip = ip;
	if (!c->sym)
		return -ENOENT;
	m = top_maps_get(c, pid, start_time, ip);
	if (!m)
		return -ENOENT;
	/*
	 * Code in a memfd (a sealed executable copied into memory) has no path
	 * to open, and libdwfl (elfutils 0.188) crashed in dwfl_module_addrinfo
	 * naming a sealed memfd executable's code: named by its mapping only.
	 */
	pm = procmaps__find(m, ip);
	if (pm && !strncmp(pm->path, "/memfd:", 7)) {
		snprintf(loc->module, sizeof(loc->module), "memfd");
		return -ENOENT;
	}
	return symbolizer__resolve(c->sym, m, ip, false, lines ? SYM_LINES : SYM_FUNCTION, loc);
}
