// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise rules list | show ID | lint [DIR] | metrics | eval --replay FILE
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/common.h"
#include "rules/facts.h"
#include "base/json.h"
#include "base/log.h"
#include "report/output.h"
#include "rules/rules.h"
#include "base/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise rules list\n"
		"       memadvise rules show ID\n"
		"       memadvise rules lint [--examples DIR] [DIR]\n"
		"       memadvise rules metrics\n"
		"       memadvise rules eval --replay FILE [--sarif FILE]\n"
		"\n"
		"Lists, explains and checks the rules memadvise applies after 'run'.  The\n"
		"built-in rules come with memadvise; --rules DIR (a global option) and\n"
		"$MEMADVISE_RULES add more (see memadvise-rules(5) for the format).\n"
		"\n"
		"Subcommands:\n"
		"  list              every rule: id, severity, what it iterates over, title\n"
		"  show ID           one rule in full: evidence, condition, advice, fix\n"
		"  lint [DIR]        check rule files (default: the built-in rules)\n"
		"  metrics           the metric namespace conditions are written in\n"
		"  eval --replay F   evaluate the rules on recorded facts (tests only;\n"
		"                    the result is not a measurement)\n"
		"\n"
		"Options:\n"
		"      --examples DIR  lint: where example workloads live (default:\n"
		"                      DIR/../examples when it exists)\n"
		"      --replay FILE   eval: the recorded facts (JSON)\n"
		"      --sarif FILE    eval: also write the findings as SARIF 2.1.0\n"
		"  -j, --json          JSON output\n"
		"  -h, --help          show this help\n"
		"\n"
		"Exit status: 0 on success; 2 on a malformed rule file or bad usage.\n"
		"\n"
		"Examples:\n"
		"  memadvise rules list\n"
		"  memadvise rules show false-sharing\n"
		"  memadvise rules lint ./my-rules\n"
		"  memadvise --rules ./my-rules run -- ./app\n");
}

static struct json_object *rule__to_json(const struct rule *r)
{
	struct json_object *o = json_object_new_object(), *req = json_object_new_array();
	struct json_object *ev = json_object_new_array(), *ms = json_object_new_object();

	json_object_object_add(o, "id", json_str(r->id));
	json_object_object_add(o, "title", json_str(r->title));
	json_object_object_add(o, "paper", json_str(r->paper));
	json_object_object_add(o, "severity", json_str(severity__name(r->severity)));
	json_object_object_add(o, "for_each", json_str(scope__name(r->scope)));
	for (int i = 0; i < r->nr_requires; i++) {
		char buf[512] = "";
		size_t off = 0;

		for (int j = 0; j < r->requires[i].nr_alt && off < sizeof(buf); j++)
			off += snprintf(buf + off, sizeof(buf) - off, "%s%s", j ? " | " : "",
					r->requires[i].alt[j]);
		json_object_array_add(req, json_str(buf));
	}
	json_object_object_add(o, "requires", req);
	json_object_object_add(o, "when", json_str(r->when.src));
	if (r->inconclusive_when.src)
		json_object_object_add(o, "inconclusive_when",
				       json_str(r->inconclusive_when.src));
	for (int i = 0; i < r->nr_min_samples; i++)
		json_object_object_add(ms, r->min_samples[i].name,
				       json_object_new_double(r->min_samples[i].min));
	json_object_object_add(o, "min_samples", ms);
	for (int i = 0; i < r->nr_evidence; i++)
		json_object_array_add(ev, json_str(r->evidence[i]));
	json_object_object_add(o, "evidence", ev);
	json_object_object_add(o, "message", json_str(r->message));
	json_object_object_add(o, "advice", json_str(r->advice));
	json_object_object_add(o, "fix", json_str(r->fix));
	if (r->gain.src)
		json_object_object_add(o, "gain", json_str(r->gain.src));
	json_object_object_add(o, "example", json_str(r->example));
	json_object_object_add(o, "file", json_str(r->path));
	return o;
}

static void print_json(struct json_object *o)
{
	puts(json_object_to_json_string_ext(o, gopts.pretty ? JSON_C_TO_STRING_PRETTY
							    : JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static int do_list(const struct ruleset *rs)
{
	if (gopts.json) {
		struct json_object *a = json_object_new_array();

		for (int i = 0; i < rs->nr_rules; i++)
			json_object_array_add(a, rule__to_json(&rs->rules[i]));
		print_json(a);
		return MA_EXIT_OK;
	}
	printf("%-20s %-8s %-8s %s\n", "ID", "SEVERITY", "FOR-EACH", "TITLE");
	for (int i = 0; i < rs->nr_rules; i++) {
		const struct rule *r = &rs->rules[i];
		int room = 80 - 20 - 8 - 8 - 3 - 1;

		printf("%-20s %-8s %-8s %.*s%s\n", r->id, severity__name(r->severity),
		       scope__name(r->scope), (int)strlen(r->title) > room ? room - 3 : room, r->title,
		       (int)strlen(r->title) > room ? "..." : "");
	}
	printf("%d rules; 'memadvise rules show ID' explains one\n", rs->nr_rules);
	return MA_EXIT_OK;
}

static void print_block(const char *key, const char *text)
{
	const char *s = text;

	printf("%s:\n", key);
	while (*s) {
		size_t n = strcspn(s, "\n");

		printf("  %.*s\n", (int)n, s);
		s += n;
		if (*s)
			s++;
	}
}

static int do_show(const struct ruleset *rs, const char *id)
{
	const struct rule *r = ruleset__find(rs, id);

	if (!r) {
		pr_err("no rule '%s'", id);
		pr_hint("'memadvise rules list' shows the rule ids");
		return MA_EXIT_ERROR;
	}
	if (gopts.json) {
		print_json(rule__to_json(r));
		return MA_EXIT_OK;
	}
	printf("%s: %s\n", r->id, r->title);
	printf("paper:       section %s\n", r->paper);
	printf("severity:    %s\n", severity__name(r->severity));
	printf("for-each:    %s\n", scope__name(r->scope));
	printf("requires:   ");
	for (int i = 0; i < r->nr_requires; i++) {
		printf(" ");
		for (int j = 0; j < r->requires[i].nr_alt; j++)
			printf("%s%s", j ? " | " : "", r->requires[i].alt[j]);
		printf("%s", i + 1 < r->nr_requires ? "," : "");
	}
	printf("%s\n", r->nr_requires ? "" : " nothing");
	printf("when:        %s\n", r->when.src);
	if (r->inconclusive_when.src)
		printf("inconclusive when: %s\n", r->inconclusive_when.src);
	for (int i = 0; i < r->nr_min_samples; i++)
		printf("min samples: %s >= %g\n", r->min_samples[i].name, r->min_samples[i].min);
	printf("evidence:   ");
	for (int i = 0; i < r->nr_evidence; i++)
		printf(" %s", r->evidence[i]);
	printf("\n");
	if (r->gain.src)
		printf("gain (s):    %s\n", r->gain.src);
	printf("example:     %s\n", r->example);
	printf("file:        %s\n", r->path);
	if (r->explain)
		print_block("explain", r->explain);
	print_block("message", r->message);
	print_block("advice", r->advice);
	print_block("fix", r->fix);
	return MA_EXIT_OK;
}

static int do_metrics(void)
{
	if (gopts.json) {
		struct json_object *a = json_object_new_array();

		for (size_t i = 0; i < metric__nr_registry; i++) {
			const struct metric_def *d = &metric__registry[i];
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "name", json_str(d->name));
			json_object_object_add(o, "for_each", json_str(scope__name(d->scope)));
			json_object_object_add(o, "evidence",
					       json_str(d->kind < EV__COUNT
									      ? evkind__name(d->kind)
									      : "always"));
			json_object_object_add(o, "unit", json_str(d->unit));
			json_object_object_add(o, "help", json_str(d->help));
			json_object_array_add(a, o);
		}
		print_json(a);
		return MA_EXIT_OK;
	}
	for (size_t i = 0; i < metric__nr_registry; i++) {
		const struct metric_def *d = &metric__registry[i];

		printf("%-26s %-16s %s\n", d->name,
		       d->kind < EV__COUNT ? evkind__name(d->kind) : "always", d->help);
	}
	return MA_EXIT_OK;
}

static int do_lint(const char *dir, const char *examples)
{
	char guess[PATH_MAX];
	struct stat st;
	int n;

	if (!examples) {
		snprintf(guess, sizeof(guess), "%s/../examples", dir);
		if (stat(guess, &st) == 0 && S_ISDIR(st.st_mode))
			examples = guess;
		else
			pr_info("note: no examples directory next to '%s': examples not checked "
				"(give --examples DIR)", dir);
	}
	n = ruleset__lint(dir, examples);
	if (n < 0)
		return MA_EXIT_ERROR;
	if (n) {
		pr_hint("%d problem%s; the format is in memadvise-rules(5)", n, n > 1 ? "s" : "");
		return MA_EXIT_ERROR;
	}
	if (!gopts.json)
		printf("%s: all rules are valid\n", dir);
	return MA_EXIT_OK;
}

static int do_eval(const struct ruleset *rs, const char *replay, const char *sarif)
{
	struct json_object *o = json_object_from_file(replay);
	struct factbase *fb = NULL;
	struct findings *fs = NULL;
	char err[256];
	int ret = MA_EXIT_ERROR;

	if (!o) {
		pr_err("cannot read recorded facts from '%s': %s", replay, json_util_get_last_err());
		return MA_EXIT_ERROR;
	}
	if (factbase__from_json(o, &fb, err, sizeof(err))) {
		pr_err("%s: %s", replay, err);
		goto out;
	}
	ruleset__eval_facts(rs, fb, &fs);
	if (sarif && findings__write_sarif(fs, sarif)) {
		pr_err("cannot write '%s': %s", sarif, strerror(errno));
		goto out;
	}
	if (gopts.json) {
		struct json_object *r = json_object_new_object();

		json_object_object_add(r, "replay", json_object_new_boolean(true));
		json_object_object_add(r, "findings", findings__to_json(fs));
		print_json(r);
	} else {
		findings__print_text(fs, stdout, false);
	}
	ret = MA_EXIT_OK;
out:
	findings__free(fs);
	factbase__free(fb);
	json_object_put(o);
	return ret;
}

/*
 * One pass of getopt over the options, which may stand before and after the
 * subcommand.  Returns -1 to go on, or the exit status (--help, bad option).
 */
static int parse_opts(int argc, char **argv, const struct option *opts, const char **examples,
		      const char **replay, const char **sarif)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'E': *examples = optarg; break;
		case 'r': *replay = optarg; break;
		case 'S': *sarif = optarg; break;
		case 'j': gopts.json = true; break;
		case 'h': usage(stdout); return MA_EXIT_OK;
		default:
			cli__opt_error(c, argv, "rules");
			return MA_EXIT_ERROR;
		}
	}
	return -1;
}

int cmd_rules(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "examples", required_argument, NULL, 'E' },
		{ "replay", required_argument, NULL, 'r' },
		{ "sarif", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *examples = NULL, *replay = NULL, *sarif = NULL, *sub;
	struct ruleset *rs = NULL;
	int ret;

	ret = parse_opts(argc, argv, opts, &examples, &replay, &sarif);
	if (ret >= 0)
		return ret;
	if (optind >= argc) {
		pr_err("no subcommand");
		pr_hint("use one of: list, show ID, lint [DIR], metrics, eval --replay FILE");
		return MA_EXIT_ERROR;
	}
	sub = argv[optind++];
	/* options may also follow the subcommand */
	ret = parse_opts(argc, argv, opts, &examples, &replay, &sarif);
	if (ret >= 0)
		return ret;
	if (!strcmp(sub, "lint")) {
		const char *dir = optind < argc ? argv[optind++] : ruleset__builtin_dir();

		if (optind < argc) {
			pr_err("lint takes one directory");
			return MA_EXIT_ERROR;
		}
		return do_lint(dir, examples);
	}
	if (!strcmp(sub, "metrics"))
		return do_metrics();
	if (strcmp(sub, "list") && strcmp(sub, "show") && strcmp(sub, "eval")) {
		pr_err("unknown subcommand '%s'", sub);
		pr_hint("use one of: list, show ID, lint [DIR], metrics, eval --replay FILE");
		return MA_EXIT_ERROR;
	}
	if (!strcmp(sub, "show") && optind + 1 != argc) {
		pr_err("show takes one rule id");
		pr_hint("'memadvise rules list' shows the rule ids");
		return MA_EXIT_ERROR;
	}
	if (strcmp(sub, "show") && optind < argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		return MA_EXIT_ERROR;
	}
	if (!strcmp(sub, "eval") && !replay) {
		pr_err("eval needs --replay FILE (recorded facts)");
		return MA_EXIT_ERROR;
	}
	if (ruleset__load_default(gopts.rules_dir, &rs))
		return MA_EXIT_ERROR;
	if (!strcmp(sub, "list"))
		ret = do_list(rs);
	else if (!strcmp(sub, "show"))
		ret = do_show(rs, argv[optind]);
	else
		ret = do_eval(rs, replay, sarif);
	ruleset__free(rs);
	return ret;
}
