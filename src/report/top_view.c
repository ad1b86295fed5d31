// SPDX-License-Identifier: GPL-2.0-only
/*
 * 'memadvise top' laid out as lines: the header meters, the process table
 * (sorted and filtered as the view says) and, when drilling, the process's
 * hot code, faulting lines, regions and findings.  The full-screen view
 * draws these lines and --batch prints them, so both say the same.
 */
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "report/top.h"
#include "base/util.h"
#include "model/sampling.h"

static const char *const col_names[TOP_COL__COUNT] = {
	[TOP_COL_PID] = "PID", [TOP_COL_CPU] = "CPU%", [TOP_COL_MINFLT] = "MINFLT/s",
	[TOP_COL_MAJFLT] = "MAJFLT/s", [TOP_COL_RSS] = "RSS", [TOP_COL_THP] = "THP%",
	[TOP_COL_FIND] = "FIND", [TOP_COL_HOT] = "HOT", [TOP_COL_COMM] = "COMMAND",
};

const char *top_col__name(enum top_col c)
{
	return c < TOP_COL__COUNT ? col_names[c] : "?";
}

int top_col__parse(const char *name)
{
	for (int i = 0; i < TOP_COL__COUNT; i++)
		if (!strcasecmp(name, col_names[i]) ||
		    (!strncasecmp(name, col_names[i], strlen(name)) && strlen(name) >= 3))
			return i;
	return -1;
}

static double thp_share(const struct top_row *r)
{
	return r->thp_known && r->anon ? (double)r->anon_huge / (double)r->anon : -1;
}

/* Compares rows by the view's column (qsort_r). */
static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct top_view *v = ((const void **)arg)[0];
	const struct top_row *rows = ((const void **)arg)[1];
	const struct top_row *x = &rows[*(const int *)a], *y = &rows[*(const int *)b];
	double dx = 0, dy = 0;
	int c = 0;

	switch (v->sort) {
	case TOP_COL_PID: dx = x->tid ? x->tid : x->pid; dy = y->tid ? y->tid : y->pid; break;
	case TOP_COL_CPU: dx = x->cpu_pct; dy = y->cpu_pct; break;
	case TOP_COL_MINFLT: dx = x->minflt_s; dy = y->minflt_s; break;
	case TOP_COL_MAJFLT: dx = x->majflt_s; dy = y->majflt_s; break;
	case TOP_COL_RSS: dx = (double)x->rss; dy = (double)y->rss; break;
	case TOP_COL_THP: dx = thp_share(x); dy = thp_share(y); break;
	case TOP_COL_FIND: dx = x->nr_findings; dy = y->nr_findings; break;
	case TOP_COL_HOT: dx = (double)x->samples; dy = (double)y->samples; break;
	case TOP_COL_COMM: c = strcmp(x->comm, y->comm); break;
	default: break;
	}
	if (!c)
		c = dx < dy ? -1 : dx > dy ? 1 : 0;
	if (!c) /* stable between refreshes: by pid */
		c = (x->tid ? x->tid : x->pid) - (y->tid ? y->tid : y->pid);
	else if (!v->ascending)
		c = -c;
	return c;
}

static bool row_matches(const struct top_row *r, const char *filter)
{
	char pid[16];

	if (!filter[0])
		return true;
	snprintf(pid, sizeof(pid), "%d", r->pid);
	return strcasestr(r->comm, filter) || strcasestr(r->hot, filter) || !strcmp(pid, filter);
}

int top_view__order(const struct top_frame *f, const struct top_view *v, int **idx)
{
	const void *arg[2] = { v, f->rows };
	int n = 0;

	*idx = xcalloc(f->nr_rows ? f->nr_rows : 1, sizeof(**idx));
	for (int i = 0; i < f->nr_rows; i++)
		if (row_matches(&f->rows[i], v->filter))
			(*idx)[n++] = i;
	qsort_r(*idx, n, sizeof(**idx), row_cmp, (void *)arg);
	return n;
}

static void __attribute__((format(printf, 4, 5)))
add(struct top_lines *l, enum top_line_kind kind, int width, const char *fmt, ...)
{
	struct top_line *t;
	va_list ap;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	t = &l->v[l->n++];
	t->kind = kind;
	va_start(ap, fmt);
	vsnprintf(t->text, sizeof(t->text), fmt, ap);
	va_end(ap);
	if (width > 0 && width < (int)sizeof(t->text)) {
		/* cut at WIDTH characters (UTF-8: count lead bytes only) */
		int chars = 0;

		for (char *p = t->text; *p; p++)
			if ((*p & 0xc0) != 0x80 && ++chars > width) {
				*p = '\0';
				break;
			}
	}
}

/* A compact count: 999, 12.3K, 4.5M. */
static const char *num(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else if (v < 1000)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fK", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.1fG", v / 1e9);
	return buf;
}

static const char *bytes(uint64_t v, char *buf, size_t len)
{
	if (v < 1024ULL * 1024)
		snprintf(buf, len, "%lluK", (unsigned long long)(v >> 10));
	else if (v < 1024ULL * 1024 * 1024)
		snprintf(buf, len, "%.1fM", v / 1048576.0);
	else
		snprintf(buf, len, "%.1fG", v / 1073741824.0);
	return buf;
}

/* A sparkline of the last minute's faults/s (Unicode blocks, or ASCII outside UTF-8). */
static void sparkline(const struct top_header *h, char *out, size_t len)
{
	static const char *const blocks[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char ascii[] = "_.-=+*#@";
	bool utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	double max = 0;
	size_t at = 0;

	out[0] = '\0';
	for (int i = 0; i < h->nr_spark; i++)
		if (h->spark[i] > max)
			max = h->spark[i];
	for (int i = 0; i < h->nr_spark && at + 4 < len; i++) {
		int lvl = max > 0 ? (int)(h->spark[i] / max * 7.999) : 0;

		if (utf8)
			at += snprintf(out + at, len - at, "%s", blocks[lvl]);
		else
			out[at++] = ascii[lvl], out[at] = '\0';
	}
}

static void header_lines(struct top_lines *l, const struct top_frame *f, const struct top_view *v,
			 int w)
{
	const struct top_header *h = &f->hdr;
	char a[32], b[32], c[32], spark[TOP_SPARK * 4 + 1], when[16];
	time_t t = (time_t)(h->time_ns / 1000000000ULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	add(l, TL_HEADER, w, "memadvise top - %s  refresh %llu (%.1f s)  %d processes, %d threads%s",
	    when, (unsigned long long)h->seq, h->interval_s, h->nr_procs, h->nr_threads,
	    v->paused ? "  [paused]" : "");
	if (h->mem_known)
		add(l, TL_HEADER, w, "THP: %s (defrag %s)  anon %s, %.1f%% in huge pages  "
		    "khugepaged: %s%s collapsed (%s/s), %llu full scans",
		    h->thp_mode[0] ? h->thp_mode : "unknown",
		    h->thp_defrag[0] ? h->thp_defrag : "unknown", bytes(h->anon, a, sizeof(a)),
		    h->anon ? 100.0 * (double)h->anon_huge / (double)h->anon : 0.0,
		    h->khuge_known ? "" : "n/a",
		    h->khuge_known ? num((double)h->khuge_collapsed, b, sizeof(b)) : "",
		    h->khuge_known ? num(h->khuge_collapsed_s, c, sizeof(c)) : "-",
		    (unsigned long long)h->khuge_scans);
	sparkline(h, spark, sizeof(spark));
	if (h->faults_known)
		add(l, TL_HEADER, w, "Faults/s: %s minor, %s major (software)  %s", num(h->minflt_s, a,
		    sizeof(a)), num(h->majflt_s, b, sizeof(b)), spark);
	else
		add(l, TL_HEADER, w, "Faults/s: measured from the second refresh on");
	if (h->sampling)
		add(l, TL_HEADER, w, "LLC/DTLB MPKI, bandwidth: n/a: %s   Hot code: scheduler tick, "
		    "%u Hz (software)%s", h->pmu_why, h->tick_hz,
		    h->samples_lost ? " (samples lost: map full)" : "");
	else
		add(l, TL_HEADER, w, "LLC/DTLB MPKI, bandwidth: n/a: %s   Hot code: n/a: %s",
		    h->pmu_why, h->sampling_why);
	if (h->nr_hidden)
		add(l, TL_NOTE, w, "%d processes of other users not shown (--all shows them)",
		    h->nr_hidden);
	if (v->filter[0] || v->editing)
		add(l, TL_NOTE, w, "Filter: %s%s", v->filter, v->editing ? "_" : "");
}

static void row_line(struct top_lines *l, const struct top_frame *f, const struct top_row *r,
		     bool selected, int w)
{
	char cpu[16], mi[16], ma[16], rss[16], thp[16], fi[16];

	if (r->is_new)
		snprintf(cpu, sizeof(cpu), "-"), snprintf(mi, sizeof(mi), "-"),
		snprintf(ma, sizeof(ma), "-");
	else
		snprintf(cpu, sizeof(cpu), "%.1f", r->cpu_pct), num(r->minflt_s, mi, sizeof(mi)),
		num(r->majflt_s, ma, sizeof(ma));
	if (r->nr_findings >= 0)
		snprintf(fi, sizeof(fi), "%d", r->nr_findings);
	else
		snprintf(fi, sizeof(fi), "-");
	add(l, selected ? TL_SELECTED : TL_ROW, w, "%7d %5s %8s %8s %7s %5s %4s %-15s %s",
	    r->tid ? r->tid : r->pid, cpu, mi, ma, bytes(r->rss, rss, sizeof(rss)),
	    top__thp_share(r, thp, sizeof(thp)), fi, r->comm,
	    r->hot[0] ? r->hot : (f->hdr.sampling ? "" : "n/a"));
}

static void table_lines(struct top_lines *l, const struct top_frame *f, const struct top_view *v,
			int w)
{
	char head[160];
	int *idx, n = top_view__order(f, v, &idx);
	int at = 0;

	for (int c = 0; c < TOP_COL__COUNT; c++) {
		static const char *const fmt[TOP_COL__COUNT] = {
			"%7s", " %5s", " %8s", " %8s", " %7s", " %5s", " %4s", " %-15s", " %s" };
		char name[24];

		snprintf(name, sizeof(name), "%s%s", c == TOP_COL_PID && v->threads ? "TID" :
			 top_col__name(c), c == (int)v->sort ? (v->ascending ? "^" : "v") : "");
		if (c == TOP_COL_HOT)
			snprintf(name, sizeof(name), "HOT FUNCTION%s",
				 v->sort == TOP_COL_HOT ? (v->ascending ? "^" : "v") : "");
		at += snprintf(head + at, sizeof(head) - at, fmt[c], name);
	}
	add(l, TL_COLUMNS, w, "%s", head);
	l->first_row = l->n;
	l->nr_rows = n;
	l->selected = -1;
	for (int i = 0; i < n; i++) {
		const struct top_row *r = &f->rows[idx[i]];
		pid_t id = r->tid ? r->tid : r->pid;
		bool sel = v->selected ? id == v->selected : i == 0;

		if (sel)
			l->selected = i;
		row_line(l, f, r, sel, w);
	}
	free(idx);
}

static void drill_hot_lines(struct top_lines *l, const struct sampling *s, int w)
{
	add(l, TL_SECTION, w, "Hot functions (scheduler tick, %llu samples, software)",
	    (unsigned long long)(s->nr_events ? s->events[0].samples : 0));
	for (int i = 0; i < s->nr_funcs && i < 5; i++)
		add(l, TL_TEXT, w, "  %5.1f%% %7llu  %s (%s)", 100 * s->funcs[i].share,
		    (unsigned long long)s->funcs[i].samples, s->funcs[i].function,
		    s->funcs[i].module);
	add(l, TL_SECTION, w, "Hot lines");
	for (int i = 0, k = 0; i < s->nr_lines && k < 5; i++) {
		const struct sampling_hotsum *h = &s->lines[i];

		if (!h->line)
			continue;
		k++;
		add(l, TL_TEXT, w, "  %5.1f%% %7llu  %s:%d %s", 100 * h->share,
		    (unsigned long long)h->samples, path_basename(h->file), h->line, h->function);
	}
}

static void drill_fault_lines(struct top_lines *l, const struct sampling *s, int w)
{
	char a[16], b[16], c[16], d[16];

	if (!s->faults_measured) {
		add(l, TL_SECTION, w, "Faulting lines: n/a (the page_fault_user tracepoint is not "
		    "attached)");
		return;
	}
	add(l, TL_SECTION, w, "Faulting lines (page_fault_user tracepoint: every fault, software)"
	    " %s faults", num((double)s->faults, a, sizeof(a)));
	add(l, TL_TEXT, w, "   faults   writes  region  where");
	for (int i = 0; i < s->nr_sites && i < 5; i++) {
		const struct sampling_fault_site *f = &s->sites[i];
		const char *reg = f->region >= 0 ?
			sampling__region_kind_name(s->regions[f->region].kind) : "?";

		if (f->loc.line)
			add(l, TL_TEXT, w, "  %7s  %7s  %-6s  %s:%d %s", num((double)f->count, a,
			    sizeof(a)), num((double)f->writes, b, sizeof(b)), reg,
			    path_basename(f->loc.file), f->loc.line, f->loc.function);
		else
			add(l, TL_TEXT, w, "  %7s  %7s  %-6s  %s (%s)", num((double)f->count, a,
			    sizeof(a)), num((double)f->writes, b, sizeof(b)), reg,
			    f->loc.function[0] ? f->loc.function : "?",
			    f->loc.module[0] ? f->loc.module : "unknown");
	}
	add(l, TL_SECTION, w, "Regions (faults, huge pages from smaps)");
	add(l, TL_TEXT, w, "  %-27s %7s %7s %7s %7s  kind", "range", "size", "rss", "thp",
	    "faults");
	for (int i = 0, k = 0; i < s->nr_regions && k < 5; i++) {
		const struct sampling_region *g = &s->regions[i];

		if (!g->faults && !g->large)
			continue;
		k++;
		add(l, TL_TEXT, w, "  %012llx-%012llx  %7s %7s %7s %7s  %s%s",
		    (unsigned long long)g->start, (unsigned long long)g->end,
		    bytes(g->size, a, sizeof(a)), g->has_smaps ? bytes(g->rss, b, sizeof(b)) : "-",
		    g->has_smaps ? bytes(g->anon_huge, c, sizeof(c)) : "-",
		    num((double)g->faults, d, sizeof(d)), sampling__region_kind_name(g->kind),
		    g->madv_hugepage ? " madv" : "");
	}
}

/* TEXT wrapped at W columns, each line indented by IND spaces. */
static void wrapped(struct top_lines *l, enum top_line_kind kind, int w, int ind, const char *text)
{
	const char *p = text;
	int room = (w > ind + 20 ? w : ind + 60) - ind;

	while (*p) {
		int n = (int)strlen(p), cut = n;

		if (n > room) {
			for (cut = room; cut > 0 && p[cut] != ' '; cut--)
				;
			if (!cut)
				cut = room;
		}
		add(l, kind, w, "%*s%.*s", ind, "", cut, p);
		p += cut;
		while (*p == ' ' || *p == '\n')
			p++;
	}
}

static void drill_findings(struct top_lines *l, const struct top_frame *f, int w)
{
	const struct findings *fs = f->drill.findings;
	int shown = 0;

	if (!fs) {
		add(l, TL_SECTION, w, "Findings: %s", f->drill.findings_why[0] ?
		    f->drill.findings_why : "not evaluated yet");
		return;
	}
	for (int i = 0; i < fs->nr; i++)
		shown += fs->f[i].status == FINDING_FIRED;
	add(l, TL_SECTION, w, "Findings (%d, rules on the measurements since the drill began)",
	    shown);
	for (int i = 0; i < fs->nr; i++) {
		const struct finding *x = &fs->f[i];
		char where[300];

		if (x->status != FINDING_FIRED)
			continue;
		if (x->line)
			snprintf(where, sizeof(where), "%s:%d %s", path_basename(x->file), x->line,
				 x->function);
		else if (x->region[0])
			snprintf(where, sizeof(where), "%s", x->region);
		else
			snprintf(where, sizeof(where), "%s%s%s", x->struct_name,
				 x->member[0] ? "." : "", x->member);
		add(l, TL_FINDING, w, "  [%s] %s (%s): %s", severity__name(x->severity), x->id,
		    tier__name(x->tier), where);
		if (x->message)
			wrapped(l, TL_TEXT, w, 4, x->message);
		if (x->advice) {
			char adv[1024];

			snprintf(adv, sizeof(adv), "advice: %s", x->advice);
			wrapped(l, TL_TEXT, w, 4, adv);
		}
	}
}

static void drill_lines(struct top_lines *l, const struct top_frame *f, int w)
{
	const struct top_drill *d = &f->drill;
	const struct sampling *s = d->snap ? d->snap->sampling : NULL;

	add(l, TL_SECTION, w, "Process %d (%s), measured for %.1f s since the drill began",
	    d->pid, d->comm, d->snap ? d->snap->target.wall_ns / 1e9 : 0.0);
	if (!s) {
		add(l, TL_TEXT, w, "  %s", d->findings_why[0] ? d->findings_why : "waiting for data");
		return;
	}
	if (s->nr_events)
		drill_hot_lines(l, s, w);
	else
		add(l, TL_SECTION, w, "Hot functions: n/a: %s", f->hdr.sampling_why);
	drill_fault_lines(l, s, w);
	add(l, TL_SECTION, w, "Hot data (objects, members, lines written by several threads): n/a in "
	    "top: data addresses are sampled by 'memadvise run' (tier sw-addr)");
	drill_findings(l, f, w);
}

void top_lines__build(struct top_lines *l, const struct top_frame *f, const struct top_view *v,
		      int width)
{
	memset(l, 0, sizeof(*l));
	l->first_row = -1;
	l->selected = -1;
	header_lines(l, f, v, width);
	if (v->drill && f->drill.pid)
		drill_lines(l, f, width);
	else
		table_lines(l, f, v, width);
}

void top_lines__release(struct top_lines *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void top_frame__print_text(const struct top_frame *f, const struct top_view *v, FILE *out,
			   int width)
{
	struct top_lines l;
	struct top_view tv = *v;

	/* --batch shows the table, then the drilled process below it */
	tv.drill = false;
	top_lines__build(&l, f, &tv, width);
	for (int i = 0; i < l.n; i++)
		fprintf(out, "%s\n", l.v[i].text);
	top_lines__release(&l);
	if (f->drill.pid) {
		struct top_lines d = { 0 };

		drill_lines(&d, f, width);
		fputc('\n', out);
		for (int i = 0; i < d.n; i++)
			fprintf(out, "%s\n", d.v[i].text);
		top_lines__release(&d);
	}
	fputc('\n', out);
	fflush(out);
}
