// SPDX-License-Identifier: GPL-2.0-only
/*
 * The programs that need the kernel's BTF: the tick sampler
 * (bpf/tick.bpf.c), the system-call and scheduler programs
 * (bpf/systime.bpf.c) and the khugepaged programs (bpf/thp.bpf.c), linked
 * into one object (tracing.bpf.o, see the Makefile).  The tick and
 * system-call programs are loaded together after the sampler object, on the
 * thread that loads it ahead; the khugepaged programs only in a run that
 * lasts long enough for khugepaged to matter (see prof_thp_delay_ns), from
 * the same object with the other programs left out: loading them with the
 * others cost every run 1.5 ms of CPU, loading them on their own costs such
 * a run a parse more.
 *
 * libbpf parses the kernel's BTF (/sys/kernel/btf/vmlinux, 5-6 MB) for
 * every object that has CO-RE relocations or typed tracepoints, and frees
 * it when that object is loaded: libbpf 1.1 has no way to hand one parsed
 * BTF to several objects (btf_custom_path only replaces the BTF of the CO-RE
 * relocations, by another file to parse, and a typed tracepoint's target is
 * looked up in the kernel's BTF regardless).  Two objects cost two
 * parses, 5-15 ms of CPU each; one object costs one.
 *
 * Loaded together, one program the kernel refuses (a tracepoint it lacks, a
 * map type it does not know) would take the others down with it.  When the
 * object does not load, each group is loaded again on its own, in an object
 * of its own with the other groups' programs and maps left out: each group
 * then fails or works as it did as an object of its own, and says why.
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "base/util.h"
#include "machine/pmu.h"
#include "machine/sysinfo.h"

#include "sampler.skel.h"
#include "tracing.skel.h"

/* What failed, in each group's words (the provenance notes say "cannot WHAT ..."). */
static const char *const what_open[TR__COUNT] = {
	[TR_TICK] = "open its BPF object", [TR_SYSTIME] = "open", [TR_THP] = "open",
};
static const char *const what_share[TR__COUNT] = {
	[TR_TICK] = "share the profile's maps",
	[TR_SYSTIME] = "share the process set with", [TR_THP] = "share the process set with",
};
static const char *const what_load[TR__COUNT] = {
	[TR_TICK] = "load its BPF object", [TR_SYSTIME] = "load", [TR_THP] = "load",
};

/* The programs of group G. */
static int group_progs(struct tracing_bpf *o, int g, struct bpf_program **p)
{
	switch (g) {
	case TR_TICK:
		p[0] = o->progs.find_tick_fn;
		p[1] = o->progs.on_tick;
		return 2;
	case TR_SYSTIME:
		p[0] = o->progs.on_switch;
		p[1] = o->progs.on_sys_enter;
		p[2] = o->progs.on_sys_exit;
		return 3;
	default:
		p[0] = o->progs.on_scan_pmd;
		p[1] = o->progs.on_collapse;
		return 2;
	}
}

/* The maps only group G uses ('procs' and the global data are everyone's). */
static int group_maps(struct tracing_bpf *o, int g, struct bpf_map **m)
{
	switch (g) {
	case TR_TICK:
		m[0] = o->maps.hot;
		m[1] = o->maps.stacks;
		m[2] = o->maps.stack_counts;
		m[3] = o->maps.regs_ring;
		m[4] = o->maps.stats;
		return 5;
	case TR_SYSTIME:
		m[0] = o->maps.locks;
		m[1] = o->maps.tasks;
		m[2] = o->maps.systime;
		return 3;
	default:
		m[0] = o->maps.thp;
		m[1] = o->maps.thp_stats;
		return 2;
	}
}

/*
 * Opens and loads the programs of the groups in mask GROUPS, sharing the
 * maps of the sampler object S; on failure *what is what failed, in the
 * words of the group FIRST.
 */
int prof_tracing_open(struct tracing_bpf **out, struct sampler_bpf *s, unsigned int groups,
		      int first, const char **what)
{
	struct tracing_bpf *o;
	struct bpf_program *progs[3];
	struct bpf_map *maps[5];
	int err, n;

	*out = NULL;
	*what = what_open[first];
	o = tracing_bpf__open();
	if (!o)
		return -errno;
	for (int g = 0; g < TR__COUNT; g++) {
		if (groups & (1u << g))
			continue;
		n = group_progs(o, g, progs);
		for (int i = 0; i < n; i++)
			bpf_program__set_autoload(progs[i], false);
		n = group_maps(o, g, maps);
		for (int i = 0; i < n; i++)
			bpf_map__set_autocreate(maps[i], false);
	}
	*what = what_share[first];
	err = bpf_map__reuse_fd(o->maps.procs, bpf_map__fd(s->maps.procs));
	if (!err && (groups & (1u << TR_TICK))) {
		struct bpf_map *theirs[5] = { s->maps.hot, s->maps.stacks, s->maps.stack_counts,
					      s->maps.regs_ring, s->maps.stats };

		group_maps(o, TR_TICK, maps);
		for (int i = 0; !err && i < 5; i++)
			err = bpf_map__reuse_fd(maps[i], bpf_map__fd(theirs[i]));
	}
	if (err)
		goto fail;
	o->rodata->futex_nr = SYS_futex;
#ifdef SYS_futex_waitv
	o->rodata->futex_waitv_nr = SYS_futex_waitv;
#endif
	*what = what_load[first];
	err = tracing_bpf__load(o);
	if (err)
		goto fail;
	*out = o;
	return 0;
fail:
	tracing_bpf__destroy(o);
	return err;
}

/*
 * Whether the tick sampler can be wanted on this machine (a guest without
 * hardware sampling events, see sampler__tick_plan): elsewhere its programs
 * are not loaded.
 */
static bool tick_possible(void)
{
#if defined(__x86_64__)
	return sysinfo__hypervisor() > 0 && !pmu__hw_exposed();
#else
	return false;
#endif
}

void prof_tracing_load(struct tracing_load *tl, struct sampler_bpf *s)
{
	uint64_t t0 = now_ns();
	unsigned int groups = 1u << TR_SYSTIME;
	struct tracing_bpf *o;
	const char *what;
	int err, first;

	memset(tl, 0, sizeof(*tl));
	tl->tried = true;
	if (tick_possible())
		groups |= 1u << TR_TICK;
	else
		tl->err[TR_TICK] = -EOPNOTSUPP;
	first = groups & (1u << TR_TICK) ? TR_TICK : TR_SYSTIME;
	err = prof_tracing_open(&o, s, groups, first, &what);
	if (!err) {
		for (int g = 0; g < TR__COUNT; g++)
			if (groups & (1u << g))
				tl->obj[g] = o;
		tl->owned[first] = true;
	} else {
		/* each group on its own: each says why it failed */
		for (int g = 0; g < TR__COUNT; g++) {
			if (!(groups & (1u << g)))
				continue;
			tl->err[g] = prof_tracing_open(&tl->obj[g], s, 1u << g, g, &tl->what[g]);
			tl->owned[g] = !tl->err[g];
		}
		tl->split = true;
	}
	tl->ns = now_ns() - t0;
}

void prof_tracing_destroy(struct tracing_load *tl)
{
	for (int g = 0; g < TR__COUNT; g++) {
		if (tl->owned[g])
			tracing_bpf__destroy(tl->obj[g]);
		tl->obj[g] = NULL;
		tl->owned[g] = false;
	}
	tl->tried = false;
}
