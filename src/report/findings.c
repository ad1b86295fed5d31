// SPDX-License-Identifier: GPL-2.0-only
/* Findings as text, JSON and SARIF 2.1.0. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/findings.h"
#include "report/output.h"
#include "base/log.h"
#include "base/json.h"
#include "base/util.h"

static void add_str(struct json_object *o, const char *k, const char *v)
{
	if (v && v[0])
		json_object_object_add(o, k, json_str(v));
}

/* Prints TEXT wrapped at WIDTH with INDENT spaces (words longer than a line stay whole). */
static void wrap(FILE *f, const char *text, int indent, int width)
{
	int col = 0;
	const char *s = text;

	while (*s) {
		const char *w = s;
		int n;

		while (*w == ' ')
			w++;
		if (*w == '\n') {
			fputc('\n', f);
			col = 0;
			s = w + 1;
			continue;
		}
		n = (int)strcspn(w, " \n");
		if (!n)
			break;
		if (col && col + 1 + n > width) {
			fputc('\n', f);
			col = 0;
		}
		if (!col) {
			fprintf(f, "%*s", indent, "");
			col = indent;
		} else {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, n, f);
		col += n;
		s = w + n;
	}
	if (col)
		fputc('\n', f);
}

static void print_code(FILE *f, const char *code, int indent)
{
	const char *s = code;

	while (*s) {
		size_t n = strcspn(s, "\n");

		fprintf(f, "%*s%.*s\n", n ? indent : 0, "", (int)n, s);
		s += n;
		if (*s == '\n')
			s++;
	}
}

static void print_where(FILE *f, const struct finding *x)
{
	char buf[600];
	size_t off = 0;

	buf[0] = '\0';
	if (x->struct_name[0])
		off += snprintf(buf + off, sizeof(buf) - off, "struct %s%s%s", x->struct_name,
				x->member[0] ? "." : "", x->member);
	if (x->decl_file[0] && off < sizeof(buf))
		off += snprintf(buf + off, sizeof(buf) - off, " (%s:%d)", path_basename(x->decl_file),
				x->decl_line);
	if (x->function[0] && off < sizeof(buf))
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s()", off ? ", " : "", x->function);
	if (x->file[0] && x->line && off < sizeof(buf))
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s:%d", off ? " at " : "",
				path_basename(x->file), x->line);
	if (x->region[0] && off < sizeof(buf))
		snprintf(buf + off, sizeof(buf) - off, "%sregion %s", off ? ", " : "", x->region);
	if (buf[0]) {
		char line[700];

		snprintf(line, sizeof(line), "where: %s", buf);
		wrap(f, line, 2, 78);
	}
}

/* The findings under the gain threshold or demoted, in one line (JSON has them in full). */
static void print_folded(const struct findings *fs, FILE *f, int width)
{
	char line[2048];
	size_t off;

	if (!fs->nr_folded)
		return;
	off = snprintf(line, sizeof(line), "Folded (%d: estimated gain under %.3g%% of the run, or "
		       "cannot move the bound, or caused by another; -j lists them in full):", fs->nr_folded,
		       100 * fs->min_gain);
	for (int i = 0; i < fs->nr && off < sizeof(line); i++) {
		const struct finding *x = &fs->f[i];

		if (x->status != FINDING_FIRED || !x->folded)
			continue;
		if (x->demoted)
			off += snprintf(line + off, sizeof(line) - off, " %s%s%s (demoted: %s);", x->id,
					x->struct_name[0] ? " struct " : "", x->struct_name,
					x->demoted_why);
		else
			off += snprintf(line + off, sizeof(line) - off, " %s%s%s (%.2g%%);", x->id,
					x->struct_name[0] ? " struct " : "", x->struct_name,
					100 * x->gain_share);
	}
	fputc('\n', f);
	wrap(f, line, 0, width);
}

static void verdict_text(const struct verdict *v, FILE *f, int width)
{
	char line[600];

	if (!v->known) {
		snprintf(line, sizeof(line), "Verdict: unknown (%s)", v->missing);
		wrap(f, line, 0, width);
		return;
	}
	snprintf(line, sizeof(line), "Verdict: %s-bound%s%s%s (%s tier, %s confidence)",
		 bound__name(v->bound), v->level[0] ? " (" : "", v->level, v->level[0] ? ")" : "",
		 tier__name(v->tier), v->confidence);
	wrap(f, line, 0, width);
	if ((v->bound == BOUND_IDLE || v->bound == BOUND_LOCKS) && v->busy_bound != BOUND_UNKNOWN) {
		snprintf(line, sizeof(line), "on the CPU: %s-bound (%.0f%% of the CPU time)",
			 bound__name(v->busy_bound), 100 * v->busy_share);
		wrap(f, line, 2, width);
	}
	for (int i = 0; i < v->nr_parts; i++) {
		const struct verdict_part *p = &v->parts[i];

		snprintf(line, sizeof(line), "- %s: %.1f%% (%.3g s; %s tier): %s", bound__name(p->what),
			 100 * p->share, p->seconds, tier__name(p->tier), p->evidence);
		wrap(f, line, 2, width);
	}
	if (v->missing[0]) {
		snprintf(line, sizeof(line), "(%s)", v->missing);
		wrap(f, line, 2, width);
	}
}

void verdict__print_text(const struct findings *fs, FILE *f, bool wide)
{
	if (fs)
		verdict_text(&fs->verdict, f, wide ? 1000 : 78);
}

struct json_object *verdict__to_json(const struct findings *fs)
{
	const struct verdict *v = &fs->verdict;
	struct json_object *o = json_object_new_object(), *parts = json_object_new_array();

	json_object_object_add(o, "bound", v->known ? json_str(bound__name(v->bound)) : NULL);
	json_object_object_add(o, "level", v->level[0] ? json_str(v->level) : NULL);
	json_object_object_add(o, "tier", v->known ? json_str(tier__name(v->tier)) : NULL);
	json_object_object_add(o, "confidence", v->known ? json_str(v->confidence) : NULL);
	add_str(o, "summary", v->summary);
	json_object_object_add(o, "busy_bound", v->busy_bound != BOUND_UNKNOWN
							? json_str(bound__name(v->busy_bound)) : NULL);
	json_object_object_add(o, "busy_share", v->busy_bound != BOUND_UNKNOWN
							? json_object_new_double(v->busy_share) : NULL);
	add_str(o, "missing", v->missing);
	for (int i = 0; i < v->nr_parts; i++) {
		const struct verdict_part *p = &v->parts[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "part", json_str(bound__name(p->what)));
		json_object_object_add(e, "seconds", json_object_new_double(p->seconds));
		json_object_object_add(e, "share", json_object_new_double(p->share));
		json_object_object_add(e, "tier", json_str(tier__name(p->tier)));
		json_object_object_add(e, "evidence", json_str(p->evidence));
		json_object_array_add(parts, e);
	}
	json_object_object_add(o, "parts", parts);
	return o;
}

void findings__print_text(const struct findings *fs, FILE *f, bool wide)
{
	int width = wide ? 1000 : 78, fired = 0, inc = 0;

	for (int i = 0; i < fs->nr; i++)
		fs->f[i].status == FINDING_FIRED ? fired++ : inc++;
	fprintf(f, "\nFindings: %d fired, %d inconclusive, %d of %d rules quiet%s\n", fired, inc,
		fs->nr_quiet, fs->nr_rules,
		fs->replay ? " (replayed test facts, not a measurement)" : "");
	for (int i = 0; i < fs->nr; i++) {
		const struct finding *x = &fs->f[i];
		char head[600], num[64];

		if (x->status != FINDING_FIRED || x->folded)
			continue;
		snprintf(head, sizeof(head), "[%s] %s: %s", severity__name(x->severity), x->id,
			 x->title);
		fputc('\n', f);
		wrap(f, head, 0, width);
		wrap(f, x->message, 2, width);
		print_where(f, x);
		fprintf(f, "  evidence (%s tier, %s confidence):\n", tier__name(x->tier), x->confidence);
		{
			char unmeasured[512] = "";
			size_t off = 0;

			for (int j = 0; j < x->nr_ev; j++) {
				if (!x->ev[j].known) {
					if (off < sizeof(unmeasured))
						off += snprintf(unmeasured + off, sizeof(unmeasured) - off,
								"%s%s", off ? ", " : "", x->ev[j].name);
					continue;
				}
				fmt_num(x->ev[j].value, num, sizeof(num));
				fprintf(f, "    %-30s %12s %s\n", x->ev[j].name, num,
					tier__name(x->ev[j].tier));
			}
			if (unmeasured[0]) {
				char line[600];

				snprintf(line, sizeof(line), "(not measured: %s)", unmeasured);
				wrap(f, line, 4, width);
			}
		}
		wrap(f, x->advice, 2, width);
		fprintf(f, "  fix:\n");
		print_code(f, x->fix, 4);
		if (x->gain_known)
			snprintf(head, sizeof(head), "paper: section %s; estimated gain (an estimate, "
				 "%s confidence): ~%.3g s of CPU time (%.1f%% of the run's), from %s",
				 x->paper, x->confidence, x->gain_s, 100 * x->gain_share, x->gain_how);
		else
			snprintf(head, sizeof(head), "paper: section %s; estimated gain: unknown, %s",
				 x->paper, x->gain_how[0] ? x->gain_how : "not estimated");
		wrap(f, head, 2, width);
		if (x->count > 1) {
			snprintf(head, sizeof(head), "(fired on %d %ss; %s shown)", x->count,
				 scope__name(x->scope), x->count > FINDINGS_MAX_PER_RULE ? "the first 5" : "each");
			wrap(f, head, 2, width);
		}
	}
	print_folded(fs, f, width);
	if (inc) {
		fprintf(f, "\nInconclusive (the evidence these rules need is missing):\n");
		for (int i = 0; i < fs->nr; i++) {
			const struct finding *x = &fs->f[i];
			char line[1400];

			if (x->status != FINDING_INCONCLUSIVE)
				continue;
			snprintf(line, sizeof(line), "%s: %s", x->id, x->missing ? x->missing : "");
			wrap(f, line, 2, width);
		}
	}
}

/* --- JSON ---------------------------------------------------------------- */

struct json_object *findings__to_json(const struct findings *fs)
{
	struct json_object *arr = json_object_new_array();

	for (int i = 0; i < fs->nr; i++) {
		const struct finding *x = &fs->f[i];
		struct json_object *o = json_object_new_object(), *loc = json_object_new_object();
		struct json_object *ev = json_object_new_array();

		add_str(o, "id", x->id);
		add_str(o, "title", x->title);
		add_str(o, "severity", severity__name(x->severity));
		add_str(o, "status", x->status == FINDING_FIRED ? "fired" : "inconclusive");
		add_str(o, "paper", x->paper);
		add_str(o, "for_each", scope__name(x->scope));
		add_str(loc, "struct", x->struct_name);
		add_str(loc, "member", x->member);
		add_str(loc, "decl_file", x->decl_file);
		if (x->decl_line)
			json_object_object_add(loc, "decl_line", json_object_new_int(x->decl_line));
		add_str(loc, "function", x->function);
		add_str(loc, "file", x->file);
		if (x->line)
			json_object_object_add(loc, "line", json_object_new_int(x->line));
		add_str(loc, "region", x->region);
		json_object_object_add(o, "location", loc);
		add_str(o, "message", x->message);
		add_str(o, "advice", x->advice);
		add_str(o, "fix", x->fix);
		add_str(o, "missing", x->missing);
		for (int j = 0; j < x->nr_ev; j++) {
			struct json_object *e = json_object_new_object();

			add_str(e, "name", x->ev[j].name);
			json_object_object_add(e, "value", x->ev[j].known
								   ? json_object_new_double(x->ev[j].value)
								   : NULL);
			add_str(e, "unit", x->ev[j].unit);
			add_str(e, "tier", x->ev[j].known ? tier__name(x->ev[j].tier) : NULL);
			json_object_array_add(ev, e);
		}
		json_object_object_add(o, "evidence", ev);
		add_str(o, "tier", tier__name(x->tier));
		add_str(o, "confidence", x->confidence);
		if (x->gain_known) {
			struct json_object *g = json_object_new_object();

			json_object_object_add(g, "seconds", json_object_new_double(x->gain_s));
			json_object_object_add(g, "share_of_run", json_object_new_double(x->gain_share));
			json_object_object_add(g, "estimate", json_object_new_boolean(true));
			json_object_object_add(g, "how", json_str(x->gain_how));
			json_object_object_add(g, "confidence", json_str(x->confidence));
			json_object_object_add(o, "estimated_gain", g);
		} else {
			json_object_object_add(o, "estimated_gain", NULL);
			add_str(o, "gain_unknown_why", x->gain_how);
		}
		if (x->status == FINDING_FIRED)
			json_object_object_add(o, "folded", json_object_new_boolean(x->folded));
		if (x->demoted)
			add_str(o, "demoted", x->demoted_why);
		if (x->caused_by[0])
			add_str(o, "caused_by", x->caused_by);
		if (x->ambiguous_with[0]) {
			struct json_object *a = json_object_new_object();

			add_str(a, "also_fits", x->ambiguous_with);
			json_object_object_add(a, "share", json_object_new_double(x->ambiguous_share));
			json_object_object_add(o, "binding_ambiguous", a);
		}
		json_object_object_add(o, "count", json_object_new_int(x->count));
		if (fs->replay)
			json_object_object_add(o, "replay", json_object_new_boolean(true));
		json_object_array_add(arr, o);
	}
	return arr;
}

/* --- SARIF 2.1.0 ----------------------------------------------------------- */

static const char *sarif_level(enum severity s)
{
	return s == SEV_CRITICAL ? "error" : s == SEV_WARNING ? "warning" : "note";
}

static char *file_uri(const char *path)
{
	size_t len = 0, cap = strlen(path) * 3 + 16;
	char *out = xmalloc(cap);

	out[0] = '\0';
	if (path[0] == '/')
		len = snprintf(out, cap, "file://");
	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    strchr("/-._~", *s))
			out[len++] = *s;
		else
			len += snprintf(out + len, cap - len, "%%%02X", *s);
	}
	out[len] = '\0';
	return out;
}

static struct json_object *sarif_location(const char *file, int line, const char *function)
{
	struct json_object *loc = json_object_new_object();
	struct json_object *phys = json_object_new_object(), *art = json_object_new_object();
	struct json_object *reg = json_object_new_object();
	char *uri = file_uri(file);

	json_object_object_add(art, "uri", json_str(uri));
	free(uri);
	json_object_object_add(phys, "artifactLocation", art);
	json_object_object_add(reg, "startLine", json_object_new_int(line > 0 ? line : 1));
	json_object_object_add(phys, "region", reg);
	json_object_object_add(loc, "physicalLocation", phys);
	if (function && function[0]) {
		struct json_object *ll = json_object_new_array(), *l = json_object_new_object();

		json_object_object_add(l, "name", json_str(function));
		json_object_object_add(l, "kind", json_str("function"));
		json_object_array_add(ll, l);
		json_object_object_add(loc, "logicalLocations", ll);
	}
	return loc;
}

static struct json_object *findings__to_sarif(const struct findings *fs)
{
	struct json_object *log = json_object_new_object(), *runs = json_object_new_array();
	struct json_object *run = json_object_new_object(), *tool = json_object_new_object();
	struct json_object *driver = json_object_new_object(), *rules = json_object_new_array();
	struct json_object *results = json_object_new_array();
	const struct rule **seen = xcalloc(fs->nr ? fs->nr : 1, sizeof(*seen));
	int nr_seen = 0;

	json_object_object_add(log, "$schema",
			       json_str("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_object_add(log, "version", json_str("2.1.0"));
	json_object_object_add(driver, "name", json_str("memadvise"));
	json_object_object_add(driver, "version", json_str(MA_VERSION));
	json_object_object_add(driver, "informationUri",
			       json_str("https://github.com/memadvise/memadvise"));
	for (int i = 0; i < fs->nr; i++) {
		const struct finding *x = &fs->f[i];
		struct json_object *res = json_object_new_object(), *msg = json_object_new_object();
		struct json_object *locs = json_object_new_array(), *props = json_object_new_object();
		int ri;
		char *text;
		size_t len = 0, cap = 256;

		for (ri = 0; ri < nr_seen; ri++)
			if (seen[ri] == x->rule)
				break;
		if (ri == nr_seen) {
			struct json_object *rd = json_object_new_object(), *sd = json_object_new_object();
			struct json_object *cfg = json_object_new_object(), *rp = json_object_new_object();
			struct json_object *help = json_object_new_object();

			seen[nr_seen++] = x->rule;
			json_object_object_add(rd, "id", json_str(x->id));
			json_object_object_add(sd, "text", json_str(x->title));
			json_object_object_add(rd, "shortDescription", sd);
			json_object_object_add(help, "text", json_str(x->rule_advice));
			json_object_object_add(rd, "help", help);
			json_object_object_add(cfg, "level", json_str(sarif_level(x->severity)));
			json_object_object_add(rd, "defaultConfiguration", cfg);
			json_object_object_add(rp, "paper_section", json_str(x->paper));
			json_object_object_add(rd, "properties", rp);
			json_object_array_add(rules, rd);
		}
		json_object_object_add(res, "ruleId", json_str(x->id));
		json_object_object_add(res, "ruleIndex", json_object_new_int(ri));
		if (x->status == FINDING_FIRED) {
			json_object_object_add(res, "kind", json_str("fail"));
			json_object_object_add(res, "level", json_str(sarif_level(x->severity)));
		} else {
			json_object_object_add(res, "kind", json_str("review"));
			json_object_object_add(res, "level", json_str("none"));
		}
		text = xmalloc(cap);
		text[0] = '\0';
		if (x->status == FINDING_FIRED)
			sbuf_printf(&text, &len, &cap, "%s Fix:\n%s", x->message, x->fix);
		else
			sbuf_printf(&text, &len, &cap, "Inconclusive: %s (%s)", x->title,
				    x->missing ? x->missing : "");
		json_object_object_add(msg, "text", json_str(text));
		free(text);
		json_object_object_add(res, "message", msg);
		if (x->file[0] && x->line > 0)
			json_object_array_add(locs, sarif_location(x->file, x->line, x->function));
		if (x->decl_file[0] && x->decl_line > 0)
			json_object_array_add(locs, sarif_location(x->decl_file, x->decl_line, NULL));
		if (json_object_array_length(locs))
			json_object_object_add(res, "locations", locs);
		else
			json_object_put(locs);
		json_object_object_add(props, "tier", json_str(tier__name(x->tier)));
		json_object_object_add(props, "confidence", json_str(x->confidence));
		if (x->gain_known)
			json_object_object_add(props, "estimated_gain_seconds",
					       json_object_new_double(x->gain_s));
		if (x->region[0])
			json_object_object_add(props, "region", json_str(x->region));
		if (fs->replay)
			json_object_object_add(props, "replay", json_object_new_boolean(true));
		json_object_object_add(res, "properties", props);
		json_object_array_add(results, res);
	}
	free(seen);
	json_object_object_add(driver, "rules", rules);
	json_object_object_add(tool, "driver", driver);
	json_object_object_add(run, "tool", tool);
	json_object_object_add(run, "results", results);
	json_object_array_add(runs, run);
	json_object_object_add(log, "runs", runs);
	return log;
}

int findings__fwrite_sarif(const struct findings *fs, FILE *f)
{
	struct json_object *o = findings__to_sarif(fs);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE);
	int err = 0;

	/* Buffered: a full disk shows at fflush(), with its errno. */
	if (fputs(s, f) < 0 || fputc('\n', f) < 0 || fflush(f))
		err = -errno;
	else if (ferror(f))
		err = -EIO;
	json_object_put(o);
	return err;
}

int findings__write_sarif(const struct findings *fs, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "we") : stdout;
	int err;

	if (!f)
		return -errno;
	err = findings__fwrite_sarif(fs, f);
	if (f != stdout && fclose(f) && !err)
		err = -errno;
	return err;
}
