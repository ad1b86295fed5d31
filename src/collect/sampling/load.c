// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF objects: bpf/sampler.bpf.c and then the tracing object (tracing.c)
 * opened and loaded ahead on a thread (sampler__preload), and in a virtual
 * machine the tick sampler (bpf/tick.bpf.c, sampler__tick_plan), one of the
 * tracing object's groups, attached on a thread as the target runs.
 */
#include "collect/sampling/internal.h"
#include "collect/sampling/sampler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "machine/pmu.h"
#include "machine/sysinfo.h"

#include "sampler.skel.h"
#include "tracing.skel.h"

/* ---- the BPF object, loaded ahead on a thread ---------------------------- */

static struct {
	pthread_t thread;
	bool running;
	bool held;		/* joined, res not taken yet */
	struct skel_load res;
	/* the sampler object's part of res is final (the tracing object follows) */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool sampler_done;
	bool tracing_done;	/* the thread is about to end: joining it does not wait */
	bool sampler_taken;	/* res's sampler part went to prof_skel_take() */
} preload = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/*
 * Waits for the sampler object of the preload only (not for the tracing
 * object loaded after it): res.skel and res.err; NULL: none started.
 */
static const struct skel_load *preload_wait_sampler(void)
{
	if (!preload.running)
		return preload.held ? &preload.res : NULL;
	pthread_mutex_lock(&preload.lock);
	while (!preload.sampler_done)
		pthread_cond_wait(&preload.cond, &preload.lock);
	pthread_mutex_unlock(&preload.lock);
	return &preload.res;
}

/* Waits for the preload, whose result stays for prof_skel_take(); NULL: none started. */
static const struct skel_load *preload_wait(void)
{
	if (preload.running) {
		pthread_join(preload.thread, NULL);
		preload.running = false;
		preload.held = true;
	}
	return preload.held ? &preload.res : NULL;
}

static void skel_load(struct skel_load *l)
{
	uint64_t t = now_ns();

	memset(l, 0, sizeof(*l));
	l->skel = sampler_bpf__open();
	l->open_ns = now_ns() - t;
	if (!l->skel) {
		l->err = -errno;
		return;
	}
	l->opened = true;
	l->skel->rodata->bucket_ns = BUCKET_NS;
	l->skel->rodata->nr_buckets = NR_BUCKETS;
	bpf_map__set_max_entries(l->skel->maps.timeline, NR_BUCKETS);
	/*
	 * Without a hardware PMU the one sampling event is cpu-clock, slot 0:
	 * the other three programs would be verified for nothing (about a
	 * third of the load).
	 */
	if (!pmu__hw_exposed()) {
		bpf_program__set_autoload(l->skel->progs.on_sample1, false);
		bpf_program__set_autoload(l->skel->progs.on_sample2, false);
		bpf_program__set_autoload(l->skel->progs.on_sample3, false);
	}
	t = now_ns();
	l->err = sampler_bpf__load(l->skel);
	l->load_ns = now_ns() - t;
	if (l->err) {
		sampler_bpf__destroy(l->skel);
		l->skel = NULL;
	}
}

/*
 * libbpf reads the kernel's BTF (5-6 MB) into two fresh buffers: 2800 page
 * faults, a third of a load.  The profile object needs no BTF (see
 * sampler.bpf.c), but the tracing object, loaded after it on this thread,
 * does.  This thread's malloc arena gets a region advised for transparent
 * huge pages first, which the BTF's buffers then reuse: a few 2 MiB faults
 * instead.  Big blocks come from the arena, not from mmap, while the
 * thresholds are raised; a no-op where THP is off.
 */
#define PRELOAD_ARENA (16 << 20)

static void prepare_arena(void)
{
	char *p;
	uintptr_t a, e;

	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	p = malloc(PRELOAD_ARENA);
	if (!p)
		return;
	a = ((uintptr_t)p + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1);
	e = ((uintptr_t)p + PRELOAD_ARENA) & ~(uintptr_t)((2 << 20) - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE);
	free(p);
}

static void *preload_main(void *arg)
{
	(void)arg;
	prepare_arena();
	skel_load(&preload.res);
	pthread_mutex_lock(&preload.lock);
	preload.sampler_done = true;
	pthread_cond_broadcast(&preload.cond);
	pthread_mutex_unlock(&preload.lock);
	/* only sampling runs preload (run.c), and they trace system calls too */
	if (preload.res.skel)
		prof_tracing_load(&preload.res.tr, preload.res.skel);
	pthread_mutex_lock(&preload.lock);
	preload.tracing_done = true;
	pthread_mutex_unlock(&preload.lock);
	return NULL;
}

void sampler__preload(void)
{
	if (preload.running || preload.held)
		return;
	preload.sampler_done = false;
	preload.tracing_done = false;
	preload.sampler_taken = false;
	preload.running = !pthread_create(&preload.thread, NULL, preload_main, NULL);
}

/*
 * The preloaded object when there is one, else loaded now.  The tracing
 * object (its BTF-typed programs make libbpf parse the kernel's BTF, 10-20
 * ms in a guest) goes on loading on the preload thread while the target
 * starts: l->tr_pending, and prof_tracing_take() hands it over.
 */
void prof_skel_take(struct skel_load *l)
{
	if (!preload.running && !preload.held) {
		skel_load(l);
		if (l->skel)
			prof_tracing_load(&l->tr, l->skel);
		l->tr_pending = false;
		return;
	}
	if (!preload.running) {		/* joined already (tick plan, discard) */
		preload.held = false;
		*l = preload.res;
		l->tr_pending = false;
		memset(&preload.res, 0, sizeof(preload.res));
		return;
	}
	preload_wait_sampler();
	l->skel = preload.res.skel;
	l->err = preload.res.err;
	l->opened = preload.res.opened;
	l->open_ns = preload.res.open_ns;
	l->load_ns = preload.res.load_ns;
	memset(&l->tr, 0, sizeof(l->tr));
	l->tr_pending = true;
	preload.sampler_taken = true;
}

bool prof_tracing_take(struct tracing_load *tr, bool wait)
{
	bool done;

	if (!preload.running && !preload.held)
		return true;
	if (preload.running && !wait) {
		pthread_mutex_lock(&preload.lock);
		done = preload.tracing_done;
		pthread_mutex_unlock(&preload.lock);
		if (!done)
			return false;
	}
	preload_wait();
	preload.held = false;
	*tr = preload.res.tr;
	memset(&preload.res, 0, sizeof(preload.res));
	return true;
}

void sampler__preload_discard(void)
{
	struct skel_load l;

	if (!preload.running && !preload.held)
		return;
	preload_wait();
	preload.held = false;
	l = preload.res;
	memset(&preload.res, 0, sizeof(preload.res));
	prof_tracing_destroy(&l.tr);
	if (l.skel && !preload.sampler_taken)
		sampler_bpf__destroy(l.skel);
	preload.sampler_taken = false;
}

/* ---- the tick sampler, in a virtual machine ------------------------------- */

static struct {
	bool decided;
	unsigned int hz;
	char why[160];
} tick_plan;

unsigned int sampler__tick_plan(const struct run_ctx *ctx, char *why, size_t len)
{
	const struct skel_load *l;
	char nohz[64];

	if (!ctx->sample || ctx->freq_hz || sysinfo__hypervisor() <= 0 || pmu__hw_exposed())
		return 0; /* cpu-clock asked for, or cheap, or hardware events sample */
	if (!tick_plan.decided) {
		tick_plan.decided = true;
		sysinfo__nohz_full(nohz, sizeof(nohz));
		l = preload_wait_sampler();
		if (!l) {
			sampler__preload();
			l = preload_wait_sampler();
		}
		tick_plan.hz = sysinfo__kernel_hz();
#if !defined(__x86_64__)
		snprintf(tick_plan.why, sizeof(tick_plan.why), "not on x86-64");
#else
		if (sysinfo__cpu_flag("fred") > 0)
			snprintf(tick_plan.why, sizeof(tick_plan.why),
				 "FRED entry: a tick cannot tell user from kernel mode");
#endif
		else if (nohz[0])
			snprintf(tick_plan.why, sizeof(tick_plan.why),
				 "CPUs %s run without a tick (nohz_full)", nohz);
		else if (access("/sys/kernel/btf/vmlinux", R_OK))
			snprintf(tick_plan.why, sizeof(tick_plan.why), "no kernel BTF");
		else if (!tick_plan.hz)
			snprintf(tick_plan.why, sizeof(tick_plan.why),
				 "the tick rate is unknown (no /boot/config-RELEASE or /proc/config.gz)");
		else if (!l || !l->skel)
			snprintf(tick_plan.why, sizeof(tick_plan.why), "the BPF object did not load");
		if (tick_plan.why[0])
			tick_plan.hz = 0;
	}
	if (why && len)
		snprintf(why, len, "%s", tick_plan.why);
	return tick_plan.hz;
}

/* Looks up the tick's timer function, attaches the tick program: off the poll loop. */
static void *tick_main(void *arg)
{
	struct tick_load *t = arg;
	uint64_t t0 = now_ns();
	LIBBPF_OPTS(bpf_test_run_opts, run);

	t->err = bpf_prog_test_run_opts(bpf_program__fd(t->skel->progs.find_tick_fn), &run);
	if (t->err) {
		t->err = -errno;
		t->what = "look up the tick's timer function";
		goto out;
	}
	if (!t->skel->bss->tick_fn) {
		t->err = -ENOENT;
		t->what = "find tick_nohz_handler or tick_sched_timer in the kernel's symbols";
		goto out;
	}
	t->link = bpf_program__attach(t->skel->progs.on_tick);
	if (!t->link) {
		t->err = -errno;
		t->what = "attach to hrtimer_expire_entry";
	}
out:
	t->ns = now_ns() - t0;
	__atomic_store_n(&t->done, true, __ATOMIC_RELEASE);
	return NULL;
}

void prof_tick_start(struct prof_state *st)
{
	struct tick_load *t = &st->tick;

	t->started = true;
	t->skel = st->tr.obj[TR_TICK];
	if (!t->skel) {
		t->err = st->tr.tried ? st->tr.err[TR_TICK] : -ENOENT;
		t->what = st->tr.what[TR_TICK] ? st->tr.what[TR_TICK] : "load its BPF object";
		t->done = true;
		return;
	}
	/* the object was loaded before the run knew these */
	t->skel->bss->tick_ns = 1000000000ULL / t->hz;
	t->skel->bss->regs_out = t->regs_out;
	t->skel->bss->since_ns = t->since_ns;
	t->running = !pthread_create(&t->thread, NULL, tick_main, t);
	if (!t->running) {
		t->err = -EAGAIN;
		t->what = "start its attaching thread";
		t->done = true;
	}
}

/*
 * Once the tick sampler is attached: the cpu-clock events are closed (their
 * inherited copies in every thread and child go with them), then the tick
 * counts.
 * TARGET_RUNS false: the target is gone, the switch is not made.
 */
void prof_tick_switch(struct prof_state *st, bool target_runs)
{
	struct tick_load *t = &st->tick;
	struct ev_slot *s = &st->evs[0];

	if (!t->running || !__atomic_load_n(&t->done, __ATOMIC_ACQUIRE))
		return;
	pthread_join(t->thread, NULL);
	t->running = false;
	pr_debug("profile: tick sampler ready after %.1f ms%s%s", t->ns / 1e6,
		 t->err ? ": failed to " : "", t->err ? t->what : "");
	if (t->err || !target_runs)
		return;
	/*
	 * Closed, not only disabled: a disabled event is still copied into
	 * every child the target forks, and freed at its exit.
	 */
	prof_close_fds(s->fds, s->links, s->nr);
	s->fds = NULL;
	s->links = NULL;
	s->nr = 0;
	t->skel->bss->live = 1;
	t->live = true;
	t->t_live = now_ns();
	if (st->shared) {
		snprintf(st->shared->regs_event, sizeof(st->shared->regs_event), "tick");
		st->shared->regs_period_ns = 1000000000ULL / t->hz;
	}
}

/* The object is the tracing object's (prof_tracing_destroy). */
void prof_tick_destroy(struct tick_load *t)
{
	if (t->running)
		pthread_join(t->thread, NULL);
	t->running = false;
	bpf_link__destroy(t->link);
	t->link = NULL;
	t->skel = NULL;
}
