// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise top [-d SECS] [-p PID[,PID...]] [-H] [--batch | -j] [-- CMD...]
 *
 * A live, top-like view of memory behaviour.  A worker thread refreshes
 * (collect/top/: /proc and the tick sampler) and applies the rules to the
 * process drilled into; the main thread only reads keys and draws the last
 * frame the worker published (report/top*.c), so drawing never waits on
 * /proc, on symbolising or on the rules.  --batch and -j write one text
 * frame or one JSON object per refresh instead.
 */
#include <errno.h>
#include <curses.h>
#include <getopt.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/common.h"
#include "base/log.h"
#include "base/util.h"
#include "collect/target.h"
#include "collect/top/top.h"
#include "model/findings.h"
#include "report/top.h"
#include "rules/rules.h"

struct cmd_top_opts {
	uint64_t interval_ns;
	pid_t pids[64];
	int nr_pids;
	bool threads, batch, json, all, no_sample;
	long iterations;		/* 0: until q or a signal */
	enum top_col sort;
	const char *filter;
	char **cmd;
};

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise top [OPTIONS] [-p PID[,PID...]]\n"
		"       memadvise top [OPTIONS] -- CMD [ARGS...]\n"
		"\n"
		"A live view of memory behaviour, one row per process: CPU, page faults per\n"
		"second, RSS, share of anonymous memory in huge pages, the hottest function;\n"
		"Enter drills into a process (hot lines, faulting lines, regions, findings).\n"
		"\n"
		"Options:\n"
		"  -d, --delay SECS       refresh every SECS seconds (default 1, 0.2 to 3600)\n"
		"  -p, --pid LIST         only these processes (comma-separated pids)\n"
		"  -H, --threads          one row per thread\n"
		"  -b, --batch            text frames on stdout, no full screen\n"
		"  -j, --json             one JSON object per refresh on stdout (JSON Lines)\n"
		"  -n, --iterations N     stop after N refreshes\n"
		"  -s, --sort COLUMN      sort by COLUMN: PID CPU%% MINFLT/s MAJFLT/s RSS THP%%\n"
		"                         FIND HOT COMMAND (default CPU%%)\n"
		"  -f, --filter TEXT      show only rows whose command or hot function has TEXT\n"
		"      --all              under sudo, every user's processes (default: only\n"
		"                         the invoking user's)\n"
		"      --no-sample        no hot functions (no BPF tick sampler)\n"
		"  -h, --help             show this help\n"
		"\n"
		"With --batch or -j and one process (-p PID or -- CMD), each refresh also\n"
		"has its drill-down.  With -- CMD, top ends when the command does.\n"
		"Keys: arrows select, Enter drills in, Esc goes back, < > F6 I sort, / filter,\n"
		"H threads, space pauses, h or ? help, q quits (see memadvise-top(1)).\n"
		"\n"
		"Exit status: 0; the command's own with -- CMD; 128+N after signal N;\n"
		"2 when memadvise itself fails.\n"
		"\n"
		"Examples:\n"
		"  sudo memadvise top\n"
		"  sudo memadvise top -p 1234 -b -n 5\n"
		"  sudo memadvise top -j -n 60 > top.jsonl\n"
		"  sudo memadvise top -- ./app input.dat\n");
}

static int parse_pids(const char *arg, struct cmd_top_opts *o)
{
	char *dup = xstrdup(arg), *save = NULL;
	int err = 0;

	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int v;

		if (parse_int(t, 1, 1 << 30, &v) ||
		    o->nr_pids == (int)(sizeof(o->pids) / sizeof(o->pids[0]))) {
			pr_err("invalid pid '%s' in -p", t);
			pr_hint("give at most 64 pids, separated by commas: -p 1234,5678");
			err = -EINVAL;
			break;
		}
		o->pids[o->nr_pids++] = v;
	}
	free(dup);
	return err;
}

static int parse_delay(const char *arg, uint64_t *ns)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (errno || end == arg || *end || s < 0.2 || s > 3600) {
		pr_err("invalid delay '%s'", arg);
		pr_hint("give seconds from 0.2 to 3600, e.g. -d 1 or -d 0.5");
		return -EINVAL;
	}
	*ns = (uint64_t)(s * 1e9);
	return 0;
}

static int parse_opts(int argc, char **argv, struct cmd_top_opts *o)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "threads", no_argument, NULL, 'H' },
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "filter", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'A' },
		{ "no-sample", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, v;

	o->interval_ns = 1000000000ULL;
	o->sort = TOP_COL_CPU;
	o->json = gopts.json;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:d:p:Hbjn:s:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_delay(optarg, &o->interval_ns))
				return -EINVAL;
			break;
		case 'p':
			if (parse_pids(optarg, o))
				return -EINVAL;
			break;
		case 'H': o->threads = true; break;
		case 'b': o->batch = true; break;
		case 'j': o->json = gopts.json = true; break;
		case 'n':
			if (parse_int(optarg, 1, 1 << 30, &v)) {
				pr_err("invalid iteration count '%s'", optarg);
				pr_hint("give a positive number of refreshes, e.g. -n 5");
				return -EINVAL;
			}
			o->iterations = v;
			break;
		case 's':
			v = top_col__parse(optarg);
			if (v < 0) {
				pr_err("unknown sort column '%s'", optarg);
				pr_hint("columns: PID CPU%% MINFLT/s MAJFLT/s RSS THP%% FIND HOT COMMAND");
				return -EINVAL;
			}
			o->sort = v;
			break;
		case 'f': o->filter = optarg; break;
		case 'A': o->all = true; break;
		case 'N': o->no_sample = true; break;
		case 'h': usage(stdout); return 1;
		default:
			cli__opt_error(c, argv, "top");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		if (o->nr_pids) {
			pr_err("-p and a command cannot be used together");
			pr_hint("watch running processes with -p, or start one with -- CMD");
			return -EINVAL;
		}
		o->cmd = argv + optind;
	}
	if (o->batch && o->json) {
		pr_err("--batch and --json cannot be used together");
		pr_hint("--batch writes text frames, -j JSON Lines: pick one");
		return -EINVAL;
	}
	for (int i = 0; i < o->nr_pids; i++)
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			pr_err("no process %d", o->pids[i]);
			pr_hint("list the running processes with 'ps -e' or 'memadvise top'");
			return -EINVAL;
		}
	return 0;
}

/* What the worker and the drawing thread share. */
struct top_shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct top_frame *latest;	/* the last frame published, owned here until taken */
	bool stop, wake;
	pid_t drill;			/* wanted drill-down (0: none) */
	bool threads;
	bool cmd_done;			/* -- CMD ended */
};

/* The rules on the drilled process, with the layouts of its executable kept between refreshes. */
struct top_rules {
	struct ruleset *rs;
	struct rules_layouts lay;
	bool lay_loaded;
	char lay_exe[256];
	struct eval_opts eo;
};

static void rules_apply(struct top_rules *tr, struct top_frame *f)
{
	struct rules_input in = { .layouts = &tr->lay, .opts = &tr->eo };
	const struct report *snap = f->drill.snap;
	int fired = 0;

	if (!snap)
		return;
	if (!tr->rs) {
		snprintf(f->drill.findings_why, sizeof(f->drill.findings_why),
			 "the rules could not be loaded");
		return;
	}
	if (!tr->lay_loaded || strcmp(tr->lay_exe, snap->target.exe)) {
		if (tr->lay_loaded)
			rules_layouts__release(&tr->lay);
		rules_layouts__load(&tr->lay, snap);
		tr->lay_loaded = true;
		snprintf(tr->lay_exe, sizeof(tr->lay_exe), "%s", snap->target.exe);
	}
	in.snapshot = snap;
	if (ruleset__eval(tr->rs, &in, &f->drill.findings)) {
		snprintf(f->drill.findings_why, sizeof(f->drill.findings_why),
			 "the rules could not be applied");
		return;
	}
	for (int i = 0; i < f->drill.findings->nr; i++)
		fired += f->drill.findings->f[i].status == FINDING_FIRED;
	for (int i = 0; i < f->nr_rows; i++)
		if (f->rows[i].pid == f->drill.pid)
			f->rows[i].nr_findings = fired;
}

struct worker {
	struct top_shared *sh;
	struct top_collector *col;
	struct top_rules *rules;
	struct target *t;
	uint64_t interval_ns;
	pthread_t thread;
	int cmd_status;			/* -- CMD's exit status, once it ended */
	bool cmd_done;
};

/* Whether the command of -- CMD has ended (its status into SH). */
static bool cmd_ended(struct worker *w)
{
	enum target_state st;

	if (!w->t)
		return false;
	st = target__wait(w->t, 0);
	if (st == TARGET_AT_EXIT) {	/* stopped at its exit: let it go */
		target__resume(w->t);
		st = target__wait(w->t, 100);
	}
	if (st != TARGET_GONE)
		return false;
	w->cmd_status = target__exit_status(w->t);
	return true;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct top_shared *sh = w->sh;

	for (;;) {
		struct top_frame *f;
		struct timespec until;
		uint64_t next;
		bool done;

		pthread_mutex_lock(&sh->mu);
		top_collector__drill(w->col, sh->drill);
		top_collector__set_threads(w->col, sh->threads);
		pthread_mutex_unlock(&sh->mu);
		top_collector__refresh(w->col, &f);
		rules_apply(w->rules, f);
		done = cmd_ended(w);
		pthread_mutex_lock(&sh->mu);
		w->cmd_done = done;
		top_frame__free(sh->latest);
		sh->latest = f;
		sh->cmd_done = done;
		next = now_ns() + w->interval_ns;
		until.tv_sec = (time_t)(next / 1000000000ULL);
		until.tv_nsec = (long)(next % 1000000000ULL);
		while (!sh->stop && !sh->wake && !done &&
		       pthread_cond_timedwait(&sh->cv, &sh->mu, &until) != ETIMEDOUT)
			;
		sh->wake = false;
		if (sh->stop || done) {
			pthread_mutex_unlock(&sh->mu);
			break;
		}
		pthread_mutex_unlock(&sh->mu);
	}
	return NULL;
}

/* The key actions that the worker must hear of. */
enum { ACT_QUIT = 1, ACT_DRILL = 2, ACT_THREADS = 4 };

/* Moves the selection by DELTA rows (of the view's order); INT_MAX/-INT_MAX: to the end. */
static void select_move(struct top_view *v, const struct top_frame *f, int delta)
{
	int *idx, n = top_view__order(f, v, &idx), at = 0;

	for (int i = 0; i < n; i++) {
		const struct top_row *r = &f->rows[idx[i]];

		if ((r->tid ? r->tid : r->pid) == v->selected)
			at = i;
	}
	if (n) {
		long to = (long)at + delta;

		to = to < 0 ? 0 : to >= n ? n - 1 : to;
		v->selected = f->rows[idx[to]].tid ? f->rows[idx[to]].tid : f->rows[idx[to]].pid;
	}
	free(idx);
}

/* The process of the selected row (the first one when none is). */
static pid_t selected_pid(const struct top_view *v, const struct top_frame *f)
{
	int *idx, n = top_view__order(f, v, &idx);
	pid_t pid = n ? f->rows[idx[0]].pid : 0;

	for (int i = 0; i < n; i++) {
		const struct top_row *r = &f->rows[idx[i]];

		if ((r->tid ? r->tid : r->pid) == v->selected)
			pid = r->pid;
	}
	free(idx);
	return pid;
}

static int key_filter(struct top_view *v, int k)
{
	size_t n = strlen(v->filter);

	if (k == 27) {
		v->filter[0] = '\0';
		v->editing = false;
	} else if (k == '\n' || k == KEY_ENTER) {
		v->editing = false;
	} else if (k == KEY_BACKSPACE || k == 127 || k == 8) {
		if (n)
			v->filter[n - 1] = '\0';
	} else if (k >= 32 && k < 127 && n + 1 < sizeof(v->filter)) {
		v->filter[n] = (char)k;
		v->filter[n + 1] = '\0';
	}
	return 0;
}

static int key_menu(struct top_view *v, int k)
{
	if (k == KEY_UP && v->menu_pos > 0)
		v->menu_pos--;
	else if (k == KEY_DOWN && v->menu_pos < TOP_COL__COUNT - 1)
		v->menu_pos++;
	else if (k == '\n' || k == KEY_ENTER) {
		v->sort = v->menu_pos;
		v->sort_menu = false;
	} else if (k == 27 || k == 'q' || k == KEY_F(6))
		v->sort_menu = false;
	return 0;
}

/* Applies key K to the view; returns ACT_* for the worker. */
static int key_handle(struct top_view *v, const struct top_frame *f, int k)
{
	if (v->help) {
		v->help = false;
		return 0;
	}
	if (v->editing)
		return key_filter(v, k);
	if (v->sort_menu)
		return key_menu(v, k);
	switch (k) {
	case 'q': case KEY_F(10): return ACT_QUIT;
	case 'h': case '?': case KEY_F(1): v->help = true; return 0;
	case ' ': v->paused = !v->paused; return 0;
	case '/': v->editing = true; return 0;
	case '<': case ',': v->sort = v->sort ? v->sort - 1 : TOP_COL__COUNT - 1; return 0;
	case '>': case '.': v->sort = (v->sort + 1) % TOP_COL__COUNT; return 0;
	case 'I': v->ascending = !v->ascending; return 0;
	case KEY_F(6): v->sort_menu = true; v->menu_pos = v->sort; return 0;
	case 'H': v->threads = !v->threads; v->selected = 0; return ACT_THREADS;
	case '\n': case KEY_ENTER: case KEY_RIGHT:
		if (v->drill || !f)
			return 0;
		v->drill = true;
		v->top = 0;
		return ACT_DRILL;
	case 27: case KEY_LEFT: case KEY_BACKSPACE: case 127:
		if (!v->drill)
			return 0;
		v->drill = false;
		v->top = 0;
		return ACT_DRILL;
	default: break;
	}
	if (v->drill) { /* arrows scroll the details */
		if (k == KEY_UP && v->top > 0)
			v->top--;
		else if (k == KEY_DOWN)
			v->top++;
		else if (k == KEY_PPAGE)
			v->top = v->top > 10 ? v->top - 10 : 0;
		else if (k == KEY_NPAGE)
			v->top += 10;
		return 0;
	}
	if (!f)
		return 0;
	switch (k) {
	case KEY_UP: case 'k': select_move(v, f, -1); break;
	case KEY_DOWN: case 'j': select_move(v, f, 1); break;
	case KEY_PPAGE: select_move(v, f, -(LINES > 12 ? LINES - 10 : 1)); break;
	case KEY_NPAGE: select_move(v, f, LINES > 12 ? LINES - 10 : 1); break;
	case KEY_HOME: select_move(v, f, -(1 << 30)); break;
	case KEY_END: select_move(v, f, 1 << 30); break;
	default: break;
	}
	return 0;
}

/* Takes the worker's newest frame, if any: the caller owns it. */
static struct top_frame *frame_take(struct top_shared *sh, bool *done)
{
	struct top_frame *f;

	pthread_mutex_lock(&sh->mu);
	f = sh->latest;
	sh->latest = NULL;
	*done = sh->cmd_done;
	pthread_mutex_unlock(&sh->mu);
	return f;
}

/* The full-screen loop: keys every 100 ms at most, a draw for each key and each new frame. */
static int screen_loop(struct worker *w, struct top_view *v, long iterations)
{
	struct top_shared *sh = w->sh;
	struct top_frame *f = NULL;
	long frames = 0;
	bool done = false, dirty = true;

	while (!stop_sig) {
		struct top_frame *nf = v->paused ? NULL : frame_take(sh, &done);
		int k, act = 0;

		if (nf) {
			top_frame__free(f);
			f = nf;
			frames++;
			dirty = true;
		}
		if (f && dirty)
			top_screen__draw(f, v);
		dirty = false;
		if (done || (iterations && frames >= iterations))
			break;
		k = top_screen__key(100);
		if (k < 0)
			continue;
		dirty = true;
		if (k == KEY_RESIZE)
			continue;
		act = key_handle(v, f, k);
		if (act & ACT_QUIT)
			break;
		if (act & (ACT_DRILL | ACT_THREADS)) {
			pthread_mutex_lock(&sh->mu);
			sh->drill = v->drill ? selected_pid(v, f) : 0;
			sh->threads = v->threads;
			sh->wake = true;	/* refresh now, not at the next tick */
			pthread_cond_signal(&sh->cv);
			pthread_mutex_unlock(&sh->mu);
		}
	}
	top_frame__free(f);
	return 0;
}

/* --batch and -j: a frame per refresh, in this thread (no worker). */
static void batch_loop(struct worker *w, const struct top_view *v, const struct cmd_top_opts *o)
{
	uint64_t next = now_ns();

	for (long n = 0; !stop_sig && (!o->iterations || n < o->iterations); n++) {
		struct top_frame *f;
		struct timespec ts;
		bool done;

		top_collector__refresh(w->col, &f);
		rules_apply(w->rules, f);
		done = w->cmd_done = cmd_ended(w);
		if (o->json) {
			struct json_object *j = top_frame__to_json(f, v);

			gopts.stdout_used = true;
			puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
			fflush(stdout);
			json_object_put(j);
		} else {
			top_frame__print_text(f, v, stdout, 0);
		}
		top_frame__free(f);
		if (done)
			break;
		if (o->iterations && n + 1 >= o->iterations)
			break;
		next += w->interval_ns;
		ts.tv_sec = (time_t)(next / 1000000000ULL);
		ts.tv_nsec = (long)(next % 1000000000ULL);
		while (!stop_sig && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
}

static int start_cmd(struct worker *w, char **cmd, struct cmd_top_opts *o)
{
	int err = target__launch(&w->t, cmd, 0);

	if (!err)
		err = target__start(w->t);
	if (err) {
		if (err != TARGET_ERR_REPORTED) {
			pr_err("cannot run '%s': %s", cmd[0], strerror(-err));
			pr_hint("check the command's name and PATH");
		}
		return -EINVAL;
	}
	o->pids[o->nr_pids++] = target__pid(w->t);
	return 0;
}

static void install_signals(void)
{
	static const int stop[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t set;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++) {
		sigaction(stop[i], &sa, NULL);	/* no SA_RESTART: getch and sleeps return */
		sigaddset(&set, stop[i]);
	}
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static int run_top(struct cmd_top_opts *o, struct worker *w, struct top_view *v)
{
	struct top_shared *sh = w->sh;
	char why[128];
	sigset_t stop, old;
	int verbosity = log__verbosity();

	if (!o->batch && !o->json && top_screen__open(!getenv("NO_COLOR"), why, sizeof(why))) {
		pr_warn("%s: printing text frames, as --batch does", why);
		o->batch = true;
	}
	if (o->batch || o->json) {
		batch_loop(w, v, o);
		return 0;
	}
	/* nothing but errors on stderr while the screen is up: it would draw over it */
	if (!gopts.verbose)
		log__set_verbosity(LOG_ERR);
	sh->threads = v->threads;
	/* the worker takes no stop signal: they interrupt the drawing thread's wait for a key */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if (pthread_create(&w->thread, NULL, worker_main, w)) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		top_screen__close();
		pr_err("cannot start the refresh thread");
		return -EAGAIN;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	screen_loop(w, v, o->iterations);
	pthread_mutex_lock(&sh->mu);
	sh->stop = true;
	pthread_cond_signal(&sh->cv);
	pthread_mutex_unlock(&sh->mu);
	top_screen__close();
	log__set_verbosity(verbosity);
	pthread_join(w->thread, NULL);
	top_frame__free(sh->latest);
	sh->latest = NULL;
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct cmd_top_opts o = { 0 };
	struct top_shared sh = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct top_rules rules = { 0 };
	struct top_view v = { 0 };
	struct worker w = { .sh = &sh, .rules = &rules };
	struct top_opts to = { .only_uid = (uid_t)-1 };
	pthread_condattr_t ca;
	const char *sudo_uid = getenv("SUDO_UID");
	int err, ret = MA_EXIT_ERROR;

	setlocale(LC_ALL, "");
	err = parse_opts(argc, argv, &o);
	if (err)
		return err > 0 ? MA_EXIT_OK : MA_EXIT_ERROR;
	install_signals();
	if (ruleset__load_default(gopts.rules_dir, &rules.rs))
		return MA_EXIT_ERROR;	/* said why */
	eval_opts__from_env(&rules.eo);
	if (o.cmd && start_cmd(&w, o.cmd, &o))
		goto out;
	if (geteuid() == 0 && sudo_uid && *sudo_uid && !o.all) {
		int uid;

		if (!parse_int(sudo_uid, 0, 1 << 30, &uid))
			to.only_uid = (uid_t)uid;
	}
	to.pids = o.nr_pids ? o.pids : NULL;
	to.nr_pids = o.nr_pids;
	to.threads = o.threads;
	to.all_users = o.all;
	to.no_bpf = o.no_sample;
	top_collector__open(&w.col, &to);
	w.interval_ns = o.interval_ns;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sh.cv, &ca);
	pthread_condattr_destroy(&ca);
	v.sort = o.sort;
	v.threads = o.threads;
	if (o.filter)
		snprintf(v.filter, sizeof(v.filter), "%s", o.filter);
	/* one process in a script: its drill-down in every frame */
	if ((o.batch || o.json) && o.nr_pids == 1)
		top_collector__drill(w.col, o.pids[0]);
	if (run_top(&o, &w, &v) == 0)
		ret = MA_EXIT_OK;
	if (stop_sig)
		ret = 128 + stop_sig;
	else if (w.t && w.cmd_done)
		ret = w.cmd_status >= 0 ? w.cmd_status : MA_EXIT_ERROR;
	pthread_cond_destroy(&sh.cv);
out:
	if (w.t) {
		if (!w.cmd_done)
			target__kill(w.t, SIGTERM);
		target__destroy(w.t);
	}
	top_collector__close(w.col);
	if (rules.lay_loaded)
		rules_layouts__release(&rules.lay);
	ruleset__free(rules.rs);
	return ret;
}
