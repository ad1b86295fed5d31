// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise calibrate: runs the example workloads on this machine (the steps
 * are in machine/calibrate_run.c), compares them with the paper's numbers,
 * and writes the machine profile (machine_profile.h) and two SVG charts.
 * This file parses the options, chooses the paths and prints the result.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "machine/calibrate_run.h"
#include "cli/common.h"
#include "base/sudo.h"
#include "base/json.h"
#include "base/log.h"
#include "machine/machine_profile.h"
#include "base/util.h"

/* Prints prefix + text, wrapped at 80 columns with continuation lines indented. */
static void print_wrapped(const char *prefix, const char *text)
{
	size_t col = strlen(prefix), indent = col;

	fputs(prefix, stdout);
	while (*text) {
		size_t w = strcspn(text, " ");

		if (col > indent && col + 1 + w > 80) {
			printf("\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		fwrite(text, 1, w, stdout);
		col += w;
		text += w;
		text += strspn(text, " ");
	}
	putchar('\n');
}

static void print_text(struct cal *c, const char *path, const char *svg1, const char *svg2)
{
	const struct machine_profile *mp = &c->mp;
	char b1[32], b2[32];

	printf("memadvise calibrate: %s, %d CPUs%s%s\n", mp->cpu_model, mp->nr_cpus,
	       mp->hypervisor ? ", virtual machine" : "", mp->quick ? " (--quick)" : "");
	printf("clock %.2f GHz: %s\n\n", mp->ghz, mp->ghz_source);
	printf("%-6s %-10s %-10s %10s %8s %10s\n", "level", "sysfs", "knee", "latency", "cycles",
	       "spread");
	for (int i = 0; i < MP__LEVELS; i++) {
		const struct mp_level *l = &mp->level[i];

		if (!l->sysfs_size && isnan(l->latency_ns))
			continue;
		printf("%-6s %-10s %-10s ", machine_profile__level_name(i), calib__fmt_size(l->sysfs_size, b1, sizeof(b1)),
		       calib__fmt_size(l->detected_size, b2, sizeof(b2)));
		if (isnan(l->latency_ns))
			printf("%10s %8s %10s\n", "-", "-", "-");
		else if (isnan(l->latency_cycles))
			printf("%7.2f ns %8s %7.2f ns\n", l->latency_ns, "-", l->spread_ns);
		else
			printf("%7.2f ns %8.1f %7.2f ns\n", l->latency_ns, l->latency_cycles, l->spread_ns);
	}
	printf("\n");
	/* Unmeasured numbers print as "-", never as 0 or nan. */
	char f[12][24];
	const double vals[12] = { mp->tlb_miss_ns, mp->bw_read_gbs, mp->bw_write_gbs, mp->bw_copy_gbs,
				  mp->bw_nt_write_gbs, mp->false_sharing_ns, mp->no_sharing_ns,
				  mp->atomic_add_ns, mp->atomic_fetch_add_ns, mp->atomic_cas_ns,
				  mp->atomic_local_ns, mp->page_fault_ns };
	const int ints[4] = { mp->l1d_ways, mp->l1d_ways_sysfs, mp->dtlb_entries, mp->stlb_entries };
	char g[4][16];

	for (int i = 0; i < 12; i++) {
		if (isnan(vals[i]))
			snprintf(f[i], sizeof(f[i]), "-");
		else
			snprintf(f[i], sizeof(f[i]), vals[i] < 1 ? "%.2f" : vals[i] < 100 ? "%.1f" : "%.0f", vals[i]);
	}
	for (int i = 0; i < 4; i++) {
		if (ints[i])
			snprintf(g[i], sizeof(g[i]), "%d", ints[i]);
		else
			snprintf(g[i], sizeof(g[i]), "-");
	}
	printf("L1d ways %s (sysfs %s)   DTLB knee %s, STLB knee %s entries   TLB miss %s ns\n",
	       g[0], g[1], g[2], g[3], f[0]);
	printf("bandwidth GB/s: read %s  write %s  copy %s  nt-write %s\n", f[1], f[2], f[3], f[4]);
	printf("per increment, 2 threads: shared line %s ns, padded %s ns;\n"
	       "  add %s, fetch-add %s, cas %s, local %s ns   page fault %s ns\n\n",
	       f[5], f[6], f[7], f[8], f[9], f[10], f[11]);

	printf("%-20s %-18s %-30s %s\n", "check", "paper", "here", "holds");
	for (size_t i = 0; i < json_object_array_length(c->checks); i++) {
		struct json_object *o = json_object_array_get_idx(c->checks, i), *h, *v;
		const char *s[3];

		json_object_object_get_ex(o, "id", &v);
		s[0] = json_object_get_string(v);
		json_object_object_get_ex(o, "paper", &v);
		s[1] = json_object_get_string(v);
		json_object_object_get_ex(o, "here", &v);
		s[2] = json_object_get_string(v);
		json_object_object_get_ex(o, "holds", &h);
		printf("%-20s %-18.18s %-30.30s %s\n", s[0], s[1], s[2],
		       !h ? "n/a" : json_object_get_boolean(h) ? "yes" : "NO");
	}
	for (size_t i = 0; i < json_object_array_length(c->notes); i++)
		print_wrapped("note: ", json_object_get_string(json_object_array_get_idx(c->notes, i)));
	if (path)
		printf("\nprofile: %s\n", path);
	if (svg1)
		printf("charts:  %s\n         %s\n", svg1, svg2);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise calibrate [OPTIONS]\n"
		"\n"
		"Runs the example workloads on this machine, measures latency per cache level,\n"
		"cache-size knees, L1d associativity, TLB-miss penalty, bandwidth, false-sharing\n"
		"and atomic costs, compares them with the paper, and saves the machine profile.\n"
		"\n"
		"Options:\n"
		"  -o, --output FILE     profile path (default $XDG_CACHE_HOME/memadvise/machine.json\n"
		"                        or ~/.cache/memadvise/machine.json)\n"
		"  -s, --svg-dir DIR     write latency.svg and matmul.svg here (default: the\n"
		"                        profile's directory)\n"
		"  -n, --no-save         write neither the profile nor the charts\n"
		"  -e, --examples DIR    the example binaries (default: found automatically)\n"
		"  -r, --rounds N        interleaved rounds per comparison (default 3)\n"
		"      --quick           smaller sizes, for tests (about 30 s)\n"
		"      --no-realtime     do not run the workloads under SCHED_FIFO\n"
		"  -j, --json            JSON on stdout\n"
		"      --pretty          indented JSON\n"
		"  -h, --help            show this help\n"
		"\n"
		"Examples:\n"
		"  memadvise calibrate\n"
		"  memadvise calibrate --quick -j -o machine.json\n");
}

/*
 * Under sudo the profile, its directories and the charts are the invoking
 * user's: made by a child process that became that user (sudo_user__run).
 */
static int make_dirs_cb(void *path)
{
	return machine_profile__make_dirs(path);
}

static int writable_cb(void *dir)
{
	return access(dir, W_OK) ? -errno : 0;
}

struct save_arg {
	const struct machine_profile *mp;
	const char *path;
};

static int save_cb(void *arg)
{
	const struct save_arg *sa = arg;

	return machine_profile__save(sa->mp, sa->path);
}

int cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "svg-dir", required_argument, NULL, 's' },
		{ "no-save", no_argument, NULL, 'n' },	    { "examples", required_argument, NULL, 'e' },
		{ "rounds", required_argument, NULL, 'r' }, { "quick", no_argument, NULL, 'Q' },
		{ "json", no_argument, NULL, 'j' },	    { "pretty", no_argument, NULL, 'P' },
		{ "no-realtime", no_argument, NULL, 'R' },  { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *svg_dir = NULL, *examples = NULL;
	char path[PATH_MAX], svg1[PATH_MAX + 16], svg2[PATH_MAX + 16], dirbuf[PATH_MAX];
	bool save = true, have_svg = false;
	struct sudo_user user;
	struct cal *c;
	int opt, err, ret = MA_EXIT_ERROR;
	uint64_t t0 = now_ns();

	sudo_user__init(&user);
	c = cal__new();
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:s:ne:r:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 's': svg_dir = optarg; break;
		case 'n': save = false; break;
		case 'e': examples = optarg; break;
		case 'r':
			if (parse_int(optarg, 1, 32, &c->rounds)) {
				pr_err("bad --rounds '%s'", optarg);
				pr_hint("give a number from 1 to 32");
				goto out;
			}
			break;
		case 'Q': c->quick = true; break;
		case 'R': c->realtime = false; break;
		case 'j': gopts.json = true; break;
		case 'P': gopts.json = gopts.pretty = true; break;
		case 'h': usage(stdout); ret = MA_EXIT_OK; goto out;
		default: cli__opt_error(opt, argv, "calibrate"); goto out;
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		cli__opt_error(opt, argv, "calibrate");
		goto out;
	}
	err = calib__find_examples(examples, c->dir, sizeof(c->dir));
	if (err) {
		pr_err("cannot find the example workloads%s%s", examples ? " in " : "",
		       examples ? examples : "");
		pr_hint("run 'make examples', or point --examples or $MEMADVISE_EXAMPLES at examples/bin");
		goto out;
	}
	if (output) {
		snprintf(path, sizeof(path), "%s", output);
	} else if (machine_profile__default_path(path, sizeof(path))) {
		if (save) {
			pr_err("no place for the profile: neither $XDG_CACHE_HOME nor $HOME is set");
			pr_hint("give one with -o FILE");
			goto out;
		}
		path[0] = 0;
	}
	if (save) {
		if (svg_dir) {
			snprintf(dirbuf, sizeof(dirbuf), "%s", svg_dir);
		} else {
			char *slash;

			snprintf(dirbuf, sizeof(dirbuf), "%s", path);
			slash = strrchr(dirbuf, '/');
			if (slash)
				*slash = 0;
			else
				snprintf(dirbuf, sizeof(dirbuf), ".");
		}
		/* Create the directories now, so a bad path fails before minutes of measuring. */
		snprintf(svg1, sizeof(svg1), "%s/", dirbuf);
		err = sudo_user__run(&user, make_dirs_cb, path);
		const char *bad = path;
		if (!err) {
			bad = dirbuf;
			err = sudo_user__run(&user, make_dirs_cb, svg1);
		}
		if (!err)
			err = sudo_user__run(&user, writable_cb, dirbuf);
		if (err) {
			pr_err("cannot create the directory of '%s': %s", bad, strerror(-err));
			pr_hint("choose another place with -o FILE or --svg-dir DIR");
			goto out;
		}
		snprintf(svg1, sizeof(svg1), "%s/latency.svg", dirbuf);
		snprintf(svg2, sizeof(svg2), "%s/matmul.svg", dirbuf);
		have_svg = true;
	}

	cal__prepare(c);
	cal__measure(c, have_svg ? svg2 : NULL);
	if (have_svg)
		cal__write_latency_svg(c, svg1);
	if (save) {
		struct save_arg sa = { .mp = &c->mp, .path = path };

		err = sudo_user__run(&user, save_cb, &sa);
		if (err) {
			pr_err("cannot write '%s': %s", path, strerror(-err));
			goto out;
		}
	}

	if (gopts.json) {
		struct json_object *root = json_object_new_object(), *svgs = json_object_new_array();

		json_object_object_add(root, "profile", machine_profile__to_json(&c->mp));
		json_object_object_add(root, "profile_path", save ? json_str(path) : NULL);
		if (have_svg) {
			json_object_array_add(svgs, json_str(svg1));
			json_object_array_add(svgs, json_str(svg2));
		}
		json_object_object_add(root, "svg", svgs);
		json_object_object_foreach(c->out, k, v)
			json_object_object_add(root, k, json_object_get(v));
		json_object_object_add(root, "checks", json_object_get(c->checks));
		json_object_object_add(root, "notes", json_object_get(c->notes));
		json_object_object_add(root, "failed_runs", json_object_new_int(c->failed));
		json_object_object_add(root, "elapsed_s", json_object_new_double((double)(now_ns() - t0) / 1e9));
		puts(json_object_to_json_string_ext(root, gopts.pretty ? JSON_C_TO_STRING_PRETTY
								       : JSON_C_TO_STRING_PLAIN));
		json_object_put(root);
	} else {
		print_text(c, save ? path : NULL, have_svg ? svg1 : NULL, svg2);
		printf("elapsed %.0f s\n", (double)(now_ns() - t0) / 1e9);
	}
	ret = c->failed ? MA_EXIT_ERROR : MA_EXIT_OK;
out:
	sudo_user__free(&user);
	cal__delete(c);
	return ret;
}
