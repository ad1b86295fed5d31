// SPDX-License-Identifier: GPL-2.0-only
/*
 * Huge pages: the khugepaged programs (bpf/thp.bpf.c) loaded on a thread
 * while the target runs, and their counts, /proc/vmstat's and the THP
 * settings read out at finish.
 */
#include "collect/sampling/internal.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "machine/sysinfo.h"
#include "model/report.h"

#include "sampler.skel.h"
#include "tracing.skel.h"

/* ---- khugepaged programs, loaded while the target runs ------------------- */

/* System-wide collapses so far (thp_collapse_alloc and _failed in /proc/vmstat). */
bool prof_vmstat_collapses(uint64_t v[2])
{
	char *t = read_file("/proc/vmstat", NULL), *l, *save = NULL;
	int found = 0;

	for (l = t ? strtok_r(t, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long n;

		if (sscanf(l, "thp_collapse_alloc %llu", &n) == 1) {
			v[0] = n;
			found |= 1;
		} else if (sscanf(l, "thp_collapse_alloc_failed %llu", &n) == 1) {
			v[1] = n;
			found |= 2;
		}
	}
	free(t);
	return found == 3;
}

/*
 * When the khugepaged programs attach: attaching a tracepoint patches kernel
 * text (IPIs to every CPU, 10-30 ms in a guest), and so does detaching it,
 * which is worth it only for a run that khugepaged can reach.  khugepaged
 * wakes every scan_sleep_millisecs (10 s by default) and scans a few MiB;
 * the programs attach a quarter of that into the run, at most 2.5 s, and
 * /proc/vmstat tells whether anything collapsed before.
 */
uint64_t prof_thp_delay_ns(uint64_t *sleep_ms)
{
	uint64_t ms;

	if (read_u64_file("/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs",
			  &ms))
		ms = 10000;
	*sleep_ms = ms;
	ms /= 4;
	return (ms < 2500 ? ms : 2500) * 1000000ULL;
}

/* Loads the tracing object's khugepaged programs and attaches them: off the poll loop. */
static void *thp_main(void *arg)
{
	struct thp_load *t = arg;
	uint64_t t0 = now_ns();

	t->err = prof_tracing_open(&t->skel, t->sampler, 1u << TR_THP, TR_THP, &t->what);
	if (t->err)
		goto out;
	t->what = NULL;
	t->links[0] = bpf_program__attach(t->skel->progs.on_scan_pmd);
	if (!t->links[0]) {
		t->err = -errno;
		t->what = "attach mm_khugepaged_scan_pmd for";
		goto out;
	}
	t->links[1] = bpf_program__attach(t->skel->progs.on_collapse);
	if (!t->links[1]) {
		t->err = -errno;
		t->what = "attach mm_collapse_huge_page for";
		goto out;
	}
	t->t_attached = now_ns();
	t->vm_ok = t->vm_ok && prof_vmstat_collapses(t->vm1);
out:
	t->ns = now_ns() - t0;
	return NULL;
}

void prof_thp_start(struct prof_state *st)
{
	struct thp_load *t = &st->thp;

	t->started = true;
	t->sampler = st->skel;
	t->running = !pthread_create(&t->thread, NULL, thp_main, t);
	if (!t->running) {
		t->err = -EAGAIN;
		t->what = "start a thread to load";
	}
}

void prof_thp_join(struct prof_state *st)
{
	if (!st->thp.running)
		return;
	pthread_join(st->thp.thread, NULL);
	st->thp.running = false;
	pr_debug("profile: khugepaged programs ready after %.1f ms%s%s", st->thp.ns / 1e6,
		 st->thp.err ? ": failed to " : "", st->thp.err ? st->thp.what : "");
}

void prof_thp_destroy(struct thp_load *t)
{
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(t->links[i]);
		t->links[i] = NULL;
	}
	tracing_bpf__destroy(t->skel);
	t->skel = NULL;
}

void prof_finish_thp(struct prof_state *st, struct sampling *p, struct report *r)
{
	struct thp_load *t = &st->thp;
	int fd = -1;
	__u32 k, next, *prev = NULL;
	uint64_t vm[2];

	if (st->skel) {
		prof_thp_join(st);
		if (t->skel && !t->err)
			fd = bpf_map__fd(t->skel->maps.thp);
		else if (t->what)
			report__add_provenance(r, "huge_pages", "khugepaged activity not measured: cannot %s the khugepaged programs: %s (they need kernel BTF)",
					       t->what, strerror(-t->err));
	}
	p->thp_measured = fd >= 0;
	p->thp_delay_ns = t->delay_ns;
	if (p->thp_measured)
		p->thp_watch_from_ns = t->t_attached > st->t_start ? t->t_attached - st->t_start : 0;
	/* what khugepaged did system-wide while the programs were not attached */
	if (p->thp_measured ? t->vm_ok : t->vm_ok && prof_vmstat_collapses(vm)) {
		const uint64_t *end = p->thp_measured ? t->vm1 : vm;

		p->thp_unwatched_known = true;
		p->thp_unwatched.collapse_ok = end[0] - t->vm0[0];
		p->thp_unwatched.collapse_fail = end[1] - t->vm0[1];
	}
	if (st->skel && !t->started && st->started)
		report__add_provenance(r, "huge_pages", "khugepaged programs not attached: the run ended before %.1f s (khugepaged wakes every %.1f s); %s",
				       t->delay_ns / 1e9, t->sleep_ms / 1e3,
				       p->thp_unwatched_known ? "collapses counted system-wide from /proc/vmstat" : "/proc/vmstat unreadable");
	if (fd >= 0) {
		int sfd = bpf_map__fd(t->skel->maps.thp_stats);
		__u32 idx = PROF_THP_NO_OWNER;
		__u64 *v = xcalloc(st->nr_cpus, sizeof(*v)), n = 0;

		if (!bpf_map_lookup_elem(sfd, &idx, v))
			for (int c = 0; c < st->nr_cpus; c++)
				n += v[c];
		free(v);
		if (n)
			report__add_provenance(r, "huge_pages", "%" PRIu64 " khugepaged events on an mm without an owner task (kernel without CONFIG_MEMCG?): not attributed",
					       (uint64_t)n);
	}
	if (sysinfo__thp_mode(p->thp_mode, sizeof(p->thp_mode)) < 0)
		p->thp_mode[0] = '\0';
	if (sysinfo__thp_defrag(p->thp_defrag, sizeof(p->thp_defrag)) < 0)
		p->thp_defrag[0] = '\0';
	while (fd >= 0 && bpf_map_get_next_key(fd, prev, &next) == 0) {
		struct prof_thp_val v;

		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		p->thp.scan_pmd += v.scan_pmd;
		p->thp.collapse_ok += v.collapse_ok;
		p->thp.collapse_fail += v.collapse_fail;
	}
}
