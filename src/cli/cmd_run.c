// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise run [options] -- CMD [ARGS...]
 * memadvise run -p PID [-d DURATION]
 *
 * Parses the options, has collect/run/run.c measure the program (started held
 * before exec, or attached to), applies the rules and writes the report.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common.h"
#include "base/log.h"
#include "base/sudo.h"
#include "report/output.h"
#include "model/report.h"
#include "rules/rules.h"
#include "collect/run/run.h"
#include "base/util.h"

/* What to measure (collect/run/run.h), and what to do with the report. */
struct cmd_run_opts {
	struct run_opts run;
	const char *output;
	const char *sarif;
	bool no_advice;
	bool wide;
	bool any_user;
	double min_gain;	/* share of the run; < 0: the default */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise run [OPTIONS] [--] CMD [ARGS...]\n"
		"       memadvise run [OPTIONS] -p PID [-d DURATION]\n"
		"\n"
		"Runs CMD (or attaches to PID), counts how it uses caches, TLBs and pages,\n"
		"samples where it spends its time and faults, and reports with advice.\n"
		"\n"
		"Options:\n"
		"  -p, --pid PID          attach to a running process instead of starting one\n"
		"  -d, --duration DUR     with -p: measure for DUR (e.g. 10s, 500ms), then detach\n"
		"      --any-user         under sudo, -p may attach to another user's process\n"
		"                         (by default only to the invoking user's)\n"
		"  -e, --events LIST      comma-separated events: generic names or libpfm4 strings\n"
		"  -F, --freq HZ          sampling frequency (default: each sampler's own)\n"
		"      --no-sample        count only: no sampling, tracing or watchpoints\n"
		"      --no-streams       no address streams (uprobes on the hot memory\n"
		"                         instructions in short bursts)\n"
		"      --stream-budget PCT\n"
		"                         share of the run the address streams' bursts may\n"
		"                         cost (default 1; a burst is charged 0.1 ms a probe\n"
		"                         and its hits, or 100-200 ms before Linux 6.6)\n"
		"      --all-faults       sample page faults for the whole run (default: in a\n"
		"                         fault storm, in windows, counting those between)\n"
		"      --sim              run under cachegrind: simulated cache and branch\n"
		"                         counts per source line (tier simulation, slow)\n"
		"      --watch VAR        hardware watchpoint on a global: VAR, VAR.member or\n"
		"                         0xADDR[/LEN]; add :rw for reads too (repeatable,\n"
		"                         at most 4 addresses); 'auto' watches the bytes of\n"
		"                         lines that sampling sees written by two threads\n"
		"  -o, --output FILE      write the report to FILE instead of stdout\n"
		"  -j, --json             JSON report\n"
		"      --pretty           indented JSON (implies --json)\n"
		"  -w, --wide             do not fit the text report into 80 columns\n"
		"      --sarif FILE       also write the findings as SARIF 2.1.0 to FILE\n"
		"      --no-advice        measure only: do not apply the rules\n"
		"      --min-gain PCT     fold findings whose estimated gain is under PCT\n"
		"                         per cent of the run into one line (default 1)\n"
		"  -h, --help             show this help\n"
		"\n"
		"Generic events: cycles instructions l1d_miss llc_miss dtlb_miss branch_miss\n"
		"  task_clock page_faults minor_faults major_faults context_switches\n"
		"  cpu_migrations (the default set is all of them).\n"
		"\n"
		"Exit status: the program's own (128+N when killed by signal N); 0 after -p;\n"
		"2 when memadvise itself fails.\n"
		"\n"
		"Examples:\n"
		"  memadvise run -- ./app input.dat\n"
		"  memadvise run -j -o report.json -- make -j2\n"
		"  memadvise run -e page_faults,l1d_miss -- ./app\n"
		"  memadvise run -p 1234 -d 10s\n"
		"  memadvise run --sim -- ./app small-input\n"
		"  memadvise run --watch counters.hits --watch counters.misses -- ./app\n");
}

/*
 * -p PID: the process exists and, under sudo, belongs to the user who
 * invoked sudo unless --any-user: sudo rights to memadvise are not a way
 * to read other users' (or root's) processes.
 */
static int check_pid(pid_t pid, bool any_user)
{
	struct sudo_user u;
	int own;

	if (kill(pid, 0) && errno == ESRCH) {
		pr_err("no process %d", (int)pid);
		pr_hint("check the pid with 'ps -p %d' or pgrep; the process may have exited", (int)pid);
		return -ESRCH;
	}
	sudo_user__init(&u);
	own = any_user ? 1 : sudo_user__owns_pid(&u, pid);
	sudo_user__free(&u);
	if (own == 0) {
		pr_err("process %d does not belong to the user who ran sudo (uid %s)", (int)pid,
		       getenv("SUDO_UID"));
		pr_hint("attach only to your own processes, or add --any-user to attach to another user's");
		return -EPERM;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct cmd_run_opts *co)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "events", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "no-sample", no_argument, NULL, 'N' },
		{ "all-faults", no_argument, NULL, 'X' },
		{ "no-streams", no_argument, NULL, 'U' },
		{ "stream-budget", required_argument, NULL, 'B' },
		{ "sim", no_argument, NULL, 'S' },
		{ "watch", required_argument, NULL, 'W' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'P' },
		{ "wide", no_argument, NULL, 'w' },
		{ "sarif", required_argument, NULL, 'R' },
		{ "no-advice", no_argument, NULL, 'A' },
		{ "any-user", no_argument, NULL, 0x100 },
		{ "min-gain", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts *o = &co->run;
	int c, v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:d:e:F:o:jwh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_int(optarg, 1, 1 << 30, &v)) {
				pr_err("invalid pid '%s'", optarg);
				return -EINVAL;
			}
			o->pid = v;
			break;
		case 0x100:
			co->any_user = true;
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration_ns) || !o->duration_ns) {
				pr_err("invalid duration '%s'", optarg);
				pr_hint("use a number with a unit: 10s, 500ms, 2m");
				return -EINVAL;
			}
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'F':
			if (parse_int(optarg, 1, 100000, &v)) {
				pr_err("invalid sampling frequency '%s'", optarg);
				pr_hint("give samples per second, 1 to 100000");
				return -EINVAL;
			}
			o->freq_hz = v;
			break;
		case 'N':
			o->no_sample = true;
			break;
		case 'X':
			o->all_faults = true;
			break;
		case 'U':
			o->no_streams = true;
			break;
		case 'B': {
			char *end;
			double pct = strtod(optarg, &end);

			if (end == optarg || *end || !(pct > 0 && pct <= 100)) {
				pr_err("invalid stream budget '%s'", optarg);
				pr_hint("give a percentage of the run, above 0 and up to 100 (e.g. 0.5)");
				return -EINVAL;
			}
			o->stream_budget = pct / 100;
			break;
		}
		case 'S':
			o->sim = true;
			break;
		case 'W':
			if (o->nr_watch == WATCH_MAX) {
				pr_err("too many --watch: at most %d addresses can be watched",
				       WATCH_MAX);
				pr_hint("x86 has four debug registers per thread");
				return -EINVAL;
			}
			o->watch[o->nr_watch++] = optarg;
			break;
		case 'o':
			co->output = optarg;
			break;
		case 'j':
			gopts.json = true;
			break;
		case 'P':
			gopts.json = gopts.pretty = true;
			break;
		case 'w':
			co->wide = true;
			break;
		case 'R':
			co->sarif = optarg;
			break;
		case 'A':
			co->no_advice = true;
			break;
		case 'G': {
			char *end;
			double g;

			errno = 0;
			g = strtod(optarg, &end);
			if (*end == '%')
				end++;
			if (errno || end == optarg || *end || !(g >= 0 && g <= 100)) {
				pr_err("invalid --min-gain '%s'", optarg);
				pr_hint("give a share of the run in per cent, 0 to 100 (e.g. 1 or 0.5%%)");
				return -EINVAL;
			}
			co->min_gain = g / 100;
			break;
		}
		case 'h':
			usage(stdout);
			return 1;
		default:
			cli__opt_error(c, argv, "run");
			return -EINVAL;
		}
	}
	if (o->pid && optind < argc) {
		pr_err("give either a command or -p PID, not both");
		return -EINVAL;
	}
	if (!o->pid && optind >= argc) {
		pr_err("no command to run");
		pr_hint("usage: memadvise run [OPTIONS] -- CMD [ARGS...] or memadvise run -p PID");
		return -EINVAL;
	}
	if (o->sim && o->nr_watch) {
		pr_err("--watch cannot be used with --sim");
		pr_hint("valgrind does not support hardware watchpoints; run twice");
		return -EINVAL;
	}
	if (o->sim && o->pid) {
		pr_err("--sim runs a command under cachegrind; it cannot attach to a pid");
		pr_hint("use 'memadvise run --sim -- CMD [ARGS...]'");
		return -EINVAL;
	}
	if (o->pid && check_pid(o->pid, co->any_user))
		return -EINVAL;
	if (o->duration_ns && !o->pid) {
		pr_err("-d/--duration goes with -p PID");
		pr_hint("a started command is measured until it exits; Ctrl-C ends it early");
		return -EINVAL;
	}
	return 0;
}

/*
 * The rules (40 YAML files and their expressions, 3 to 9 ms) load on a
 * thread while the program is launched and the events open.  The thread is
 * joined before the program is released, so a malformed rule file is still
 * an error before anything runs.
 */
struct rules_load {
	pthread_t thread;
	bool running;
	struct ruleset *rules;
	int err;
};

static void *rules_main(void *arg)
{
	struct rules_load *l = arg;

	l->err = ruleset__load_default(gopts.rules_dir, &l->rules);
	return NULL;
}

static void rules_start(struct rules_load *l)
{
	l->running = !pthread_create(&l->thread, NULL, rules_main, l);
	if (!l->running)
		rules_main(l);
}

/* The rules, or NULL after a failure (already reported); *ERR is set then. */
static struct ruleset *rules_join(struct rules_load *l, int *err)
{
	if (l->running) {
		pthread_join(l->thread, NULL);
		l->running = false;
	}
	*err = l->err;
	return l->rules;
}

/* -vv: the command's phases on the run's clock (see run__phase()). */
static void phase(const char *what)
{
	run__phase(what);
}

/* Writes the SARIF log (empty without findings) to its file. 0 or -errno. */
static int write_sarif(struct cli_out *o, const struct findings *fs)
{
	static const struct findings none;
	int err;

	err = cli_out__rewind(o);
	if (!err)
		err = findings__fwrite_sarif(fs ? fs : &none, o->f);
	err = cli_out__close(o, true) ?: err;
	if (err)
		pr_err("cannot write the SARIF log to '%s': %s", o->path, strerror(-err));
	return err;
}

/*
 * Writes the report to its file.  When that fails the measurement is not
 * lost: the report goes to stdout instead.  0 or -errno.
 */
static int write_report(struct cli_out *o, const struct report *r, bool wide)
{
	bool json = gopts.json, pretty = gopts.pretty;
	int err;

	err = cli_out__rewind(o);
	gopts.stdout_used |= o->f == stdout;
	if (!err)
		err = report__emit(r, o->f, json, pretty, wide);
	err = cli_out__close(o, true) ?: err;
	if (!err)
		return 0;
	pr_err("cannot write the report to '%s': %s", o->path ? o->path : "stdout", strerror(-err));
	if (o->path && strcmp(o->path, "-")) {
		pr_hint("the report follows on stdout");
		gopts.stdout_used = true;
		report__emit(r, stdout, json, pretty, wide);
	}
	return err;
}

/*
 * Once the report is out, what is left is freeing, which the kernel does
 * faster as the process exits: closing the BPF links and the events the
 * target's tasks inherited took 10-14 ms of a short run here ('run --
 * /bin/true' 32-36 ms before, 20-22 after; perf stat 19-21).  Not with
 * -p (the target goes on running: its probes and tracing come out in
 * order), --sim (its temporary directory is removed), a target not
 * reaped, or a leak-checking build.
 */
static bool fast_exit_ok(const struct cmd_run_opts *o, const struct report *r)
{
#if defined(__SANITIZE_ADDRESS__)
	return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return false;
#endif
#endif
	return !o->run.pid && !o->run.sim && r->target.exit_code >= 0;
}

int cmd_run(int argc, char **argv)
{
	struct cmd_run_opts o = { .min_gain = -1 };
	struct run *run = NULL;
	struct report *r = NULL;
	struct ruleset *rules = NULL;
	struct rules_load rl = { 0 };
	struct cli_out out = { 0 }, sarif = { 0 };
	int err, ret = MA_EXIT_ERROR;
	bool reported = false;

	phase("start");
	err = parse_opts(argc, argv, &o);
	if (err)
		return err > 0 ? MA_EXIT_OK : MA_EXIT_ERROR;
	o.run.argv = argv + optind;
	/* A path that cannot be written is an error before the program runs. */
	if (cli_out__open(&out, "-o", o.output) ||
	    (o.sarif && cli_out__open(&sarif, "--sarif", o.sarif))) {
		cli_out__close(&out, false);
		return MA_EXIT_ERROR;
	}

	r = report__new();
	if (run__launch(&run, &o.run, r))
		goto out;
	if (!o.no_advice)
		rules_start(&rl);
	if (run__open(run))
		goto out;
	/* A malformed rule file is an error before the program runs. */
	rules = rules_join(&rl, &err);
	if (err)
		goto out;
	phase("rules loaded");
	if (run__measure(run))
		goto out;
	report__derive_metrics(r);
	if (rules) {
		struct rules_layouts lay;
		struct eval_opts eo;
		struct rules_input in = { .snapshot = r, .layouts = &lay, .opts = &eo };

		eval_opts__from_env(&eo);
		if (o.min_gain >= 0)
			eo.min_gain = o.min_gain;
		rules_layouts__load(&lay, r);
		if (ruleset__eval(rules, &in, &r->findings))
			report__add_provenance(r, "rules", "the rules could not be applied");
		rules_layouts__release(&lay);
	}
	phase("rules applied");
	if (o.run.pid)
		ret = MA_EXIT_OK;
	else
		ret = r->target.exit_code >= 0 ? r->target.exit_code : MA_EXIT_ERROR;
	if (o.sarif && write_sarif(&sarif, r->findings))
		ret = MA_EXIT_ERROR;
	if (write_report(&out, r, o.wide))
		ret = MA_EXIT_ERROR;
	phase("report written");
	reported = true;

out:
	cli_out__close(&sarif, false);
	cli_out__close(&out, false);
	if (reported && fast_exit_ok(&o, r)) {
		phase("done, freeing left to the kernel");
		if (ret == MA_EXIT_ERROR)
			cli__json_error();
		fflush(NULL);
		_exit(ret);
	}
	rules = rules_join(&rl, &err);
	run__free(run);
	report__free(r);
	ruleset__free(rules);
	phase("done");
	return ret;
}
