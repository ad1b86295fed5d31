// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time in system calls: bpf/systime.bpf.c on the sys_enter and sys_exit
 * tracepoints, attached while the target is still corked (its first call is
 * seen) and sharing the sampler's process set, read out at finish.  It
 * feeds the verdict: kernel time beside user time, futex waits (locks).
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "model/report.h"
#include "symbols/addrsym.h"

#include "bpf/systime.h"
#include "sampler.skel.h"
#include "tracing.skel.h"

_Static_assert(sizeof(struct systime_val) == 88, "systime_val has no padding");

/*
 * Attaches the programs loaded ahead in the tracing object (prof_tracing_load,
 * on the thread that loads the sampler object ahead, where the kernel BTF's
 * parse overlaps the counters' and the target's preparation instead of
 * following them).
 */
void prof_systime_open(struct prof_state *st, struct report *r)
{
	struct tracing_bpf *o = st->tr.obj[TR_SYSTIME];
	const char *what = st->tr.what[TR_SYSTIME];
	int err = st->tr.err[TR_SYSTIME];
	uint64_t t0 = now_ns();
	struct bpf_program *progs[3];

	if (!o) {
		if (!st->tr.tried || !what) {
			err = st->tr.tried ? err : -ENOENT;
			what = "load";
		}
		goto fail;
	}
	progs[0] = o->progs.on_switch;
	progs[1] = o->progs.on_sys_enter;
	progs[2] = o->progs.on_sys_exit;
	what = "attach";
	for (int i = 0; i < 3; i++) {
		st->systime_links[i] = bpf_program__attach(progs[i]);
		if (!st->systime_links[i]) {
			err = -errno;
			prof_systime_destroy(st);
			goto fail;
		}
	}
	st->systime = o;
	pr_debug("profile: system-call programs ready after %.1f ms (tracing object loaded in %.1f ms%s)",
		 (now_ns() - t0) / 1e6, st->tr.ns / 1e6, st->tr.split ? ", group by group" : "");
	return;
fail:
	st->systime_err = err;
	if (!r) {	/* attached as the target ran: said at the read-out */
		st->systime_what = what;
		return;
	}
	report__add_provenance(r, "syscalls", "time in system calls not measured: cannot %s the sys_enter/sys_exit/sched_switch programs: %s",
			       what, strerror(-err));
}

static int cmp_lock_wait(const void *a, const void *b)
{
	const struct sampling_lock *x = a, *y = b;

	return x->wait_ns < y->wait_ns ? 1 : x->wait_ns > y->wait_ns ? -1 : 0;
}

/* The lock word's variable and mapping, from the process's newest map snapshot. */
static void name_lock(struct prof_state *st, struct symbolizer *sym, struct sampling_lock *l)
{
	const struct procmaps *maps = prof_maps_for(st, l->pid, l->uaddr);
	const struct procmap *m = maps ? procmaps__find(maps, l->uaddr) : NULL;

	if (!m)
		return;
	snprintf(l->mapping, sizeof(l->mapping), "%s", m->path[0] ? m->path : "anon");
	if (sym) {
		char *inner;

		addrsym__data_decl(sym, maps, l->uaddr, l->name, sizeof(l->name), l->decl_file,
				   sizeof(l->decl_file), &l->decl_line);
		/* "m.__data.__lock": the word inside a pthread type is the lock itself */
		inner = strstr(l->name, ".__data");
		if (inner)
			*inner = '\0';
	}
}

/*
 * The lock words threads waited on, longest total wait first; those past
 * SAMPLING_MAX_LOCKS are counted in locks_dropped (as is a full map: then
 * later words had no entry).
 */
static void read_locks(struct prof_state *st, struct sampling *p, struct symbolizer *sym)
{
	int fd = bpf_map__fd(st->systime->maps.locks), n = 0, cap = 0;
	struct systime_lock_key k, next, *prev = NULL;
	struct sampling_lock *v = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct systime_lock val;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &val) || !val.waits)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n] = (struct sampling_lock){ .pid = (int32_t)k.tgid, .uaddr = k.uaddr,
					       .wait_ns = val.wait_ns, .waits = val.waits,
					       .threads = __builtin_popcountll(val.tid_bits) };
		n++;
	}
	if (n >= SYSTIME_MAX_LOCKS)
		p->locks_dropped = 1;	/* at least one word found the map full */
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_lock_wait);
	if (n > SAMPLING_MAX_LOCKS) {
		p->locks_dropped += n - SAMPLING_MAX_LOCKS;
		n = SAMPLING_MAX_LOCKS;
	}
	for (int i = 0; i < n; i++)
		name_lock(st, sym, &v[i]);
	p->locks = v;
	p->nr_locks = n;
}

void prof_finish_systime(struct prof_state *st, struct sampling *p, struct report *r,
			 struct symbolizer *sym)
{
	struct systime_val *v;
	__u32 zero = 0;

	if (!st->systime)
		return;
	v = xcalloc(st->nr_cpus, sizeof(*v));
	if (bpf_map_lookup_elem(bpf_map__fd(st->systime->maps.systime), &zero, v)) {
		report__add_provenance(r, "syscalls", "time in system calls not read: %s",
				       strerror(errno));
		free(v);
		return;
	}
	p->sys_measured = true;
	p->futex_long_min_ns = SYSTIME_LONG_NS;
	for (int c = 0; c < st->nr_cpus; c++) {
		p->sys_ns += v[c].sys_ns;
		p->sys_calls += v[c].sys_calls;
		p->futex_ns += v[c].futex_ns;
		p->futex_calls += v[c].futex_calls;
		p->futex_long_ns += v[c].futex_long_ns;
		p->futex_long_calls += v[c].futex_long_calls;
		p->sleep_ns += v[c].sleep_ns;
		p->runq_ns += v[c].runq_ns;
		p->sleep_long_ns += v[c].sleep_long_ns;
		p->futex_lock_ns += v[c].futex_lock_ns;
		p->futex_lock_calls += v[c].futex_lock_calls;
	}
	free(v);
	read_locks(st, p, sym);
}

/* The object is the tracing object's (prof_tracing_destroy). */
void prof_systime_destroy(struct prof_state *st)
{
	for (int i = 0; i < 3; i++) {
		bpf_link__destroy(st->systime_links[i]);
		st->systime_links[i] = NULL;
	}
	st->systime = NULL;
}
