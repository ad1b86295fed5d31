// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rule files: YAML through libyaml (document API, so every error has the
 * line of the node it concerns), checked against the metric registry.
 */
#include "rules/rules.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "rules/expr.h"
#include "base/log.h"
#include "base/util.h"

#define RULE_MAX_BYTES (64 * 1024)

/* Labels a template may use besides metric names (see memadvise-rules(5)). */
static const char *const template_labels[] = {
	"struct", "member", "object", "decl", "function", "file", "line", "location", "region",
	"fixed_decl", "hot_decl", "aligned_decl", "split_decl", "elem_per_line", "split_detail",
	"span_detail", "region_kind", "sharing_fix", NULL,
};

struct pctx {
	const char *path;
	yaml_document_t *doc;
	char *err;
	size_t errlen;
	int failed;
};

static int perr(struct pctx *p, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int perr(struct pctx *p, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return -EINVAL;
	p->failed = 1;
	n = snprintf(p->err, p->errlen, "%s:%d: ", p->path, line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int node_line(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

static const char *node_type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

/* A scalar's text (NUL-terminated by libyaml), or an error. */
static int scalar(struct pctx *p, const char *key, yaml_node_t *n, char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return perr(p, node_line(n), "'%s' must be a single value, not %s", key,
			    node_type_name(n));
	if (strlen((char *)n->data.scalar.value) != n->data.scalar.length)
		return perr(p, node_line(n), "'%s' contains a NUL byte", key);
	*out = xstrdup((char *)n->data.scalar.value);
	return 0;
}

static int nonempty_scalar(struct pctx *p, const char *key, yaml_node_t *n, char **out)
{
	int err = scalar(p, key, n, out);
	const char *s;

	if (err)
		return err;
	for (s = *out; *s == ' ' || *s == '\t' || *s == '\n'; s++)
		;
	if (!*s)
		return perr(p, node_line(n), "'%s' is empty", key);
	return 0;
}

/* A list of scalars (a single scalar is taken as a one-element list). */
static int scalar_list(struct pctx *p, const char *key, yaml_node_t *n, char ***out, int *nr,
		       int **lines)
{
	yaml_node_item_t *it;
	int err;

	*out = NULL;
	*nr = 0;
	if (n->type == YAML_SCALAR_NODE) {
		if (!n->data.scalar.length)
			return 0;
		*out = xcalloc(1, sizeof(char *));
		if (lines) {
			*lines = xcalloc(1, sizeof(int));
			(*lines)[0] = node_line(n);
		}
		*nr = 1;
		return scalar(p, key, n, &(*out)[0]);
	}
	if (n->type != YAML_SEQUENCE_NODE)
		return perr(p, node_line(n), "'%s' must be a list, not %s", key, node_type_name(n));
	int count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);

	*out = xcalloc(count ? count : 1, sizeof(char *));
	if (lines)
		*lines = xcalloc(count ? count : 1, sizeof(int));
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		yaml_node_t *item = yaml_document_get_node(p->doc, *it);

		if (!item)
			return perr(p, node_line(n), "'%s' has a broken item", key);
		if (item->type != YAML_SCALAR_NODE)
			return perr(p, node_line(item), "items of '%s' must be single values, not %s",
				    key, node_type_name(item));
		if (lines)
			(*lines)[*nr] = node_line(item);
		err = scalar(p, key, item, &(*out)[(*nr)++]);
		if (err)
			return err;
	}
	return 0;
}

static void trim(char *s)
{
	size_t n = strlen(s);
	char *b = s;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		s[--n] = '\0';
	while (*b == ' ' || *b == '\t')
		b++;
	memmove(s, b, strlen(b) + 1);
}

struct name_check {
	struct pctx *p;
	const char *key;
	int line;
	enum scope scope;
	int err;
};

static int check_name(void *ctx, const char *name)
{
	struct name_check *c = ctx;
	const struct metric_def *d = metric__find(name);

	if (!d) {
		c->err = perr(c->p, c->line, "'%s' uses '%s', which is not a metric memadvise knows "
				       "(see 'memadvise rules metrics')", c->key, name);
		return c->err;
	}
	if (!metric__usable_in(d, c->scope)) {
		c->err = perr(c->p, c->line, "'%s' uses '%s', a %s metric, in a rule for each %s",
			      c->key, name, scope__name(d->scope), scope__name(c->scope));
		return c->err;
	}
	return 0;
}

static int compile(struct pctx *p, const char *key, yaml_node_t *n, enum scope scope,
		   struct rule_expr *out)
{
	char msg[160];
	int pos = 0, err;
	struct name_check c = { p, key, 0, scope, 0 };

	err = nonempty_scalar(p, key, n, &out->src);
	if (err)
		return err;
	out->line = node_line(n);
	out->e = expr__parse(out->src, msg, sizeof(msg), &pos);
	if (!out->e)
		return perr(p, out->line, "'%s': %s at character %d of \"%s\"", key, msg, pos + 1,
			    out->src);
	c.line = out->line;
	expr__for_each_name(out->e, check_name, &c);
	return c.err;
}

/* Checks the {placeholders} of a template: labels or metric names. */
static int check_template(struct pctx *p, const char *key, const char *t, int line, enum scope scope)
{
	for (const char *s = t; *s; s++) {
		const char *e;
		char name[128];
		bool label = false;

		if (s[0] == '{' && s[1] == '{') {
			s++;
			continue;
		}
		if (*s != '{' || !(s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z') ||
				   (s[1] >= 'A' && s[1] <= 'Z')))
			continue;
		for (e = s + 1; *e == '_' || *e == '.' || (*e >= 'a' && *e <= 'z') ||
				(*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9');
		     e++)
			;
		if (*e == '%' && e[1] == '}')
			e++; /* {name%}: a ratio printed as a percentage */
		if (*e != '}' || (size_t)(e - s - 1) >= sizeof(name))
			continue;
		memcpy(name, s + 1, e - s - 1);
		name[e - s - 1] = '\0';
		if (name[e - s - 2] == '%')
			name[e - s - 2] = '\0';
		for (int i = 0; template_labels[i]; i++)
			if (!strcmp(name, template_labels[i]))
				label = true;
		if (!label) {
			struct name_check c = { p, key, line, scope, 0 };

			if (!strchr(name, '.'))
				return perr(p, line, "'%s' has an unknown placeholder {%s} (labels: struct "
					    "member decl function file line location region fixed_decl "
					    "hot_decl aligned_decl split_decl elem_per_line split_detail span_detail "
					    "region_kind, "
					    "or a metric name)", key, name);
			if (check_name(&c, name))
				return c.err;
		}
		s = e;
	}
	return 0;
}

static bool valid_id(const char *id)
{
	if (!*id || *id == '-')
		return false;
	for (const char *s = id; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return strlen(id) < 64;
}

enum key {
	K_ID, K_TITLE, K_PAPER, K_SEVERITY, K_REQUIRES, K_FOR_EACH, K_WHEN, K_INCONCLUSIVE_WHEN,
	K_MIN_SAMPLES, K_EVIDENCE, K_MESSAGE, K_ADVICE, K_FIX, K_GAIN, K_EXAMPLE, K_EXPLAIN,
	K_INCONCLUSIVE_WHY, K_ADVICE_FOR, K_FIX_FOR, K_GAIN_OF, K_CAUSED_BY, K__COUNT,
};

static const struct {
	const char *name;
	bool required;
} keys[K__COUNT] = {
	[K_ID] = { "id", true },
	[K_TITLE] = { "title", true },
	[K_PAPER] = { "paper", true },
	[K_SEVERITY] = { "severity", true },
	[K_REQUIRES] = { "requires", false },
	[K_FOR_EACH] = { "for-each", false },
	[K_WHEN] = { "when", true },
	[K_INCONCLUSIVE_WHEN] = { "inconclusive_when", false },
	[K_MIN_SAMPLES] = { "min_samples", false },
	[K_EVIDENCE] = { "evidence", true },
	[K_MESSAGE] = { "message", true },
	[K_ADVICE] = { "advice", true },
	[K_FIX] = { "fix", true },
	[K_GAIN] = { "gain", false },
	[K_EXAMPLE] = { "example", true },
	[K_EXPLAIN] = { "explain", false },
	[K_INCONCLUSIVE_WHY] = { "inconclusive_why", false },
	[K_ADVICE_FOR] = { "advice_for", false },
	[K_FIX_FOR] = { "fix_for", false },
	[K_GAIN_OF] = { "gain_of", false },
	[K_CAUSED_BY] = { "caused_by", false },
};

const char *const rule_alloc_names[RULE_ALLOC__COUNT] = {
	[RULE_ALLOC_MALLOC] = "malloc", [RULE_ALLOC_MMAP] = "mmap",
	[RULE_ALLOC_STATIC] = "static", [RULE_ALLOC_STACK] = "stack",
};

/* advice_for / fix_for: region allocation kind -> template (the kind's own text). */
static int parse_for_alloc(struct pctx *p, const char *key, yaml_node_t *n, struct rule *r,
			   char **out)
{
	yaml_node_pair_t *pair;

	if (n->type != YAML_MAPPING_NODE)
		return perr(p, node_line(n), "'%s' must be a mapping of malloc, mmap, static or "
			    "stack to text, not %s", key, node_type_name(n));
	for (pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		int a, err;

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return perr(p, node_line(n), "'%s' must map allocation kinds to text", key);
		for (a = 0; a < RULE_ALLOC__COUNT; a++)
			if (!strcmp((char *)k->data.scalar.value, rule_alloc_names[a]))
				break;
		if (a == RULE_ALLOC__COUNT)
			return perr(p, node_line(k), "'%s': '%s' is not one of malloc, mmap, static, "
				    "stack", key, (char *)k->data.scalar.value);
		if (out[a])
			return perr(p, node_line(k), "'%s': '%s' is given twice", key,
				    rule_alloc_names[a]);
		if ((err = nonempty_scalar(p, key, v, &out[a])) ||
		    (err = check_template(p, key, out[a], node_line(v), r->scope)))
			return err;
	}
	return 0;
}

/* caused_by: rule id -> the condition, at this rule's entity, under which that rule's finding is the cause. */
static int parse_caused_by(struct pctx *p, yaml_node_t *n, struct rule *r)
{
	yaml_node_pair_t *pair;
	int nr = 0;

	if (n->type != YAML_MAPPING_NODE)
		return perr(p, node_line(n), "'caused_by' must be a mapping of rule ids to "
			    "conditions, not %s", node_type_name(n));
	for (pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; pair++)
		nr++;
	r->caused_by = xcalloc(nr ? nr : 1, sizeof(*r->caused_by));
	for (pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		int err;

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return perr(p, node_line(n), "'caused_by' must map rule ids to conditions");
		if (!valid_id((char *)k->data.scalar.value))
			return perr(p, node_line(k), "'caused_by': '%s' is not a rule id",
				    (char *)k->data.scalar.value);
		for (int i = 0; i < r->nr_caused_by; i++)
			if (!strcmp(r->caused_by[i].id, (char *)k->data.scalar.value))
				return perr(p, node_line(k), "'caused_by': '%s' is given twice",
					    (char *)k->data.scalar.value);
		r->caused_by[r->nr_caused_by].id = xstrdup((char *)k->data.scalar.value);
		err = compile(p, "caused_by", v, r->scope, &r->caused_by[r->nr_caused_by].when);
		r->nr_caused_by++;
		if (err)
			return err;
	}
	return 0;
}

static int parse_requires(struct pctx *p, yaml_node_t *n, struct rule *r)
{
	char **items;
	int *lines = NULL, nr, err;

	err = scalar_list(p, "requires", n, &items, &nr, &lines);
	if (err)
		goto out;
	r->requires = xcalloc(nr ? nr : 1, sizeof(*r->requires));
	for (int i = 0; i < nr; i++) {
		char *save = NULL, *tok;

		r->nr_requires++;
		for (tok = strtok_r(items[i], "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
			trim(tok);
			if (!evkind__valid(tok)) {
				err = perr(p, lines[i], "'requires' names '%s', which is not a kind of "
					   "evidence (layout, profile.hotspots, profile.faults, "
					   "profile.regions, addr_samples, watchpoints, simulation, "
					   "machine_profile, counters.NAME)", tok);
				goto out;
			}
			r->requires[i].alt = xrealloc(r->requires[i].alt,
						      (r->requires[i].nr_alt + 1) * sizeof(char *));
			r->requires[i].alt[r->requires[i].nr_alt++] = xstrdup(tok);
		}
		if (!r->requires[i].nr_alt) {
			err = perr(p, lines[i], "'requires' has an empty item");
			goto out;
		}
	}
out:
	for (int i = 0; i < nr; i++)
		free(items[i]);
	free(items);
	free(lines);
	return err;
}

static int parse_min_samples(struct pctx *p, yaml_node_t *n, struct rule *r)
{
	yaml_node_pair_t *pair;

	if (n->type != YAML_MAPPING_NODE)
		return perr(p, node_line(n), "'min_samples' must be a mapping of metric: minimum, "
			    "not %s", node_type_name(n));
	for (pair = n->data.mapping.pairs.start; pair < n->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		struct name_check c = { p, "min_samples", 0, r->scope, 0 };
		char *end;
		double min;

		if (!k || !v || k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE)
			return perr(p, node_line(n), "'min_samples' must map metric names to numbers");
		c.line = node_line(k);
		if (check_name(&c, (char *)k->data.scalar.value))
			return c.err;
		errno = 0;
		min = strtod((char *)v->data.scalar.value, &end);
		if (errno || end == (char *)v->data.scalar.value || *end || !(min >= 0) || min > 1e18)
			return perr(p, node_line(v), "'min_samples': '%s' is not a number >= 0",
				    (char *)v->data.scalar.value);
		r->min_samples = xrealloc(r->min_samples, (r->nr_min_samples + 1) *
								  sizeof(*r->min_samples));
		r->min_samples[r->nr_min_samples].name = xstrdup((char *)k->data.scalar.value);
		r->min_samples[r->nr_min_samples].min = min;
		r->nr_min_samples++;
	}
	return 0;
}

static int parse_rule(struct pctx *p, yaml_node_t *root, struct rule *r)
{
	yaml_node_t *val[K__COUNT] = { NULL };
	yaml_node_pair_t *pair;
	char *s = NULL;
	int err = 0, *lines = NULL;

	if (root->type != YAML_MAPPING_NODE)
		return perr(p, node_line(root), "a rule file holds one mapping of keys (id, title, "
			    "...), not %s", node_type_name(root));
	for (pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(p->doc, pair->value);
		int i;

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return perr(p, k ? node_line(k) : node_line(root), "keys must be plain words");
		for (i = 0; i < K__COUNT; i++)
			if (!strcmp((char *)k->data.scalar.value, keys[i].name))
				break;
		if (i == K__COUNT) {
			const char *hint = "";

			if (!strcmp((char *)k->data.scalar.value, "for_each") ||
			    !strcmp((char *)k->data.scalar.value, "scope"))
				hint = " (did you mean 'for-each'?)";
			return perr(p, node_line(k), "unknown key '%s'%s", (char *)k->data.scalar.value,
				    hint);
		}
		if (val[i])
			return perr(p, node_line(k), "'%s' is given twice (first on line %d)",
				    keys[i].name, node_line(val[i]));
		val[i] = v;
	}
	for (int i = 0; i < K__COUNT; i++)
		if (keys[i].required && !val[i])
			return perr(p, node_line(root), "'%s' is missing", keys[i].name);

	if ((err = nonempty_scalar(p, "id", val[K_ID], &r->id)))
		return err;
	if (!valid_id(r->id))
		return perr(p, node_line(val[K_ID]), "id '%s' must be lowercase letters, digits and "
			    "dashes", r->id);
	if ((err = nonempty_scalar(p, "title", val[K_TITLE], &r->title)) ||
	    (err = nonempty_scalar(p, "paper", val[K_PAPER], &r->paper)) ||
	    (err = nonempty_scalar(p, "severity", val[K_SEVERITY], &s)))
		goto out;
	for (r->severity = 0; r->severity <= SEV_CRITICAL; r->severity++)
		if (!strcmp(s, severity__name(r->severity)))
			break;
	if (r->severity > SEV_CRITICAL) {
		err = perr(p, node_line(val[K_SEVERITY]), "severity '%s' is not one of info, warning, "
			   "critical", s);
		goto out;
	}
	free(s);
	s = NULL;
	r->scope = SCOPE_RUN;
	if (val[K_FOR_EACH]) {
		if ((err = nonempty_scalar(p, "for-each", val[K_FOR_EACH], &s)))
			goto out;
		if (scope__parse(s, &r->scope)) {
			err = perr(p, node_line(val[K_FOR_EACH]), "for-each '%s' is not one of run, "
				   "struct, member, region, line, function, lock", s);
			goto out;
		}
		free(s);
		s = NULL;
	}
	if (val[K_REQUIRES] && (err = parse_requires(p, val[K_REQUIRES], r)))
		goto out;
	if ((err = compile(p, "when", val[K_WHEN], r->scope, &r->when)))
		goto out;
	if (val[K_INCONCLUSIVE_WHEN] &&
	    (err = compile(p, "inconclusive_when", val[K_INCONCLUSIVE_WHEN], r->scope,
			   &r->inconclusive_when)))
		goto out;
	if (val[K_GAIN] && (err = compile(p, "gain", val[K_GAIN], r->scope, &r->gain)))
		goto out;
	if (val[K_GAIN_OF]) {
		if ((err = nonempty_scalar(p, "gain_of", val[K_GAIN_OF], &s)))
			goto out;
		if (strcmp(s, "cpu") && strcmp(s, "wall")) {
			err = perr(p, node_line(val[K_GAIN_OF]), "gain_of '%s' is not one of cpu, wall",
				   s);
			goto out;
		}
		r->gain_wall = !strcmp(s, "wall");
		free(s);
		s = NULL;
	}
	if (val[K_MIN_SAMPLES] && (err = parse_min_samples(p, val[K_MIN_SAMPLES], r)))
		goto out;
	if (val[K_CAUSED_BY] && (err = parse_caused_by(p, val[K_CAUSED_BY], r)))
		goto out;
	if ((err = scalar_list(p, "evidence", val[K_EVIDENCE], &r->evidence, &r->nr_evidence,
			       &lines)))
		goto out;
	if (!r->nr_evidence) {
		err = perr(p, node_line(val[K_EVIDENCE]), "'evidence' names no metric");
		goto out;
	}
	for (int i = 0; i < r->nr_evidence; i++) {
		struct name_check c = { p, "evidence", lines[i], r->scope, 0 };

		trim(r->evidence[i]);
		if (check_name(&c, r->evidence[i])) {
			err = c.err;
			goto out;
		}
	}
	if ((err = nonempty_scalar(p, "message", val[K_MESSAGE], &r->message)) ||
	    (err = check_template(p, "message", r->message, node_line(val[K_MESSAGE]), r->scope)) ||
	    (err = nonempty_scalar(p, "advice", val[K_ADVICE], &r->advice)) ||
	    (err = check_template(p, "advice", r->advice, node_line(val[K_ADVICE]), r->scope)) ||
	    (err = nonempty_scalar(p, "fix", val[K_FIX], &r->fix)) ||
	    (err = check_template(p, "fix", r->fix, node_line(val[K_FIX]), r->scope)) ||
	    (err = nonempty_scalar(p, "example", val[K_EXAMPLE], &r->example)))
		goto out;
	if (val[K_EXPLAIN] && (err = scalar(p, "explain", val[K_EXPLAIN], &r->explain)))
		goto out;
	if (val[K_ADVICE_FOR] &&
	    (err = parse_for_alloc(p, "advice_for", val[K_ADVICE_FOR], r, r->advice_for)))
		goto out;
	if (val[K_FIX_FOR] && (err = parse_for_alloc(p, "fix_for", val[K_FIX_FOR], r, r->fix_for)))
		goto out;
	if (val[K_INCONCLUSIVE_WHY]) {
		if (!val[K_INCONCLUSIVE_WHEN]) {
			err = perr(p, node_line(val[K_INCONCLUSIVE_WHY]),
				   "'inconclusive_why' without 'inconclusive_when'");
			goto out;
		}
		if ((err = nonempty_scalar(p, "inconclusive_why", val[K_INCONCLUSIVE_WHY],
					   &r->inconclusive_why)))
			goto out;
	}
out:
	free(s);
	free(lines);
	return err;
}

static int yaml_read(void *data, unsigned char *buf, size_t size, size_t *read)
{
	struct {
		const char *text;
		size_t len, off;
	} *in = data;
	size_t n = in->len - in->off < size ? in->len - in->off : size;

	memcpy(buf, in->text + in->off, n);
	in->off += n;
	*read = n;
	return 1;
}

static int rule__parse_text(const char *path, const char *text, size_t len, struct rule *out,
			    char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct pctx p = { .path = path, .doc = &doc, .err = err, .errlen = errlen };
	struct {
		const char *text;
		size_t len, off;
	} in = { text, len, 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	if (len > RULE_MAX_BYTES) {
		ret = perr(&p, 1, "file is larger than %d KiB", RULE_MAX_BYTES / 1024);
		goto fail;
	}
	if (memchr(text, '\0', len)) {
		ret = perr(&p, 1, "file contains a NUL byte: not a YAML rule file");
		goto fail;
	}
	if (!yaml_parser_initialize(&parser)) {
		ret = -ENOMEM;
		goto fail;
	}
	yaml_parser_set_input(&parser, yaml_read, &in);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = perr(&p, (int)parser.problem_mark.line + 1, "YAML syntax: %s%s%s",
			   parser.problem ? parser.problem : "cannot parse",
			   parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		goto fail;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		ret = perr(&p, 1, "file is empty: a rule needs id, title, paper, severity, when, "
			   "evidence, message, advice, fix and example");
	} else {
		yaml_document_t next;

		ret = parse_rule(&p, root, out);
		/* One rule per file: a second document is a mistake. */
		if (!ret && yaml_parser_load(&parser, &next)) {
			if (yaml_document_get_root_node(&next))
				ret = perr(&p, (int)yaml_document_get_root_node(&next)->start_mark.line + 1,
					   "a second YAML document: one rule per file");
			yaml_document_delete(&next);
		} else if (!ret) {
			ret = perr(&p, (int)parser.problem_mark.line + 1, "YAML syntax: %s",
				   parser.problem ? parser.problem : "cannot parse");
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (!ret)
		return 0;
fail:
	rule__release(out);
	return ret;
}

/* What a file that is not a regular one is, for the message that skips it. */
static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * At most RULE_MAX_BYTES + 1 bytes of FD, NUL-terminated: the limit holds
 * while reading, whatever the size fstat() gave.  NULL with errno set.
 */
static char *read_limited(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap + 1);

	while (n <= RULE_MAX_BYTES) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * Opened without blocking (a FIFO named *.yaml must not hang the load) and
 * read only when it is a regular file (a link to /dev/zero must not be read
 * without end).
 */
int rule__parse_file(const char *path, struct rule *out, char *err, size_t errlen)
{
	struct stat st;
	size_t len = 0;
	char *text;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-ret));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s, not a rule file", path, file_kind(st.st_mode));
		ret = -EINVAL;
		goto out;
	}
	text = read_limited(fd, &len);
	if (!text) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-ret));
		goto out;
	}
	if (len > RULE_MAX_BYTES) {
		snprintf(err, errlen, "%s:1: file is larger than %d KiB", path, RULE_MAX_BYTES / 1024);
		ret = -EINVAL;
	} else {
		ret = rule__parse_text(path, text, len, out, err, errlen);
	}
	free(text);
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* For the fuzzer: parse a rule from memory. */
int rule__parse_buffer(const char *name, const char *text, size_t len, struct rule *out, char *err,
		       size_t errlen);
int rule__parse_buffer(const char *name, const char *text, size_t len, struct rule *out, char *err,
		       size_t errlen)
{
	return rule__parse_text(name, text, len, out, err, errlen);
}

static void free_rule_expr(struct rule_expr *e)
{
	free(e->src);
	expr__free(e->e);
}

void rule__release(struct rule *r)
{
	free(r->path);
	free(r->id);
	free(r->title);
	free(r->paper);
	free(r->explain);
	free(r->inconclusive_why);
	for (int i = 0; i < r->nr_requires; i++) {
		for (int j = 0; j < r->requires[i].nr_alt; j++)
			free(r->requires[i].alt[j]);
		free(r->requires[i].alt);
	}
	free(r->requires);
	free_rule_expr(&r->when);
	free_rule_expr(&r->inconclusive_when);
	free_rule_expr(&r->gain);
	for (int i = 0; i < r->nr_caused_by; i++) {
		free(r->caused_by[i].id);
		free_rule_expr(&r->caused_by[i].when);
	}
	free(r->caused_by);
	for (int i = 0; i < r->nr_min_samples; i++)
		free(r->min_samples[i].name);
	free(r->min_samples);
	for (int i = 0; i < r->nr_evidence; i++)
		free(r->evidence[i]);
	free(r->evidence);
	free(r->message);
	free(r->advice);
	free(r->fix);
	for (int a = 0; a < RULE_ALLOC__COUNT; a++) {
		free(r->advice_for[a]);
		free(r->fix_for[a]);
	}
	free(r->example);
	memset(r, 0, sizeof(*r));
}

/* --- sets ---------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every *.yaml under a directory, sorted, recursively (depth-limited).
 * Symbolic links to directories are not followed, so a link to '.' or '..'
 * neither loops nor finds a file twice.  A *.yaml that is not a regular file
 * (a FIFO, a link to a device) is skipped with a message: an error when
 * STRICT (lint), a warning otherwise; SKIPPED counts them.
 */
struct walk {
	char **files;
	int nr;
	int skipped;
	bool strict;
};

static void walk__skip(struct walk *w, const char *path, const char *why)
{
	if (w->strict)
		pr_err("%s: %s, skipped", path, why);
	else
		pr_warn("%s: %s, skipped", path, why);
	w->skipped++;
}

static int walk__entry(struct walk *w, char *name, int depth);

static int collect(const char *dir, struct walk *w, int depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	int n = 0, err = 0;

	if (depth > 4)
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof(char *));
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(char *), cmp_str);
	for (int i = 0; i < n; i++) {
		if (!err)
			err = walk__entry(w, names[i], depth);
		else
			free(names[i]);
	}
	free(names);
	return err;
}

/* One entry of a rules directory; takes NAME. */
static int walk__entry(struct walk *w, char *name, int depth)
{
	size_t len = strlen(name);
	bool yaml = len > 5 && !strcmp(name + len - 5, ".yaml");
	struct stat lst, st;
	int err = 0;

	if (lstat(name, &lst) || stat(name, &st)) {
		if (yaml)
			walk__skip(w, name, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		if (S_ISLNK(lst.st_mode))
			pr_warn("%s: a symbolic link to a directory, not followed", name);
		else
			err = collect(name, w, depth + 1);
	} else if (yaml && !S_ISREG(st.st_mode)) {
		walk__skip(w, name, file_kind(st.st_mode));
	} else if (yaml) {
		w->files = xrealloc(w->files, (w->nr + 1) * sizeof(char *));
		w->files[w->nr++] = name;
		return 0;
	}
out:
	free(name);
	return err;
}

static const char *base_id(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s", path_basename(path));
	if (strlen(buf) > 5)
		buf[strlen(buf) - 5] = '\0';
	return buf;
}

static int add_rule(struct ruleset *rs, struct rule *r)
{
	for (int i = 0; i < rs->nr_rules; i++) {
		if (!strcmp(rs->rules[i].id, r->id)) {
			pr_debug("rule '%s' from %s replaces the one from %s", r->id, r->path,
				 rs->rules[i].path);
			rule__release(&rs->rules[i]);
			rs->rules[i] = *r;
			return 0;
		}
	}
	rs->rules = xrealloc(rs->rules, (rs->nr_rules + 1) * sizeof(*rs->rules));
	rs->rules[rs->nr_rules++] = *r;
	return 0;
}

static int load_dir(const char *dir, struct ruleset *rs, bool builtin)
{
	char **files = NULL, err[512], id[128];
	int nr = 0, ret, first = rs->nr_rules;
	struct stat st;

	if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) {
		files = xcalloc(1, sizeof(char *));
		files[nr++] = xstrdup(dir);
		ret = 0;
	} else {
		struct walk w = { 0 };

		ret = collect(dir, &w, 0);
		files = w.files;
		nr = w.nr;
	}
	if (ret) {
		pr_err("cannot read the rules directory '%s': %s", dir, strerror(-ret));
		pr_hint("--rules (or $MEMADVISE_RULES) names a directory of *.yaml rule files; 'memadvise rules lint DIR' checks one");
		goto out;
	}
	for (int i = 0; i < nr; i++) {
		struct rule r;

		ret = rule__parse_file(files[i], &r, err, sizeof(err));
		if (ret) {
			pr_err("%s", err);
			pr_hint("'memadvise rules lint %s' checks every file; see memadvise-rules(5)", dir);
			goto out;
		}
		if (strcmp(r.id, base_id(files[i], id, sizeof(id)))) {
			pr_err("%s:1: id '%s' does not match the file name '%s.yaml'", files[i], r.id, id);
			rule__release(&r);
			ret = -EINVAL;
			goto out;
		}
		for (int j = first; j < rs->nr_rules; j++) {
			if (!strcmp(rs->rules[j].id, r.id)) {
				pr_err("%s:1: id '%s' is also used by %s", files[i], r.id,
				       rs->rules[j].path);
				rule__release(&r);
				ret = -EINVAL;
				goto out;
			}
		}
		r.builtin = builtin;
		add_rule(rs, &r);
	}
out:
	for (int i = 0; i < nr; i++)
		free(files[i]);
	free(files);
	return ret;
}

int ruleset__load_dir(const char *dir, struct ruleset **out)
{
	struct ruleset *rs = *out;
	int err;

	if (!rs)
		rs = xcalloc(1, sizeof(*rs));
	err = load_dir(dir, rs, false);
	if (err && !*out)
		ruleset__free(rs);
	else
		*out = rs;
	return err;
}

const char *ruleset__builtin_dir(void)
{
	static char dir[PATH_MAX + 16];
	char exe[PATH_MAX - 32];
	ssize_t n;
	struct stat st;

	if (dir[0])
		return dir;
	/* Development tree: .output/memadvise -> ../rules */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dir, sizeof(dir), "%s/../rules", exe);
			if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
				char probe[PATH_MAX + 16];

				/* only a source tree has rules/README.md next to src/ */
				snprintf(probe, sizeof(probe), "%s/../src/rules/rules.c", exe);
				if (access(probe, F_OK) == 0)
					return dir;
			}
		}
	}
	snprintf(dir, sizeof(dir), "%s/rules", MA_DATADIR);
	return dir;
}

int ruleset__load_default(const char *user_dir, struct ruleset **out)
{
	struct ruleset *rs = xcalloc(1, sizeof(*rs));
	const char *env = getenv("MEMADVISE_RULES");
	const char *builtin = ruleset__builtin_dir();
	struct stat st;
	int err = 0;

	if (stat(builtin, &st) == 0) {
		err = load_dir(builtin, rs, true);
	} else {
		pr_warn("no built-in rules at '%s'", builtin);
		pr_hint("reinstall memadvise ('make install') or give --rules DIR");
	}
	if (!err && env && *env)
		err = load_dir(env, rs, false);
	if (!err && user_dir)
		err = load_dir(user_dir, rs, false);
	if (err) {
		ruleset__free(rs);
		return err;
	}
	*out = rs;
	return 0;
}

void ruleset__free(struct ruleset *rs)
{
	if (!rs)
		return;
	for (int i = 0; i < rs->nr_rules; i++)
		rule__release(&rs->rules[i]);
	free(rs->rules);
	free(rs);
}

const struct rule *ruleset__find(const struct ruleset *rs, const char *id)
{
	for (int i = 0; i < rs->nr_rules; i++)
		if (!strcmp(rs->rules[i].id, id))
			return &rs->rules[i];
	return NULL;
}

/*
 * 0 when NAME is an example for rule ID: a label examples/labels/NAME.yaml
 * whose 'rule' is ID, or a program examples/NAME.c; else -ENOENT, or
 * -EINVAL with the label's rule in OTHER.
 */
static int example_check(const char *examples_dir, const char *name, const char *id, char *other,
			 size_t len)
{
	char path[PATH_MAX], *text, *line;
	size_t n;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/labels/%s.yaml", examples_dir, name);
	text = read_file(path, &n);
	if (!text) {
		snprintf(path, sizeof(path), "%s/%s.c", examples_dir, name);
		return access(path, F_OK) == 0 ? 0 : -ENOENT;
	}
	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (strncmp(line, "rule:", 5))
			continue;
		line += 5;
		line += strspn(line, " \t\"");
		n = strcspn(line, " \t\"#\n");
		if (n != strlen(id) || strncmp(line, id, n)) {
			snprintf(other, len, "%.*s", (int)n, line);
			ret = -EINVAL;
		}
		break;
	}
	free(text);
	return ret;
}

int ruleset__lint(const char *dir, const char *examples_dir)
{
	char **files = NULL, err[512], id[128];
	struct rule *seen = NULL;
	int nr = 0, nr_seen = 0, problems = 0, ret;

	struct stat st;

	if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) {
		files = xcalloc(1, sizeof(char *));
		files[nr++] = xstrdup(dir);
	} else {
		struct walk w = { .strict = true };

		ret = collect(dir, &w, 0);
		files = w.files;
		nr = w.nr;
		problems = w.skipped;
		if (ret) {
			pr_err("cannot read the rules directory '%s': %s", dir, strerror(-ret));
			pr_hint("give a directory of *.yaml rule files or one rule file");
			for (int i = 0; i < nr; i++)
				free(files[i]);
			free(files);
			return ret;
		}
	}
	if (!nr) {
		if (!problems)
			pr_err("%s: no rule files (*.yaml)", dir);
		free(files);
		return problems ? problems : 1;
	}
	seen = xcalloc(nr, sizeof(*seen));
	for (int i = 0; i < nr; i++) {
		struct rule r;

		if (rule__parse_file(files[i], &r, err, sizeof(err))) {
			pr_err("%s", err);
			problems++;
			continue;
		}
		if (strcmp(r.id, base_id(files[i], id, sizeof(id)))) {
			pr_err("%s:1: id '%s' does not match the file name '%s.yaml'", files[i], r.id, id);
			problems++;
		}
		for (int j = 0; j < nr_seen; j++) {
			if (!strcmp(seen[j].id, r.id)) {
				pr_err("%s:1: id '%s' is also used by %s", files[i], r.id, seen[j].path);
				problems++;
			}
		}
		if (examples_dir) {
			char other[64] = "";
			int e = example_check(examples_dir, r.example, r.id, other, sizeof(other));

			if (e == -ENOENT) {
				pr_err("%s: example '%s' is neither %s/labels/%s.yaml nor %s/%s.c",
				       files[i], r.example, examples_dir, r.example, examples_dir,
				       r.example);
				problems++;
			} else if (e) {
				pr_err("%s: example '%s' is labelled for rule '%s', not '%s'", files[i],
				       r.example, other, r.id);
				problems++;
			}
		}
		seen[nr_seen++] = r;
	}
	/* a cause is a rule of the same set, at the same kind of entity, not the rule itself */
	for (int i = 0; i < nr_seen && nr > 1; i++) {
		for (int c = 0; c < seen[i].nr_caused_by; c++) {
			const char *cid = seen[i].caused_by[c].id;
			int j;

			for (j = 0; j < nr_seen; j++)
				if (!strcmp(seen[j].id, cid))
					break;
			if (j == nr_seen) {
				pr_err("%s:%d: caused_by names '%s', which is no rule here", seen[i].path,
				       seen[i].caused_by[c].when.line, cid);
				problems++;
			} else if (j == i || seen[j].scope != seen[i].scope) {
				pr_err("%s:%d: caused_by names '%s', %s", seen[i].path,
				       seen[i].caused_by[c].when.line, cid,
				       j == i ? "the rule itself" : "which is for-each another entity");
				problems++;
			}
		}
	}
	for (int i = 0; i < nr_seen; i++)
		rule__release(&seen[i]);
	free(seen);
	for (int i = 0; i < nr; i++)
		free(files[i]);
	free(files);
	return problems;
}
