// SPDX-License-Identifier: GPL-2.0-only
/*
 * One measured run (see run.h): starts the program held before exec (or
 * attaches to a running one), opens counters and collectors on it,
 * releases it, waits, and reads what they measured into the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/addr/addrsample.h"
#include "collect/collector.h"
#include "collect/event.h"
#include "collect/evring.h"
#include "base/log.h"
#include "model/sampling.h"
#include "collect/sampling/sampler.h"
#include "model/report.h"
#include "collect/run/run.h"
#include "collect/sim.h"
#include "collect/streams/streams.h"
#include "collect/target.h"
#include "base/util.h"
#include "collect/watch.h"

/*
 * Every collector 'run' drives, in order (see collector.h): sw-addr before
 * the profile, which runs its program on the sw-addr event (run_shared).
 */
static const struct collector *const collectors[] = {
	&collector_addrsample,
	&collector_sampler,
	&collector_watch,
	&collector_streams,
	NULL,
};

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t signal_from_tty;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_signal = sig;
	/* A terminal's Ctrl-C already reached the target: it is in our process group. */
	signal_from_tty = si && si->si_code == SI_KERNEL;
}

static void join_argv(char *const argv[], char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; argv[i] && off + 1 < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? " " : "", argv[i]);
}

/* "pid 1234: /usr/sbin/nginx -g ..." from /proc/PID/cmdline. */
static void describe_pid(pid_t pid, char *buf, size_t len)
{
	char path[64], *cl;
	size_t n = 0, off;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	off = (size_t)snprintf(buf, len, "pid %d", pid);
	cl = read_file(path, &n);
	if (!cl)
		return;
	for (size_t i = 0; i + 1 < n; i++)
		if (!cl[i])
			cl[i] = ' ';
	if (n && off + 3 < len)
		snprintf(buf + off, len - off, ": %s", cl);
	free(cl);
}

static void explain_launch_error(const char *prog, int err)
{
	switch (err) {
	case -ENOENT:
		pr_err("cannot run '%s': no such file or directory", prog);
		pr_hint(strchr(prog, '/') ? "check the path"
					  : "it is not in PATH; use ./%s for a program in this directory",
			prog);
		break;
	case -EACCES:
		pr_err("cannot run '%s': permission denied", prog);
		pr_hint("make it executable (chmod +x) or check the directory permissions");
		break;
	case -EISDIR:
		pr_err("cannot run '%s': it is a directory", prog);
		pr_hint("name the program to run, e.g. 'memadvise run -- ./app'");
		break;
	case -ENOEXEC:
		pr_err("cannot run '%s': not an executable format", prog);
		pr_hint("a script needs a '#!' line; otherwise run its interpreter");
		break;
	case -ECHILD:
		pr_err("cannot start '%s': its process ended before it could be held for the exec",
		       prog);
		pr_hint("run with -vv for the reason");
		break;
	default:
		pr_err("cannot run '%s': %s", prog, strerror(-err));
	}
}

/*
 * A target that runs another program (sh -c, make, a script's interpreter):
 * the rules read the structs of the executable that ran most of the
 * hot-code samples, which is said in the notes.
 */
static void choose_layout_exe(struct report *r)
{
	char exe[sizeof(r->target.layout_exe)], real[PATH_MAX];
	const char *launched = r->target.exe;
	uint64_t samples, total;
	int procs;

	if (launched[0] && realpath(launched, real))
		launched = real;
	if (!r->sampling ||
	    !sampling__hot_exe(r->sampling, launched, exe, sizeof(exe), &samples, &procs, &total) ||
	    !strcmp(exe, launched))
		return;
	snprintf(r->target.layout_exe, sizeof(r->target.layout_exe), "%s", exe);
	report__add_provenance(r, "layout",
			       "structs and types read from %s, which ran %.0f %% of the hot-code "
			       "samples (%d process%s), not from %s",
			       exe, 100.0 * samples / (total ? total : 1), procs, procs == 1 ? "" : "es",
			       r->target.exe[0] ? r->target.exe : "the launched program");
}

static void note_capabilities(struct report *r)
{
	int missing = 0;
	const char *why = NULL;

	for (int i = 0; i < r->nr_counters; i++) {
		const struct counter *c = &r->counters[i];

		if (!c->counted && c->tier <= TIER_COUNTING) {
			missing++;
			if (!why)
				why = c->reason;
		}
	}
	if (missing)
		report__add_provenance(r, "hardware_counters",
				       "%d hardware counter%s did not count (%s); counts come from "
				       "software events and tracepoints",
				       missing, missing > 1 ? "s" : "", why);
}

#define POLL_MS 20

/*
 * Function-call IPIs taken by all CPUs so far (/proc/interrupts "CAL"), -1
 * when unknown.  In a guest each costs exits on every vCPU, and the sender
 * waits for a vCPU the host may have descheduled: kernel text patching
 * (static keys, static calls: enabling a tracepoint or the first event of a
 * kind) sends them in batches, and they are most of a short run's overhead.
 */
static long ipis_so_far(void)
{
	char *t = read_file("/proc/interrupts", NULL), *l, *save = NULL;
	long sum = -1;

	for (l = t ? strtok_r(t, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char *p = l, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "CAL:", 4))
			continue;
		p += 4;
		sum = 0;
		for (long v = strtol(p, &end, 10); end != p; v = strtol(p, &end, 10)) {
			sum += v;
			p = end;
		}
		break;
	}
	free(t);
	return sum;
}

/*
 * The first per-task perf event on the system turns a static branch on and
 * waits for an RCU grace period (perf_sched_events): 11 to 87 ms in a
 * guest at HZ=250, 0.04 ms while another such event exists (the kernel
 * keeps the branch on for a second after the last one closes).  The first
 * event of a software kind patches kernel text too.  Right after the
 * launch, a thread opens disabled events of those kinds on memadvise
 * itself while the BPF object and the rules load, so that the waits
 * overlap that work; they are closed once the run's own events hold the
 * same keys.  The program waits for them all the same: its counters need
 * the branch.  Expediting grace periods (/sys/kernel/rcu_expedited) would
 * shorten that wait to 2-9 ms, but it is a system-wide setting (expedited
 * grace periods interrupt every CPU) that a killed process group could
 * leave on: memadvise never writes it.
 */
struct primer {
	pthread_t thread;
	bool running;
	pid_t pid;
	uint64_t configs[6];
	int nr;
	int fds[6];
};

static void *primer_main(void *arg)
{
	struct primer *p = arg;

	for (int i = 0; i < p->nr; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_SOFTWARE,
			.config = p->configs[i],
			.disabled = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};

		p->fds[i] = evring__sys_open(&a, p->pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return NULL;
}

/*
 * Starts priming for a run that samples (SAMPLE) and counts the default set
 * (DEFAULTS).
 */
static void primer_start(struct primer *p, bool sample, bool defaults)
{
	memset(p, 0, sizeof(*p));
	p->pid = getpid();
	p->configs[p->nr++] = PERF_COUNT_SW_TASK_CLOCK; /* no key of its own: perf_sched_events */
	if (sample) {
		p->configs[p->nr++] = PERF_COUNT_SW_PAGE_FAULTS;
		p->configs[p->nr++] = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
	}
	if (defaults) {
		p->configs[p->nr++] = PERF_COUNT_SW_CONTEXT_SWITCHES;
		p->configs[p->nr++] = PERF_COUNT_SW_CPU_MIGRATIONS;
		if (!sample)
			p->configs[p->nr++] = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
	}
	for (int i = 0; i < p->nr; i++)
		p->fds[i] = -1;
	p->running = !pthread_create(&p->thread, NULL, primer_main, p);
}

static void primer_stop(struct primer *p)
{
	if (!p->running)
		return;
	pthread_join(p->thread, NULL);
	p->running = false;
	for (int i = 0; i < p->nr; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
}

/*
 * A --watch that names a global: the program is held at its exec-stop so
 * that the watchpoints move to a PIE's load address before it runs.
 */
static bool watch_named(const struct run_opts *o)
{
	if (o->no_sample || o->sim)
		return false;
	for (int i = 0; i < o->nr_watch; i++)
		if (strcmp(o->watch[i], "auto"))
			return true;
	return false;
}

/* -vv: see run.h */
void run__phase(const char *what)
{
	static uint64_t start, last;
	static long last_ipis;
	uint64_t now = now_ns();
	struct rusage ru;
	double self_ms = NAN;
	long ipis;

	if (log__verbosity() < LOG_DEBUG)
		return;
	ipis = ipis_so_far();
	if (!start) {
		start = last = now;
		last_ipis = ipis;
	}
	if (!getrusage(RUSAGE_SELF, &ru))
		self_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			  (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	pr_debug("phase %-22s %7.1f ms (at %7.1f ms, own CPU %6.1f ms, IPIs %ld)", what,
		 (now - last) / 1e6, (now - start) / 1e6, self_ms,
		 ipis >= 0 && last_ipis >= 0 ? ipis - last_ipis : -1L);
	last = now;
	last_ipis = ipis;
}

struct run {
	const struct run_opts *o;
	struct report *r;
	void *state[ARRAY_SIZE(collectors)];
	bool active[ARRAY_SIZE(collectors)];
	bool signals;		/* the handlers below are set, old_* to restore */
	struct sigaction old_int, old_term, old_hup;
	struct primer primer;
	struct event_set *es;
	struct target *t;
	struct sim_run *sim;
	char *const *cmd;	/* what runs: the command, or valgrind running it */
	struct run_ctx ctx;
	struct run_shared shared;
};

/* The simulation and the counters are prepared, the target held or attached. */
int run__launch(struct run **runp, const struct run_opts *o, struct report *r)
{
	struct run *run = xcalloc(1, sizeof(*run));
	int err = 0;

	*runp = run;
	run->o = o;
	run->r = r;
	run->cmd = o->argv;
	if (o->sim) {
		run->sim = sim_run__new(o->argv, o->sim_pin, o->sim_keep);
		if (!run->sim) {
			if (errno == ENOENT) {
				pr_err("cannot run the simulation: valgrind is not installed");
				pr_hint("install it (apt-get install valgrind) or run without --sim");
			} else if (errno == EINVAL) {
				pr_err("cannot run the simulation: a pinned cache cannot be modelled");
				pr_hint("give sizes of sets x ways x line with sets and line powers of two");
			} else {
				pr_err("cannot prepare the simulation: %s", strerror(errno));
			}
			return -1;
		}
		run->cmd = sim_run__argv(run->sim);
	}

	if (o->events)
		err = event_set__parse(&run->es, o->events);
	else
		run->es = event_set__defaults();
	if (err) {
		pr_err("invalid event list '%s'", o->events);
		pr_hint("separate names with commas, e.g. -e page_faults,cycles");
		return err;
	}
	if (o->pid) {
		err = target__attach_pid(&run->t, o->pid);
		if (err == -EINVAL) {
			pr_err("cannot attach to pid %d: it is a kernel thread", o->pid);
			pr_hint("a kernel thread has no user address space to measure; "
				"give the pid of a user process");
			return err;
		}
		if (err) {
			pr_err("cannot attach to pid %d: %s", o->pid,
			       err == -ESRCH ? "no such process" : strerror(-err));
			if (err == -EPERM)
				pr_hint("attach as root or as the process's owner");
			return err;
		}
		describe_pid(o->pid, r->target.command, sizeof(r->target.command));
		r->target.attached = true;
	} else {
		err = target__launch(&run->t, run->cmd, watch_named(o) ? TARGET_STOP_AT_EXEC : 0);
		if (err) {
			explain_launch_error(run->cmd[0], err);
			return err;
		}
		join_argv(o->argv, r->target.command, sizeof(r->target.command));
	}
	/*
	 * Started after the launch: its spawner thread would otherwise wait
	 * for a CPU behind these (0.3-8 ms on two vCPUs).
	 */
	primer_start(&run->primer, !o->no_sample && !o->sim, !o->events);
	/* the BPF object loads while the rules, the counters and the target are prepared */
	if (!o->no_sample && !o->sim)
		sampler__preload();
	return 0;
}

/* Opens every collector wanted, in the table's order; a failed one is provenance. */
static void open_collectors(struct run *run)
{
	const struct run_opts *o = run->o;
	struct run_ctx *ctx = &run->ctx;
	struct report *r = run->r;
	int err;

	ctx->pid = target__pid(run->t);
	ctx->attached = o->pid != 0;
	ctx->exe = target__exe(run->t);
	ctx->argv = o->pid ? NULL : run->cmd;
	ctx->freq_hz = o->freq_hz;
	ctx->shared = &run->shared;
	ctx->sample = !o->no_sample && !o->sim;
	ctx->streams = ctx->sample && !o->no_streams;
	ctx->stream_budget = o->stream_budget;
	ctx->all_faults = o->all_faults;
	if (o->sim)
		report__add_provenance(r, "simulation",
				       "the program ran under cachegrind: counters and timings are "
				       "of valgrind running it; sampling was off");
	ctx->duration_ns = o->duration_ns;
	ctx->watch = o->watch;
	ctx->nr_watch = o->nr_watch;
	run->shared.watch_auto = watch__wants_auto(o->watch, o->nr_watch);
	for (size_t i = 0; collectors[i]; i++) {
		const struct collector *c = collectors[i];

		if (c->wanted && !c->wanted(ctx))
			continue;
		err = c->open(&run->state[i], ctx, r);
		if (err) {
			report__add_provenance(r, c->name, "not collected: %s", strerror(-err));
			if (c->destroy)
				c->destroy(run->state[i]);
			run->state[i] = NULL;
			continue;
		}
		run->active[i] = true;
		run__phase(c->name);
	}
}

/* The counters and the collectors are open on the target, still held. */
int run__open(struct run *run)
{
	const struct run_opts *o = run->o;
	struct report *r = run->r;
	struct target *t = run->t;
	int err;

	r->target.pid = target__pid(t);
	if (run->sim && sim_run__program(run->sim))
		snprintf(r->target.exe, sizeof(r->target.exe), "%s", sim_run__program(run->sim));
	else if (target__exe(t))
		snprintf(r->target.exe, sizeof(r->target.exe), "%s", target__exe(t));

	/* a --watch that names nothing is a usage error, found before the program runs */
	if (o->nr_watch && !o->no_sample)
		err = watch__check(r->target.exe[0] ? r->target.exe : NULL, o->watch, o->nr_watch);
	else
		err = 0;
	if (err)
		return err;

	/* with sampling, the page-faults sampling event gives page_faults (see event.c) */
	if (!o->no_sample && !o->sim)
		event_set__defer(run->es, "page_faults");
	err = event_set__open(run->es, target__pid(t), !o->pid);
	if (err) {
		if (err != -ENOENT && err != -EINVAL)
			pr_err("cannot open counters on pid %d: %s", target__pid(t), strerror(-err));
		return err;
	}

	run__phase("counters opened");
	open_collectors(run);

	if (run->shared.fault_count)
		event_set__provide(run->es, "page_faults", run->shared.fault_count,
				   run->shared.fault_count_ctx);
	event_set__open_deferred(run->es);
	primer_stop(&run->primer);
	return 0;
}

/*
 * The collectors drain their rings every POLL_MS; the target's exit-stop,
 * its death and Ctrl-C end the wait at once.  The rings hold well over
 * POLL_MS of samples at the default rates.
 */
static void wait_target(struct run *run, uint64_t deadline)
{
	struct target *t = run->t;
	int interrupts = 0;

	for (;;) {
		enum target_state st = target__wait(t, POLL_MS);

		/*
		 * Not while the target is stopped at exit: every stopped ms is
		 * its wall time, and each at_exit drains its own ring.
		 */
		for (size_t i = 0; collectors[i] && st != TARGET_AT_EXIT; i++)
			if (run->active[i] && collectors[i]->poll)
				collectors[i]->poll(run->state[i]);
		if (st == TARGET_AT_EXIT) {
			uint64_t stop = now_ns();

			for (size_t i = 0; collectors[i]; i++)
				if (run->active[i] && collectors[i]->at_exit)
					collectors[i]->at_exit(run->state[i], target__pid(t));
			target__resume(t);
			pr_debug("exit-stop of pid %d: %.1f ms", target__pid(t), (now_ns() - stop) / 1e6);
			continue;
		}
		if (st == TARGET_GONE) {
			run->r->target.exited = true;
			/* a Ctrl-C that ended it before it was seen here */
			if (got_signal)
				run->r->target.interrupted = true;
			break;
		}
		if (got_signal) {
			int sig = got_signal;

			got_signal = 0;
			interrupts++;
			run->r->target.interrupted = true;
			if (run->o->pid)
				break; /* never kill a process we only attached to */
			if (interrupts > 1)
				target__kill(t, SIGKILL);
			else if (!signal_from_tty)
				target__kill(t, sig);
		}
		if (deadline && now_ns() >= deadline)
			break;
	}
}

/* The counters, the target's end and every collector's results, into the report. */
static void read_results(struct run *run)
{
	struct report *r = run->r;
	int err;

	event_set__disable(run->es);
	event_set__read(run->es, r);
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		r->timestamp_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	}
	if (run->o->pid) {
		target__detach(run->t);
	} else {
		r->target.exit_code = target__exit_status(run->t);
		r->target.term_signal = target__term_signal(run->t);
	}
	if (target__signal_stops(run->t))
		report__add_provenance(r, "target", "not stopped at its exit: it took %d signals "
				       "(a shell's SIGCHLDs, a timer), each a stop while traced, so "
				       "tracing ended; its regions are as last read while it ran and "
				       "from its mapping records",
				       target__signal_stops(run->t));
	for (size_t i = 0; collectors[i]; i++) {
		if (!run->active[i] || !collectors[i]->finish)
			continue;
		err = collectors[i]->finish(run->state[i], r);
		if (err)
			report__add_provenance(r, collectors[i]->name, "incomplete: %s",
					       strerror(-err));
		run__phase(collectors[i]->name);
	}
	if (run->sim && r->target.exited)
		sim_run__collect(run->sim, r);
	choose_layout_exe(r);
	note_capabilities(r);
}

/*
 * Releases the target and waits for its end.  SIGINT, SIGTERM and SIGHUP
 * are caught from here until run__free (the report is written meanwhile).
 */
int run__measure(struct run *run)
{
	const struct run_opts *o = run->o;
	struct sigaction sa = { 0 };
	uint64_t t0, deadline = 0;
	int err;

	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	run__stop_signals(&sa.sa_mask);
	sigaction(SIGINT, &sa, &run->old_int);
	sigaction(SIGTERM, &sa, &run->old_term);
	sigaction(SIGHUP, &sa, &run->old_hup);
	run->signals = true;
	/* blocked since main() started: one sent meanwhile is handled now */
	sigprocmask(SIG_UNBLOCK, &sa.sa_mask, NULL);

	t0 = now_ns();
	err = target__start(run->t);
	if (err) {
		if (err < 0)
			explain_launch_error(run->cmd[0], err);
		return err;
	}
	if (o->pid)
		pr_info("Measuring pid %d%s. Ctrl-C to end.", o->pid,
			o->duration_ns ? " for the given duration" : "");
	if (o->duration_ns)
		deadline = t0 + o->duration_ns;
	for (size_t i = 0; collectors[i]; i++)
		if (run->active[i] && collectors[i]->started)
			collectors[i]->started(run->state[i]);
	target__resume_exec(run->t);

	wait_target(run, deadline);
	run->r->target.wall_ns = now_ns() - t0;
	run__phase("target ran");
	read_results(run);
	return 0;
}

void run__free(struct run *run)
{
	if (!run)
		return;
	for (size_t i = 0; collectors[i]; i++)
		if (run->active[i] && collectors[i]->destroy)
			collectors[i]->destroy(run->state[i]);
	sampler__preload_discard();
	primer_stop(&run->primer);
	run__phase("collectors closed");
	target__destroy(run->t);
	sim_run__free(run->sim);
	event_set__free(run->es);
	if (run->signals) {
		sigset_t stop;

		/*
		 * Blocked again before the defaults come back: a second Ctrl-C
		 * after the report must not kill memadvise on its way out.
		 */
		run__stop_signals(&stop);
		sigprocmask(SIG_BLOCK, &stop, NULL);
		sigaction(SIGINT, &run->old_int, NULL);
		sigaction(SIGTERM, &run->old_term, NULL);
		sigaction(SIGHUP, &run->old_hup, NULL);
	}
	free(run);
}

void run__stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}
