// SPDX-License-Identifier: GPL-2.0-only
/*
 * The advice engine: rules x entities -> findings, ranked by estimated
 * cost; and the findings' emitters (text, JSON, SARIF 2.1.0).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "rules/expr.h"
#include "base/log.h"
#include "rules/rules.h"
#include "rules/verdict.h"
#include "model/sampling.h"
#include "base/util.h"


/* --- evaluation ------------------------------------------------------------ */

struct ectx {
	const struct factbase *fb;
	int idx;		/* entity, -1 = run */
	char missing[512];	/* names looked up without a value */
	size_t mlen;
};

static int lookup(void *ctx, const char *name, double *v)
{
	struct ectx *c = ctx;

	if (!factbase__get(c->fb, c->idx, name, v, NULL))
		return 0;
	if (c->mlen < sizeof(c->missing) - 1 && !strstr(c->missing, name))
		c->mlen += snprintf(c->missing + c->mlen, sizeof(c->missing) - c->mlen, "%s%s",
				    c->mlen ? ", " : "", name);
	if (c->mlen >= sizeof(c->missing))
		c->mlen = sizeof(c->missing) - 1;
	return -ENOENT;
}

static const struct entity *entity_of(const struct factbase *fb, int idx)
{
	return idx < 0 ? &fb->run : &fb->ents[idx];
}

/* The first non-empty label along the parent chain. */
#define INHERIT(fb, idx, field)                                                                \
	({                                                                                     \
		const struct entity *___e = entity_of(fb, idx);                                \
		int ___d = 0;                                                                  \
		while (!___e->field[0] && ___e->parent >= 0 && ___d++ < 4)                     \
			___e = &(fb)->ents[___e->parent];                                      \
		___e->field;                                                                   \
	})

static const char *snippet_of(const struct factbase *fb, int idx, bool current)
{
	const struct entity *e = entity_of(fb, idx);

	for (int d = 0; d < 4; d++) {
		if (current ? e->decl_text != NULL : e->snippet != NULL)
			return current ? e->decl_text : e->snippet;
		if (e->parent < 0)
			break;
		e = &fb->ents[e->parent];
	}
	return NULL;
}

/*
 * {aligned_decl}: the declaration aligned to the line; for a global array
 * no struct describes, its rows wrapped in a line-aligned struct.
 */
/*
 * The line of declaration SN that declares the member at offset AT (its
 * "offset size" comment, as memadvise layout prints it), else the one that
 * declares MEMBER (its name followed by ';' or '[' or ':'), or NULL.
 */
static const char *member_line(const char *sn, const char *member, double at)
{
	size_t n = strlen(member);

	for (const char *p = sn; at >= 0 && (p = strstr(p, "/*")); p += 2) {
		const char *bol = p;
		unsigned long off, size;

		while (bol > sn && bol[-1] != '\n')
			bol--;
		if (sscanf(p, "/* %lu %lu */", &off, &size) == 2 && (double)off == at)
			return bol;
	}
	for (const char *p = sn; n && (p = strstr(p, member)); p += n) {
		const char *bol = p;

		while (bol > sn && bol[-1] != '\n')
			bol--;
		if ((p == sn || !(p[-1] == '_' || isalnum((unsigned char)p[-1]))) &&
		    (p[n] == ';' || p[n] == '[' || p[n] == ':'))
			return bol;
	}
	return NULL;
}

static void put_aligned_decl(char **out, size_t *len, size_t *cap, const struct factbase *fb,
			     int idx)
{
	const struct entity *e = entity_of(fb, idx);
	const char *sn = snippet_of(fb, idx, true);
	const char *semi = sn ? strrchr(sn, ';') : NULL, *at;
	double line = 64, same = 0, from = -1;

	factbase__get(fb, idx, "machine.line_size", &line, NULL);
	factbase__get(fb, idx, "member.same_object", &same, NULL);
	factbase__get(fb, idx, "member.written_from", &from, NULL);
	if (same > 0 && sn && e->member[0] && (at = member_line(sn, e->member, from)))
		/* the threads use members of one object: part the members, not the objects */
		sbuf_printf(out, len, cap, "%.*s\t_Alignas(%.0f) /* the members written from "
			    "here: a line of their own */\n%s", (int)(at - sn), sn, line, at);
	else if (semi)
		sbuf_printf(out, len, cap, "%.*s __attribute__((aligned(%.0f)));%s",
			    (int)(semi - sn), sn, line, semi + 1);
	else if (!INHERIT(fb, idx, struct_name)[0] && e->member[0])
		sbuf_printf(out, len, cap,
			    "/* T %s[N][K], a row a thread, becomes: */\n"
			    "struct { _Alignas(%.0f) T row[K]; } %s[N];",
			    e->member, line, e->member);
	else
		sbuf_printf(out, len, cap, "struct %s { /* ... */ } __attribute__((aligned(%.0f)));",
			    INHERIT(fb, idx, struct_name), line);
}

/* {sharing_fix}: part the objects, or the members of one object (member.same_object). */
static const char *sharing_fix(const struct factbase *fb, int idx)
{
	double same = 0;

	factbase__get(fb, idx, "member.same_object", &same, NULL);
	return same > 0 ? "The threads use different members of one object: start the members "
			  "one thread writes on a cache line of their own, away from those the "
			  "other threads use (_Alignas on the first of each group); aligning the "
			  "type would not part them"
			: "Give every object written by a different thread its own cache line: "
			  "align the type to the line (this pads it)";
}

static char *expand(const char *t, const struct factbase *fb, int idx)
{
	size_t len = 0, cap = strlen(t) + 64;
	char *out = xmalloc(cap);
	const struct entity *e = entity_of(fb, idx);

	out[0] = '\0';
	for (const char *s = t; *s; s++) {
		const char *end;
		char name[128], num[64];
		bool percent = false;
		double v;

		if (s[0] == '{' && s[1] == '{') {
			sbuf_printf(&out, &len, &cap, "{");
			s++;
			continue;
		}
		if (*s != '{' || !(s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z') ||
				   (s[1] >= 'A' && s[1] <= 'Z')))
			goto literal;
		for (end = s + 1; *end == '_' || *end == '.' || (*end >= 'a' && *end <= 'z') ||
				  (*end >= 'A' && *end <= 'Z') || (*end >= '0' && *end <= '9');
		     end++)
			;
		if (*end == '%' && end[1] == '}') {
			percent = true;
			end++;
		}
		if (*end != '}' || (size_t)(end - s - 1) >= sizeof(name))
			goto literal;
		memcpy(name, s + 1, end - s - 1);
		name[end - s - 1] = '\0';
		if (percent)
			name[end - s - 2] = '\0';
		s = end;
		if (!strcmp(name, "struct")) {
			sbuf_printf(&out, &len, &cap, "%s", INHERIT(fb, idx, struct_name)[0]
								   ? INHERIT(fb, idx, struct_name)
								   : "?");
		} else if (!strcmp(name, "object")) {
			/* a struct's member, or a global no struct describes */
			sbuf_printf(&out, &len, &cap, "%s%s%s",
				    INHERIT(fb, idx, struct_name)[0] ? INHERIT(fb, idx, struct_name)
				    : e->scope == SCOPE_MEMBER ? "the global " : "",
				    INHERIT(fb, idx, struct_name)[0] ? "." : "",
				    e->member[0] ? e->member : "?");
		} else if (!strcmp(name, "member")) {
			sbuf_printf(&out, &len, &cap, "%s", e->member[0] ? e->member : "?");
		} else if (!strcmp(name, "decl")) {
			const char *f = INHERIT(fb, idx, decl_file);

			if (f[0] && e->decl_line)
				sbuf_printf(&out, &len, &cap, "%s:%d", path_basename(f), e->decl_line);
			else if (f[0])
				sbuf_printf(&out, &len, &cap, "%s", path_basename(f));
			else
				sbuf_printf(&out, &len, &cap, "declaration unknown");
		} else if (!strcmp(name, "function")) {
			sbuf_printf(&out, &len, &cap, "%s", INHERIT(fb, idx, function)[0]
								   ? INHERIT(fb, idx, function)
								   : "?");
		} else if (!strcmp(name, "file")) {
			sbuf_printf(&out, &len, &cap, "%s", e->file[0] ? path_basename(e->file) : "?");
		} else if (!strcmp(name, "line")) {
			sbuf_printf(&out, &len, &cap, "%d", e->line);
		} else if (!strcmp(name, "location")) {
			const char *fn = INHERIT(fb, idx, function);

			if (e->file[0] && e->line)
				sbuf_printf(&out, &len, &cap, "%s%s%s:%d", fn, fn[0] ? "() at " : "",
					    path_basename(e->file), e->line);
			else if (fn[0])
				sbuf_printf(&out, &len, &cap, "%s()", fn);
			else
				sbuf_printf(&out, &len, &cap, "an unknown location");
		} else if (!strcmp(name, "region")) {
			sbuf_printf(&out, &len, &cap, "%s", e->region[0] ? e->region : "?");
		} else if (!strcmp(name, "region_kind")) {
			sbuf_printf(&out, &len, &cap, "%s",
				    sampling__region_alloc_name(e->region_alloc));
		} else if (!strcmp(name, "fixed_decl")) {
			const char *sn = snippet_of(fb, idx, false);

			sbuf_printf(&out, &len, &cap, "%s",
				    sn ? sn : "/* reorder the members: see 'memadvise layout --reorganize' */");
		} else if (!strcmp(name, "hot_decl")) {
			const struct entity *se = entity_of(fb, idx);
			const char *sn;

			while (!se->hot_text && se->parent >= 0)
				se = &fb->ents[se->parent];
			/* without hot members known, the packed order */
			sn = se->hot_text ? se->hot_text : snippet_of(fb, idx, false);
			sbuf_printf(&out, &len, &cap, "%s",
				    sn ? sn : "/* reorder the members: see 'memadvise layout --reorganize' */");
		} else if (!strcmp(name, "split_decl")) {
			const struct entity *se = entity_of(fb, idx);

			while (!se->split_text && se->parent >= 0)
				se = &fb->ents[se->parent];
			sbuf_printf(&out, &len, &cap, "%s",
				    se->split_text ? se->split_text
						   : "/* split: see 'memadvise layout' for the members */");
		} else if (!strcmp(name, "aligned_decl")) {
			put_aligned_decl(&out, &len, &cap, fb, idx);
		} else if (!strcmp(name, "sharing_fix")) {
			sbuf_printf(&out, &len, &cap, "%s", sharing_fix(fb, idx));
		} else if (!strcmp(name, "split_detail")) {
			double split = -1, obj = -1, sz = 0;

			if (factbase__get(fb, idx, "line.stream_split_frac", &split, NULL))
				factbase__get(fb, idx, "line.split_frac", &split, NULL);
			factbase__get(fb, idx, "line.object_split_frac", &obj, NULL);
			factbase__get(fb, idx, "line.access_size", &sz, NULL);
			double fs = 0;

			factbase__get(fb, idx, "line.false_sharing", &fs, NULL);
			double mis = 0, ord = 0;

			factbase__get(fb, idx, "line.member_misaligned", &mis, NULL);
			factbase__get(fb, idx, "line.in_order", &ord, NULL);
			/* an in-order walk pays for straddling objects only through its split reads */
			if (mis > 0 && split >= 0 && (obj < split || (ord > 0 && fs <= 0)))
				sbuf_printf(&out, &len, &cap,
					    "%.0f%% of the %.0f-byte reads cross a cache-line boundary "
					    "because struct %s puts %s off its natural alignment "
					    "(packed)",
					    100 * split, sz, INHERIT(fb, idx, struct_name)[0]
							     ? INHERIT(fb, idx, struct_name) : "?",
					    INHERIT(fb, idx, member)[0] ? INHERIT(fb, idx, member)
									: "a member");
			else if (obj >= 0 && obj >= split)
				sbuf_printf(&out, &len, &cap,
					    "%.0f%% of the struct %s objects it uses straddle two cache "
					    "lines because of where they begin%s",
					    100 * obj, INHERIT(fb, idx, struct_name)[0]
							   ? INHERIT(fb, idx, struct_name) : "?",
					    fs > 0 ? ", so neighbouring objects that other threads write "
						     "share their end lines (the false sharing found there)"
						   : "");
			else if (split >= 0)
				sbuf_printf(&out, &len, &cap,
					    "%.0f%% of the %.0f-byte accesses cross a cache-line boundary",
					    100 * split, sz);
			else
				sbuf_printf(&out, &len, &cap, "accesses cross cache-line boundaries");
		} else if (!strcmp(name, "span_detail")) {
			double hl = 0, hb = 0, hm = 0, hs = -1, rb = 0;

			factbase__get(fb, idx, "struct.hot_lines", &hl, NULL);
			factbase__get(fb, idx, "struct.hot_bytes", &hb, NULL);
			factbase__get(fb, idx, "struct.hot_members", &hm, NULL);
			factbase__get(fb, idx, "struct.hot_split_frac", &hs, NULL);
			factbase__get(fb, idx, "struct.reached_bytes", &rb, NULL);
			if (hl >= 2)
				sbuf_printf(&out, &len, &cap,
					    "uses %.0f members of struct %s that together take %.0f "
					    "bytes but lie on %.0f different cache lines, so each object "
					    "costs %.0f line fetches instead of one",
					    hm, INHERIT(fb, idx, struct_name), hb, hl, hl);
			else
				sbuf_printf(&out, &len, &cap,
					    "uses %.0f bytes of members of struct %s that would fit "
					    "one line, yet %.0f%% of the objects it reads, out of "
					    "order, begin so late in a line that those members lie on "
					    "two: two line fetches where one would do",
					    rb, INHERIT(fb, idx, struct_name), 100 * (hs > 0 ? hs : 0));
		} else if (!strcmp(name, "elem_per_line")) {
			double line, sz;

			if (!factbase__get(fb, idx, "machine.line_size", &line, NULL) &&
			    !factbase__get(fb, idx, "line.access_size", &sz, NULL) && sz > 0)
				sbuf_printf(&out, &len, &cap, "%.0f", line / sz);
			else
				sbuf_printf(&out, &len, &cap, "(CLS / sizeof(elem))");
		} else if (!factbase__get(fb, idx, name, &v, NULL)) {
			if (percent)
				snprintf(num, sizeof(num), "%.0f%%", 100 * v);
			else
				fmt_num(v, num, sizeof(num));
			sbuf_printf(&out, &len, &cap, "%s", num);
		} else {
			sbuf_printf(&out, &len, &cap, "?");
		}
		continue;
literal:
		if (len + 2 > cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		out[len++] = *s;
		out[len] = '\0';
	}
	return out;
}

/* The rule's advice or fix for the kind of region of entity IDX (else DEFAULT). */
static const char *for_alloc(char *const *by_kind, const char *def, const struct factbase *fb,
			     int idx)
{
	int k = -1;

	switch (idx < 0 ? REGION_ALLOC_UNKNOWN : (enum sampling_region_alloc)fb->ents[idx].region_alloc) {
	case REGION_ALLOC_MALLOC_BRK:
	case REGION_ALLOC_MALLOC_CHUNK:
	case REGION_ALLOC_MALLOC_ARENA:
		k = RULE_ALLOC_MALLOC;
		break;
	case REGION_ALLOC_MMAP:
		k = RULE_ALLOC_MMAP;
		break;
	case REGION_ALLOC_STATIC:
		k = RULE_ALLOC_STATIC;
		break;
	case REGION_ALLOC_STACK:
		k = RULE_ALLOC_STACK;
		break;
	case REGION_ALLOC_UNKNOWN:
		break;
	}
	return k >= 0 && by_kind[k] ? by_kind[k] : def;
}

static const char *const confidence_levels[] = { "high", "medium", "low" };

static const char *confidence_of(enum tier t, bool thin)
{
	const char *const *lv = confidence_levels;
	int c;

	switch (t) {
	case TIER_PRECISE:
	case TIER_COUNTING:
	case TIER_SIMULATION:
	case TIER_STATIC:
		c = 0;
		break;
	case TIER_SOFTWARE:
	case TIER_WATCHPOINT:
		c = 1;
		break;
	default:
		c = 2;
	}
	if (thin && c < 2)
		c++;
	return lv[c];
}

static struct finding *new_finding(struct findings *fs, const struct rule *r,
				   const struct factbase *fb, int idx, enum finding_status st)
{
	struct finding *f;
	const struct entity *e = entity_of(fb, idx);

	fs->f = xrealloc(fs->f, (fs->nr + 1) * sizeof(*fs->f));
	f = &fs->f[fs->nr++];
	memset(f, 0, sizeof(*f));
	f->rule = r;
	f->entity = idx;
	f->rule_advice = r->advice;
	snprintf(f->id, sizeof(f->id), "%s", r->id);
	snprintf(f->title, sizeof(f->title), "%s", r->title);
	snprintf(f->paper, sizeof(f->paper), "%s", r->paper);
	f->severity = r->severity;
	f->status = st;
	f->scope = r->scope;
	f->count = 1;
	if (idx >= 0) {
		snprintf(f->struct_name, sizeof(f->struct_name), "%s", INHERIT(fb, idx, struct_name));
		snprintf(f->member, sizeof(f->member), "%s", e->member);
		snprintf(f->decl_file, sizeof(f->decl_file), "%s", INHERIT(fb, idx, decl_file));
		f->decl_line = e->decl_line;
		if (!f->decl_line && e->parent >= 0)
			f->decl_line = fb->ents[e->parent].decl_line;
		snprintf(f->function, sizeof(f->function), "%s", INHERIT(fb, idx, function));
		snprintf(f->file, sizeof(f->file), "%s", e->file);
		f->line = e->line;
		snprintf(f->region, sizeof(f->region), "%s", e->region);
	}
	return f;
}

static void fill_evidence(struct finding *f, const struct rule *r, const struct factbase *fb,
			  int idx, bool thin)
{
	enum tier worst = TIER_PRECISE;
	bool any = false;

	f->ev = xcalloc(r->nr_evidence ? r->nr_evidence : 1, sizeof(*f->ev));
	for (int i = 0; i < r->nr_evidence; i++) {
		struct finding_evidence *ev = &f->ev[f->nr_ev++];
		const struct metric_def *d = metric__find(r->evidence[i]);

		snprintf(ev->name, sizeof(ev->name), "%s", r->evidence[i]);
		if (d)
			snprintf(ev->unit, sizeof(ev->unit), "%s", d->unit);
		ev->known = !factbase__get(fb, idx, r->evidence[i], &ev->value, &ev->tier);
		if (ev->known && strncmp(ev->name, "machine.", 8) && ev->tier != TIER_STATIC) {
			if (!any || ev->tier > worst)
				worst = ev->tier;
			any = true;
		}
	}
	f->tier = any ? worst : TIER_STATIC;
	f->confidence = confidence_of(f->tier, thin);
}

/*
 * A finding on a struct that most of its accesses fit only as well as
 * another: the function works on both types and the debug info does not
 * say which one the base register points to.  The message says so and the
 * confidence drops a step.
 */
#define FINDING_AMBIGUOUS 0.5

static void note_ambiguous(struct finding *f, const struct factbase *fb, int idx)
{
	const char *const *lv = confidence_levels;
	const char *alt = INHERIT(fb, idx, alt_struct);
	size_t len, cap;
	double v;

	if ((factbase__get(fb, idx, "struct.bind_ambiguous", &v, NULL) &&
	     factbase__get(fb, idx, "line.bind_ambiguous", &v, NULL)) ||
	    v < FINDING_AMBIGUOUS || !alt[0])
		return;
	snprintf(f->ambiguous_with, sizeof(f->ambiguous_with), "%s", alt);
	f->ambiguous_share = v;
	len = f->message ? strlen(f->message) : 0;
	cap = len + 1;
	sbuf_printf(&f->message, &len, &cap,
		    " Binding ambiguous: %.0f%% of these accesses fit struct %s as well, "
		    "and the code's types do not say which.", 100 * v, alt);
	for (int i = 0; i < 2; i++)
		if (f->confidence && !strcmp(f->confidence, lv[i])) {
			f->confidence = lv[i + 1];
			break;
		}
}

static void set_gain(struct finding *f, const struct rule *r, const struct factbase *fb, int idx)
{
	struct ectx c = { .fb = fb, .idx = idx };
	struct expr_value v;
	double wall;

	if (!r->gain.e) {
		snprintf(f->gain_how, sizeof(f->gain_how),
			 "not estimated: the rule has no gain formula");
		return;
	}
	v = expr__eval(r->gain.e, lookup, &c);
	if (!v.known || v.v < 0) {
		if (c.missing[0] && strstr(c.missing, "machine."))
			snprintf(f->gain_how, sizeof(f->gain_how),
				 "not estimated: needs %.120s (run 'memadvise calibrate')", c.missing);
		else
			snprintf(f->gain_how, sizeof(f->gain_how), "not estimated: %s %.120s",
				 c.missing[0] ? "not measured:" : "the formula gives no value",
				 c.missing);
		return;
	}
	f->gain_known = true;
	f->gain_s = v.v;
	snprintf(f->gain_how, sizeof(f->gain_how), "%s", r->gain.src);
	/*
	 * gains are CPU time (samples of all threads): share of the CPU time,
	 * else of the wall; a rule whose gain is wall time (gain_of: wall,
	 * threads no longer waiting) a share of the wall
	 */
	if (r->gain_wall) {
		if (factbase__get(fb, -1, "run.wall_s", &wall, NULL))
			wall = 0;
	} else if (!factbase__get(fb, -1, "counter.task_clock", &wall, NULL) && wall > 0)
		wall /= 1e9;
	else if (factbase__get(fb, -1, "run.wall_s", &wall, NULL))
		wall = 0;
	if (wall > 0) {
		/* sampling noise aside, a fix cannot save more than the run took */
		if (f->gain_s > wall)
			f->gain_s = wall;
		f->gain_share = f->gain_s / wall;
	}
}

/* Why the names in LIST (comma-separated) have no value: their evidence kinds. */
static void explain_missing(const struct factbase *fb, const char *list, char *out, size_t len)
{
	char buf[512], *save = NULL, *tok;
	size_t off = 0;
	bool seen[EV__COUNT] = { false };

	snprintf(buf, sizeof(buf), "%s", list);
	off += snprintf(out + off, len - off, "not measured: %s", list);
	for (tok = strtok_r(buf, ", ", &save); tok && off < len; tok = strtok_r(NULL, ", ", &save)) {
		const struct metric_def *d = metric__find(tok);
		const char *why = NULL;

		if (!d || d->kind >= EV__COUNT || seen[d->kind])
			continue;
		seen[d->kind] = true;
		if (d->kind == EV_COUNTERS) {
			char k[64];

			snprintf(k, sizeof(k), "counters.%s", strchr(tok, '.') + 1);
			if (!strncmp(tok, "counter.", 8) && !factbase__has(fb, k, &why))
				off += snprintf(out + off, len - off, "; %s: %s", strchr(tok, '.') + 1, why);
			continue;
		}
		if (!fb->have[d->kind])
			off += snprintf(out + off, len - off, "; %s", fb->missing[d->kind]);
	}
}

static int by_cost(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->status != y->status)
		return x->status == FINDING_FIRED ? -1 : 1;
	if (x->folded != y->folded)
		return x->folded ? 1 : -1;
	if (x->gain_known != y->gain_known)
		return x->gain_known ? -1 : 1;
	if (x->gain_known && x->gain_s != y->gain_s)
		return x->gain_s > y->gain_s ? -1 : 1;
	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	return strcmp(x->id, y->id);
}

/*
 * Severity follows the estimated gain and its confidence, not the rule:
 * critical from a tenth of the run with high or medium confidence, warning
 * from the threshold, info under it.  A gain that cannot be estimated keeps
 * the rule's severity, at most a warning, and is never folded: nothing says
 * it is small.
 */
static enum severity severity_of(const struct finding *f, double min_gain)
{
	bool firm = f->confidence && strcmp(f->confidence, "low");

	if (!f->gain_known)
		return f->severity > SEV_WARNING ? SEV_WARNING : f->severity;
	if (f->gain_share >= 0.1 && firm)
		return SEV_CRITICAL;
	return f->gain_share >= min_gain ? SEV_WARNING : SEV_INFO;
}

/*
 * The finding of a rule F's caused_by names that fired on F's entity where
 * the condition held: F is a consequence of it, and its fix removes F too.
 */
static const struct finding *cause_of(const struct findings *fs, const struct finding *f)
{
	const struct rule *r = f->rule;

	if (!r || !f->cause_mask)
		return NULL;
	for (int c = 0; c < r->nr_caused_by && c < 32; c++) {
		if (!(f->cause_mask & (1u << c)))
			continue;
		for (int j = 0; j < fs->nr; j++) {
			const struct finding *g = &fs->f[j];

			if (g != f && g->status == FINDING_FIRED && g->scope == f->scope &&
			    g->entity == f->entity && !strcmp(g->id, r->caused_by[c].id))
				return g;
		}
	}
	return NULL;
}

/*
 * Severity, folding under MIN_GAIN, demotion of advice that cannot move V's
 * bound or whose cause is another finding.
 */
static void findings__grade(struct findings *fs, const struct verdict *v, double min_gain)
{
	fs->min_gain = min_gain;
	fs->nr_folded = 0;
	for (int i = 0; i < fs->nr; i++) {
		struct finding *f = &fs->f[i];
		const struct finding *cause;

		if (f->status != FINDING_FIRED)
			continue;
		cause = cause_of(fs, f);
		if (cause && !f->caused_by[0]) {
			snprintf(f->caused_by, sizeof(f->caused_by), "%s", cause->id);
			f->demoted = true;
			snprintf(f->demoted_why, sizeof(f->demoted_why),
				 "caused by the %s finding at the same place, whose fix removes it too",
				 cause->id);
		}
		if (f->caused_by[0]) {
			f->folded = true;
			f->severity = SEV_INFO;
			fs->nr_folded++;
			continue;
		}
		f->severity = severity_of(f, min_gain);
		if (f->gain_known && f->gain_share < min_gain)
			f->folded = true;
		if (v && !verdict__moves(v, f->id, f->demoted_why, sizeof(f->demoted_why))) {
			f->demoted = true;
			f->folded = true;
			f->severity = SEV_INFO;
		}
		if (f->folded)
			fs->nr_folded++;
	}
	if (fs->nr)
		qsort(fs->f, fs->nr, sizeof(*fs->f), by_cost);
}

static void eval_rule(const struct rule *r, const struct factbase *fb, struct findings *fs)
{
	char missing[1024] = "", first_missing[1024] = "", thin_why[1024] = "";
	size_t off = 0;
	int fired = 0, inconclusive = 0, first_inc = -2, start = fs->nr;
	int decided = 0, nr_thin = 0, first_thin = -2;

	/* requires: every item needs one of its alternatives */
	for (int i = 0; i < r->nr_requires; i++) {
		const char *why = NULL, *w;
		bool ok = false;
		size_t item_off = off;

		for (int j = 0; j < r->requires[i].nr_alt && !ok; j++) {
			ok = factbase__has(fb, r->requires[i].alt[j], &w);
			if (!ok && off < sizeof(missing))
				off += snprintf(missing + off, sizeof(missing) - off, "%s%s: %s",
						off == item_off ? (off ? "; needs " : "needs ") : "; or ",
						r->requires[i].alt[j], w);
			(void)why;
		}
		if (ok) {
			off = item_off;
			missing[off] = '\0';
		}
	}
	if (off) {
		struct finding *f = new_finding(fs, r, fb, -1, FINDING_INCONCLUSIVE);

		f->missing = xstrdup(missing);
		f->message = expand(r->title, fb, -1);
		fill_evidence(f, r, fb, -1, true);
		return;
	}

	/*
	 * Per entity: 'when' false is a pass; unknown is inconclusive (naming
	 * what was not measured); true fires only with min_samples met, else
	 * the entity is "thin" and the rule inconclusive.
	 */
	for (int idx = -1; idx < fb->nr_ents; idx++) {
		struct ectx c = { .fb = fb, .idx = idx };
		struct expr_value v;
		char why[1024] = "";
		bool thin = false, low = false;

		if (r->scope == SCOPE_RUN ? idx != -1 : (idx < 0 || fb->ents[idx].scope != r->scope))
			continue;
		/* the data cannot decide for this entity: inconclusive, whatever 'when' says */
		if (r->inconclusive_when.e) {
			struct ectx c2 = { .fb = fb, .idx = idx };

			if (expr_value__true(expr__eval(r->inconclusive_when.e, lookup, &c2))) {
				if (!inconclusive++) {
					first_inc = idx;
					snprintf(first_missing, sizeof(first_missing), "%s",
						 r->inconclusive_why ? r->inconclusive_why
								     : r->inconclusive_when.src);
				}
				continue;
			}
		}
		/* a condition already false is a pass, whatever the amount of data */
		v = expr__eval(r->when.e, lookup, &c);
		if (v.known && v.v == 0) {
			decided++;
			continue;
		}
		if (!v.known)
			explain_missing(fb, c.missing, why, sizeof(why));
		/*
		 * firing needs enough data: below min_samples the entity is thin.
		 * Several minimums are alternatives (samples, or a stream): one
		 * met is enough, and the confidence is lowered only when none
		 * is met four times over.
		 */
		if (r->nr_min_samples && !why[0]) {
			char tw[256] = "";
			bool met = false, ample = false;

			for (int i = 0; i < r->nr_min_samples; i++) {
				double have;

				if (factbase__get(fb, idx, r->min_samples[i].name, &have, NULL)) {
					if (!tw[0])
						snprintf(tw, sizeof(tw), "%s was not measured",
							 r->min_samples[i].name);
				} else if (have < r->min_samples[i].min) {
					if (!tw[0])
						snprintf(tw, sizeof(tw), "only %.0f %s (needs %.0f)", have,
							 r->min_samples[i].name, r->min_samples[i].min);
				} else {
					met = true;
					ample |= have >= 4 * r->min_samples[i].min;
				}
			}
			if (!met) {
				if (!nr_thin++)
					snprintf(thin_why, sizeof(thin_why), "%s", tw);
				if (first_thin == -2)
					first_thin = idx;
				goto next;
			}
			low = !ample;
		}
		if (why[0]) {
			if (!inconclusive++) {
				first_inc = idx;
				snprintf(first_missing, sizeof(first_missing), "%s", why);
			}
			continue;
		}
		thin = low;
		if (fired++ < FINDINGS_MAX_PER_RULE) {
			struct finding *f = new_finding(fs, r, fb, idx, FINDING_FIRED);

			f->message = expand(r->message, fb, idx);
			f->advice = expand(for_alloc(r->advice_for, r->advice, fb, idx), fb, idx);
			f->fix = expand(for_alloc(r->fix_for, r->fix, fb, idx), fb, idx);
			fill_evidence(f, r, fb, idx, thin);
			note_ambiguous(f, fb, idx);
			set_gain(f, r, fb, idx);
			for (int i = 0; i < r->nr_caused_by && i < 32; i++) {
				struct ectx c3 = { .fb = fb, .idx = idx };

				if (expr_value__true(expr__eval(r->caused_by[i].when.e, lookup, &c3)))
					f->cause_mask |= 1u << i;
			}
		}
next:;
	}
	if (fired) {
		for (int i = start; i < fs->nr; i++)
			fs->f[i].count = fired;
		return;
	}
	if (!inconclusive && nr_thin) {
		inconclusive = nr_thin;
		first_inc = first_thin;
		snprintf(first_missing, sizeof(first_missing), "not enough data: %s", thin_why);
	}
	if (inconclusive) {
		struct finding *f = new_finding(fs, r, fb, first_inc, FINDING_INCONCLUSIVE);

		f->count = inconclusive;
		f->missing = xstrdup(first_missing);
		f->message = expand(r->title, fb, first_inc);
		fill_evidence(f, r, fb, first_inc, true);
		return;
	}
	fs->nr_quiet++;
}

int ruleset__eval_facts(const struct ruleset *rs, const struct factbase *fb, struct findings **out)
{
	struct findings *fs = xcalloc(1, sizeof(*fs));

	fs->replay = fb->replay;
	for (int i = 0; i < rs->nr_rules; i++) {
		eval_rule(&rs->rules[i], fb, fs);
		fs->nr_rules++;
	}
	findings__grade(fs, NULL, EVAL_MIN_GAIN_DEFAULT);
	*out = fs;
	return 0;
}

int ruleset__eval(const struct ruleset *rs, const struct rules_input *in, struct findings **out)
{
	struct factbase *fb = NULL;
	int err;

	err = factbase__from_input(in, &fb);
	if (err)
		return err;
	if (in->opts && in->opts->record_facts) {
		struct json_object *o = factbase__to_json(fb);

		if (json_object_to_file_ext(in->opts->record_facts, o, JSON_C_TO_STRING_PRETTY))
			pr_warn("cannot record the facts to '%s'", in->opts->record_facts);
		json_object_put(o);
	}
	err = ruleset__eval_facts(rs, fb, out);
	if (!err) {
		struct verdict *v = &(*out)->verdict;

		verdict__compute(in->snapshot, fb, v);
		findings__grade(*out, v, in->opts ? in->opts->min_gain : EVAL_MIN_GAIN_DEFAULT);
	}
	factbase__free(fb);
	return err;
}

/* --- text ---------------------------------------------------------------- */

