// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise: memory-performance profiler and advisor.
 * Global options, the command table and dispatch (exact names only).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/common.h"
#include "base/json.h"
#include "base/log.h"
#include "collect/run/run.h"


struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "run", cmd_run, "run a program (or attach to one) and report its memory behaviour" },
	{ "check", cmd_check, "fail a CI job when memory budgets are exceeded" },
	{ "top", cmd_top, "a live, top-like view of memory behaviour, per process" },
	{ "layout", cmd_layout, "struct layouts from DWARF: holes, cache lines, atomics" },
	{ "calibrate", cmd_calibrate, "measure this machine and compare it with the paper" },
	{ "probe", cmd_probe, "what this machine can measure, and why not" },
	{ "rules", cmd_rules, "list, explain and check the rules behind the advice" },
	{ "help", cmd_help, "show this help, or a command's help" },
	{ "version", cmd_version, "print the version and built-in features" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise [OPTIONS] COMMAND [ARGS...]\n"
		"\n"
		"Measures how a C/C++ program uses caches, TLBs and pages, and tells what to change.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -j, --json         JSON output on stdout\n"
		"      --pretty       indented JSON (implies --json)\n"
		"      --rules DIR    also load the rules in DIR\n"
		"  -v, --verbose      more diagnostics (repeatable)\n"
		"  -q, --quiet        only errors on stderr\n"
		"  -V, --version      print the version\n"
		"  -h, --help         show this help\n"
		"\n"
		"Run 'memadvise COMMAND --help' for a command's options.\n"
		"\n"
		"Examples:\n"
		"  memadvise probe                 what this machine can measure\n"
		"  memadvise run -- ./app args     measure ./app and print advice\n"
		"  memadvise run -j -o r.json -p 1234 -d 10s\n");
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
		char *sub[] = { argv[1], (char *)"--help", NULL };

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(cmds[i].name, argv[1]) && cmds[i].fn != cmd_help)
				return cmds[i].fn(2, sub);
		pr_err("unknown command '%s'", argv[1]);
		pr_hint("run 'memadvise help' for the list of commands");
		return MA_EXIT_ERROR;
	}
	usage(stdout);
	return MA_EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
	static const char *features[] = { "bpf", "pfm", "dwarf", "json", "yaml" };

	if (gopts.json) {
		struct json_object *o = json_object_new_object();
		struct json_object *f = json_object_new_array();

		json_object_object_add(o, "version", json_str(MA_VERSION));
		for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
			json_object_array_add(f, json_str(features[i]));
		json_object_object_add(o, "features", f);
		puts(json_object_to_json_string_ext(o, gopts.pretty ? JSON_C_TO_STRING_PRETTY
								    : JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return MA_EXIT_OK;
	}
	printf("memadvise %s\nfeatures:", MA_VERSION);
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		printf(" %s", features[i]);
	putchar('\n');
	return MA_EXIT_OK;
}

/*
 * SIGINT, SIGTERM and SIGHUP are blocked before any library's constructor
 * runs, let alone main(): one sent while memadvise starts waits for the run's
 * handlers (run__measure), or for the other commands' start (their default
 * action).
 */
static void block_stop_signals(void)
{
	sigset_t stop;

	run__stop_signals(&stop);
	sigprocmask(SIG_BLOCK, &stop, NULL);
}

__attribute__((section(".preinit_array"), used))
static void (*const preinit_block)(void) = block_stop_signals;

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'P' },
		{ "rules", required_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int verbosity = LOG_INFO, c;
	sigset_t stop;

	/* blocked already (preinit_array); once more should that not have run */
	run__stop_signals(&stop);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	setvbuf(stderr, NULL, _IOLBF, 0);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jvqVh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': gopts.json = true; break;
		case 'P': gopts.json = gopts.pretty = true; break;
		case 'R': gopts.rules_dir = optarg; break;
		case 'v': verbosity++; gopts.verbose++; break;
		case 'q': verbosity = LOG_ERR; break;
		case 'V': log__set_verbosity(verbosity); return cmd_version(0, NULL);
		case 'h': usage(stdout); return MA_EXIT_OK;
		default:
			cli__opt_error(c, argv, NULL);
			cli__json_error();
			return MA_EXIT_ERROR;
		}
	}
	log__set_verbosity(verbosity);
	log__install_library_hooks();

	if (optind >= argc) {
		usage(stderr);
		return MA_EXIT_ERROR;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(cmds[i].name, argv[optind])) {
			int first = optind;

			optind = 0; /* the command's getopt_long starts afresh */
			int ret;

			if (strcmp(cmds[i].name, "run"))
				sigprocmask(SIG_UNBLOCK, &stop, NULL);
			ret = cmds[i].fn(argc - first, argv + first);
			if (ret == MA_EXIT_ERROR)
				cli__json_error();
			return ret;
		}
	}
	pr_err("unknown command '%s'", argv[optind]);
	pr_hint("run 'memadvise --help' for the list of commands");
	cli__json_error();
	return MA_EXIT_ERROR;
}
