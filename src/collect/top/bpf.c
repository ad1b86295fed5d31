// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf/top.bpf.c for 'memadvise top': the tick sampler (system-wide, drained
 * at every refresh) and the fault tracer of the drilled process (attached
 * only while there is one).  Where they cannot load, sampling_why says why
 * and the hot-function column says so; nothing falls back silently.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/top/internal.h"
#include "base/util.h"
#include "machine/caps.h"
#include "machine/sysinfo.h"
#include "top.skel.h"
#include "bpf/top.h"

_Static_assert(sizeof(struct top_hot_key) == 24, "top_hot_key layout");
_Static_assert(sizeof(struct top_fault_val) == 32, "top_fault_val layout");

static void why(struct top_collector *c, const char *what, int err)
{
	snprintf(c->sampling_why, sizeof(c->sampling_why), "%s: %s", what, strerror(err));
}

/* The tick sampler's conditions, as 'run' checks them (collect/sampling/load.c). */
static bool tick_usable(struct top_collector *c)
{
	c->tick_hz = sysinfo__kernel_hz();
#if !defined(__x86_64__)
	snprintf(c->sampling_why, sizeof(c->sampling_why), "tick sampling: not on x86-64");
	return false;
#endif
	if (sysinfo__cpu_flag("fred") > 0) {
		snprintf(c->sampling_why, sizeof(c->sampling_why),
			 "FRED entry: a tick cannot tell user from kernel mode");
		return false;
	}
	if (!c->tick_hz) {
		snprintf(c->sampling_why, sizeof(c->sampling_why),
			 "the tick rate is unknown (no /boot/config-RELEASE or /proc/config.gz)");
		return false;
	}
	return true;
}

void top_bpf_open(struct top_collector *c)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int err;

	if (c->o.no_bpf) {
		snprintf(c->sampling_why, sizeof(c->sampling_why), "sampling off (--no-sample)");
		return;
	}
	if (!caps__has(MA_CAP_BPF) && !caps__has(MA_CAP_SYS_ADMIN)) {
		/* not tried: libbpf would fill stderr with why not */
		snprintf(c->sampling_why, sizeof(c->sampling_why),
			 "needs root, or CAP_BPF and CAP_PERFMON");
		return;
	}
	if (!tick_usable(c))
		return;
	c->skel = top_bpf__open();
	if (!c->skel) {
		why(c, "cannot open the BPF object", errno);
		return;
	}
	/* the fault program is attached by hand, only while drilling */
	bpf_program__set_autoattach(c->skel->progs.top_fault, false);
	err = top_bpf__load(c->skel);
	if (err) {
		why(c, "cannot load the BPF programs (root or CAP_BPF+CAP_PERFMON needed)", -err);
		goto fail;
	}
	err = bpf_prog_test_run_opts(bpf_program__fd(c->skel->progs.find_tick_fn), &run);
	if (err || !c->skel->bss->tick_fn) {
		snprintf(c->sampling_why, sizeof(c->sampling_why),
			 "the tick's timer function is not in the kernel's symbols");
		goto fail;
	}
	c->tick_link = bpf_program__attach(c->skel->progs.top_tick);
	if (!c->tick_link) {
		why(c, "cannot attach the tick sampler", errno);
		goto fail;
	}
	c->skel->bss->live = 1;
	c->sampling = true;
	return;
fail:
	top_bpf__destroy(c->skel);
	c->skel = NULL;
}

static void add_sample(struct top_collector *c, const struct top_hot_key *k, uint64_t n)
{
	struct top_sample *s;

	if (c->nr_samples == c->cap_samples) {
		c->cap_samples = c->cap_samples ? 2 * c->cap_samples : 1024;
		c->samples = xrealloc(c->samples, c->cap_samples * sizeof(*c->samples));
	}
	s = &c->samples[c->nr_samples++];
	s->tgid = k->tgid;
	s->tid = k->tid;
	s->ip = k->ip;
	s->kernel = k->kernel;
	s->n = n;
}

/*
 * Moves the tick samples since the last refresh into c->samples (the map is
 * emptied bucket by bucket, so a sample counted meanwhile is in the next
 * refresh, not lost).
 */
void top_bpf_drain(struct top_collector *c)
{
	enum { BATCH = 256 };
	struct top_hot_key keys[BATCH];
	__u64 vals[BATCH];
	__u32 out_batch = 0;
	bool first = true;
	int fd;

	c->nr_samples = 0;
	if (!c->skel)
		return;
	fd = bpf_map__fd(c->skel->maps.top_hot);
	for (;;) {
		__u32 n = BATCH;
		int err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &out_batch, &out_batch,
							  keys, vals, &n, NULL);

		first = false;
		for (__u32 i = 0; i < n; i++)
			add_sample(c, &keys[i], vals[i]);
		if (err)
			break;	/* -ENOENT: the last batch */
	}
	{
		__u32 idx = TOP_ST_HOT_FULL;
		int ncpu = libbpf_num_possible_cpus();
		__u64 *per = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*per)), sum = 0;

		if (ncpu > 0 && !bpf_map_lookup_elem(bpf_map__fd(c->skel->maps.top_stats), &idx, per))
			for (int i = 0; i < ncpu; i++)
				sum += per[i];
		c->lost_seen = sum;
		free(per);
	}
}

/* Traces the faults of PID from now on (0: none): the map starts empty. */
int top_bpf_watch(struct top_collector *c, pid_t pid)
{
	struct top_fault_key k, next;
	int fd;

	if (!c->skel)
		return -ENOTSUP;
	c->skel->bss->watch_tgid = 0;
	if (c->fault_link) {
		bpf_link__destroy(c->fault_link);
		c->fault_link = NULL;
	}
	fd = bpf_map__fd(c->skel->maps.top_faults);
	while (!bpf_map_get_next_key(fd, NULL, &next)) {
		k = next;
		bpf_map_delete_elem(fd, &k);
	}
	if (!pid)
		return 0;
	c->skel->bss->watch_tgid = pid;
	c->fault_link = bpf_program__attach(c->skel->progs.top_fault);
	if (!c->fault_link) {
		c->skel->bss->watch_tgid = 0;
		return -errno;
	}
	return 0;
}

/* The drilled process's faults by faulting ip (unnamed: the caller names them). */
int top_bpf_faults(struct top_collector *c, struct sampling_fault_site **out, int *nr)
{
	struct top_fault_key k, next, *prev = NULL;
	struct top_fault_val v;
	int fd, n = 0, cap = 0;
	struct sampling_fault_site *s = NULL;

	*out = NULL;
	*nr = 0;
	if (!c->fault_link)
		return -ENOENT;
	fd = bpf_map__fd(c->skel->maps.top_faults);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			s = xrealloc(s, cap * sizeof(*s));
		}
		memset(&s[n], 0, sizeof(s[n]));
		s[n].loc.ip = k.ip;
		s[n].count = s[n].samples = s[n].minor = v.count;
		s[n].writes = v.writes;
		s[n].instr = v.instr;
		s[n].reads = v.count - v.writes - v.instr;
		s[n].region = -1;
		s[n].nr_procs = 1;
		/* last_addr kept in rel until the region is found (drill.c) */
		s[n].loc.rel = v.last_addr;
		n++;
	}
	*out = s;
	*nr = n;
	return 0;
}

void top_bpf_close(struct top_collector *c)
{
	bpf_link__destroy(c->fault_link);
	bpf_link__destroy(c->tick_link);
	top_bpf__destroy(c->skel);
	c->fault_link = c->tick_link = NULL;
	c->skel = NULL;
	free(c->samples);
	c->samples = NULL;
}
