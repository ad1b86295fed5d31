// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time in system calls: bpf/systime.bpf.c on the sys_enter and sys_exit
 * tracepoints, loaded while the target is still corked (its first call is
 * seen) and sharing the sampler's process set, read out at finish.  It
 * feeds the verdict: kernel time beside user time, futex waits (locks).
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "base/log.h"
#include "base/util.h"
#include "model/report.h"

#include "bpf/systime.h"
#include "sampler.skel.h"
#include "systime.skel.h"

_Static_assert(sizeof(struct systime_val) == 88, "systime_val has no padding");

/*
 * Opens and loads the programs into L, sharing the process set of L's
 * sampler object: on the thread that loads that object ahead, where the
 * kernel BTF's parse (10-15 ms) overlaps the counters' and the target's
 * preparation instead of following them.
 */
void prof_systime_load(struct skel_load *l)
{
	struct systime_bpf *s;
	uint64_t t0 = now_ns();
	int err;

	l->sys_what = "open";
	s = systime_bpf__open();
	if (!s) {
		err = -errno;
		goto fail;
	}
	s->rodata->futex_nr = SYS_futex;
#ifdef SYS_futex_waitv
	s->rodata->futex_waitv_nr = SYS_futex_waitv;
#endif
	l->sys_what = "share the process set with";
	err = bpf_map__reuse_fd(s->maps.procs, bpf_map__fd(l->skel->maps.procs));
	if (err)
		goto fail;
	l->sys_what = "load";
	err = systime_bpf__load(s);
	if (err)
		goto fail;
	l->sys = s;
	l->sys_ns = now_ns() - t0;
	return;
fail:
	l->sys_err = err;
	l->sys_ns = now_ns() - t0;
	systime_bpf__destroy(s);
}

/* Attaches the programs L loaded (loading them now if it did not try). */
void prof_systime_open(struct prof_state *st, struct skel_load *l, struct report *r)
{
	uint64_t t0 = now_ns();
	int err;

	if (!l->sys && !l->sys_err) {
		l->skel = st->skel;
		prof_systime_load(l);
	}
	if (l->sys_err) {
		err = l->sys_err;
		goto fail;
	}
	l->sys_what = "attach";
	err = systime_bpf__attach(l->sys);
	if (err) {
		systime_bpf__destroy(l->sys);
		goto fail;
	}
	st->systime = l->sys;
	l->sys = NULL;
	pr_debug("profile: system-call programs ready after %.1f ms (loaded in %.1f ms)",
		 (now_ns() - t0) / 1e6, l->sys_ns / 1e6);
	return;
fail:
	l->sys = NULL;
	st->systime_err = err;
	report__add_provenance(r, "syscalls", "time in system calls not measured: cannot %s the sys_enter/sys_exit/sched_switch programs: %s",
			       l->sys_what, strerror(-err));
}

void prof_systime_release(struct skel_load *l)
{
	systime_bpf__destroy(l->sys);
	l->sys = NULL;
}

void prof_finish_systime(struct prof_state *st, struct sampling *p, struct report *r)
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
}

void prof_systime_destroy(struct prof_state *st)
{
	systime_bpf__destroy(st->systime);
	st->systime = NULL;
}
