// SPDX-License-Identifier: GPL-2.0-only
/*
 * 'run --sim': cachegrind with this machine's cache geometry, and the
 * parser of its output into per-line counts and miss ratios.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/sudo.h"
#include "collect/sim.h"
#include "machine/sysinfo.h"
#include "base/util.h"

/* --- parsing ----------------------------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
	const struct sim_line *x = a, *y = b;
	int c = strcmp(x->file, y->file);

	if (!c)
		c = strcmp(x->function, y->function);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_misses(const void *a, const void *b)
{
	const struct sim_line *x = a, *y = b;
	uint64_t mx = sim_line__d1_misses(x), my = sim_line__d1_misses(y);

	if (mx != my)
		return mx < my ? 1 : -1;
	if (x->ev[SIM_IR] != y->ev[SIM_IR])
		return x->ev[SIM_IR] < y->ev[SIM_IR] ? 1 : -1;
	return cmp_key(a, b);
}

/* Sums lines with the same (file, function, line), then orders by D1 misses. */
static void merge_lines(struct sim_report *s, int keep)
{
	int n = 0;

	qsort(s->lines, s->nr_lines, sizeof(*s->lines), cmp_key);
	for (int i = 0; i < s->nr_lines; i++) {
		if (n && !cmp_key(&s->lines[n - 1], &s->lines[i])) {
			for (int e = 0; e < SIM_EV__COUNT; e++)
				s->lines[n - 1].ev[e] += s->lines[i].ev[e];
			continue;
		}
		if (n != i)
			s->lines[n] = s->lines[i];
		n++;
	}
	s->nr_lines = s->nr_lines_total = n;
	qsort(s->lines, n, sizeof(*s->lines), cmp_misses);
	if (keep > 0 && s->nr_lines > keep)
		s->nr_lines = keep;
}

static double ratio(uint64_t num, uint64_t den, bool ok)
{
	return ok && den ? (double)num / (double)den : -1.0;
}

static void derive(struct sim_report *s)
{
	const uint64_t *t = s->total;
	const bool *h = s->has;
	bool d1 = h[SIM_DR] && h[SIM_DW] && h[SIM_D1MR] && h[SIM_D1MW];
	bool ll = d1 && h[SIM_DLMR] && h[SIM_DLMW];

	s->l1d_miss_ratio = ratio(t[SIM_D1MR] + t[SIM_D1MW], t[SIM_DR] + t[SIM_DW], d1);
	s->l1i_miss_ratio = ratio(t[SIM_I1MR], t[SIM_IR], h[SIM_IR] && h[SIM_I1MR]);
	s->lld_miss_ratio = ratio(t[SIM_DLMR] + t[SIM_DLMW], t[SIM_DR] + t[SIM_DW], ll);
	s->ll_miss_ratio = ratio(t[SIM_ILMR] + t[SIM_DLMR] + t[SIM_DLMW],
				 t[SIM_IR] + t[SIM_DR] + t[SIM_DW], ll && h[SIM_ILMR]);
	s->branch_miss_ratio = ratio(t[SIM_BCM] + t[SIM_BIM], t[SIM_BC] + t[SIM_BI],
				     h[SIM_BC] && h[SIM_BCM] && h[SIM_BI] && h[SIM_BIM]);
}

/* "(N) name" or "(N)" name compression (callgrind style), or a plain name. */
static void set_name(char *dst, size_t len, const char *val, char (*names)[256], int max)
{
	int id;
	char *end;

	if (val[0] == '(' && (id = (int)strtol(val + 1, &end, 10)) >= 0 && *end == ')') {
		const char *rest = end + 1;

		while (*rest == ' ')
			rest++;
		if (*rest && id < max)
			snprintf(names[id], 256, "%s", rest);
		snprintf(dst, len, "%s", *rest ? rest : (id < max ? names[id] : "???"));
		return;
	}
	snprintf(dst, len, "%s", val);
}

int sim__parse(const char *text, int keep, struct sim_report **out, int *errline)
{
	static char fl_names[256][256], fn_names[256][256];
	struct sim_report *s = xcalloc(1, sizeof(*s));
	int cols[SIM_EV__COUNT * 2], ncols = 0, lineno = 0, cap = 0;
	char fl[200] = "???", fn[128] = "???";
	bool have_events = false, have_summary = false;
	const char *p = text;

	*errline = 0;
	s->tier = TIER_SIMULATION;
	snprintf(s->tool, sizeof(s->tool), "cachegrind");
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xmalloc(len + 1);

		memcpy(line, p, len);
		line[len] = '\0';
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		p = eol ? eol + 1 : NULL;
		lineno++;

		if (!line[0] || line[0] == '#') {
			/* blank or comment */
		} else if (!strncmp(line, "desc:", 5)) {
			char which[8];
			unsigned long long size;
			int l, w;

			if (sscanf(line, "desc: %7s cache: %llu B, %d B, %d-way", which, &size, &l,
				   &w) == 4) {
				struct sim_cache *c = !strcmp(which, "I1") ? &s->i1
						      : !strcmp(which, "D1") ? &s->d1
						      : !strcmp(which, "LL") ? &s->ll : NULL;

				if (c) {
					c->size = size;
					c->line = l;
					c->ways = w;
				}
			}
		} else if (!strncmp(line, "cmd:", 4)) {
			snprintf(s->cmd, sizeof(s->cmd), "%s", line + 4 + (line[4] == ' '));
		} else if (!strncmp(line, "events:", 7)) {
			char *save = NULL, *tok = strtok_r(line + 7, " \t", &save);

			ncols = 0;
			for (; tok && ncols < (int)(sizeof(cols) / sizeof(cols[0]));
			     tok = strtok_r(NULL, " \t", &save)) {
				int e;

				for (e = 0; e < SIM_EV__COUNT && strcmp(tok, sim_ev__name(e)); e++)
					;
				cols[ncols++] = e < SIM_EV__COUNT ? e : -1;
				if (e < SIM_EV__COUNT)
					s->has[e] = true;
			}
			have_events = ncols > 0;
		} else if (!strncmp(line, "fl=", 3) || !strncmp(line, "fi=", 3) ||
			   !strncmp(line, "fe=", 3)) {
			set_name(fl, sizeof(fl), line + 3, fl_names, 256);
		} else if (!strncmp(line, "fn=", 3)) {
			set_name(fn, sizeof(fn), line + 3, fn_names, 256);
		} else if (!strncmp(line, "summary:", 8) || (line[0] >= '0' && line[0] <= '9')) {
			bool summary = line[0] == 's';
			char *q = line + (summary ? 8 : 0), *end;
			uint64_t v[SIM_EV__COUNT] = { 0 };
			long ln = 0;

			if (!have_events) {
				*errline = lineno;
				free(line);
				goto bad;
			}
			if (!summary) {
				ln = strtol(q, &end, 10);
				if (end == q || ln < 0) {
					*errline = lineno;
					free(line);
					goto bad;
				}
				q = end;
			}
			for (int c = 0; c < ncols; c++) {
				unsigned long long x;

				while (*q == ' ' || *q == '\t')
					q++;
				if (!*q)
					break; /* missing trailing counts are 0 */
				errno = 0;
				x = strtoull(q, &end, 10);
				if (end == q || errno) {
					*errline = lineno;
					free(line);
					goto bad;
				}
				q = end;
				if (cols[c] >= 0)
					v[cols[c]] = x;
			}
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q) {
				*errline = lineno;
				free(line);
				goto bad;
			}
			if (summary) {
				memcpy(s->total, v, sizeof(v));
				have_summary = true;
			} else {
				struct sim_line *l;

				if (s->nr_lines == cap) {
					cap = cap ? cap * 2 : 256;
					s->lines = xrealloc(s->lines, cap * sizeof(*s->lines));
				}
				l = &s->lines[s->nr_lines++];
				snprintf(l->file, sizeof(l->file), "%s", fl);
				snprintf(l->function, sizeof(l->function), "%s", fn);
				l->line = (int)ln;
				memcpy(l->ev, v, sizeof(v));
			}
		} else if (!strncmp(line, "version:", 8) || !strncmp(line, "creator:", 8) ||
			   !strncmp(line, "positions:", 10) || !strncmp(line, "totals:", 7)) {
			/* not needed */
		} else {
			*errline = lineno;
			free(line);
			goto bad;
		}
		free(line);
	}
	if (!have_events) {
		*errline = lineno ? lineno : 1;
		goto bad;
	}
	if (!have_summary)
		for (int i = 0; i < s->nr_lines; i++)
			for (int e = 0; e < SIM_EV__COUNT; e++)
				s->total[e] += s->lines[i].ev[e];
	merge_lines(s, keep);
	derive(s);
	*out = s;
	return 0;
bad:
	sim_report__free(s);
	return -EINVAL;
}

int sim__parse_file(const char *path, int keep, struct sim_report **out, int *errline)
{
	char *text = read_file(path, NULL);
	int rc;

	*errline = 0;
	if (!text)
		return -errno;
	rc = sim__parse(text, keep, out, errline);
	free(text);
	return rc;
}

/* --- output ------------------------------------------------------------ */

/* --- running under cachegrind --------------------------------------------- */

struct sim_run {
	char dir[256];
	char program[PATH_MAX];
	char **argv;
	int argc;
	int keep;
	char note[200];
};

static bool find_in_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *dup, *save = NULL, *d;
	bool found = false;

	dup = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (d = strtok_r(dup, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", *d ? d : ".", name);
		found = access(out, X_OK) == 0;
	}
	free(dup);
	return found;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* "--D1=size,assoc,line" from sysfs; LL sets are rounded down to a power of two. */
static void cache_opt(struct sim_run *s, const char *name, const struct cache_level *c)
{
	uint64_t sets;
	char opt[64];

	if (!c || !c->size || c->ways <= 0 || c->line <= 0)
		return;
	sets = c->size / ((uint64_t)c->ways * c->line);
	if (!pow2(sets) || !pow2(c->line)) {
		uint64_t p = 1;

		if (strcmp(name, "LL") || !pow2(c->line) || !sets)
			return; /* cachegrind's own default then */
		while (p * 2 <= sets)
			p *= 2;
		snprintf(s->note, sizeof(s->note),
			 "LL modelled with %" PRIu64 " sets (sysfs: %" PRIu64 ", not a power of two)",
			 p, sets);
		sets = p;
	}
	snprintf(opt, sizeof(opt), "--%s=%" PRIu64 ",%d,%d", name, sets * c->ways * c->line,
		 c->ways, c->line);
	s->argv[s->argc++] = xstrdup(opt);
}

/*
 * Under sudo, valgrind runs as the invoking user (as every program
 * memadvise starts), so the scratch directory, made by root with mode 0700,
 * is handed to that user; the directory is memadvise's own, just made.
 */
static void sim_dir_for_user(const char *dir)
{
	struct sudo_user u;

	sudo_user__init(&u);
	if (u.active && chown(dir, u.uid, u.gid))
		pr_debug("sim: cannot hand %s to uid %u: %s", dir, (unsigned int)u.uid,
			 strerror(errno));
	sudo_user__free(&u);
}

/*
 * What is read back from that directory must be a file valgrind wrote: a
 * regular file with one link, not a link the user put there for root to
 * follow.  (A swap between this check and the parser's open remains
 * possible; the parser reads numbers and reports only line numbers.)
 */
static bool sim_result_file(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISREG(st.st_mode) && st.st_nlink == 1;
}

/* "--I1=size,assoc,line" from a pinned geometry. */
static int pinned_opt(struct sim_run *s, const char *name, const struct sim_cache *c)
{
	char opt[64], why[128];

	if (!c->size)
		return 0;
	if (sim_cache__check(c, why, sizeof(why)))
		return -EINVAL;
	snprintf(opt, sizeof(opt), "--%s=%" PRIu64 ",%d,%d", name, c->size, c->ways, c->line);
	s->argv[s->argc++] = xstrdup(opt);
	return 1;
}

struct sim_run *sim_run__new(char *const *argv, const struct sim_geometry *pin, int keep)
{
	struct cache_level caches[8];
	const struct cache_level *ll = NULL, *l1i = NULL;
	char vg[512], opt[400];
	const char *tmp = getenv("TMPDIR");
	struct sim_run *s;
	int n, argc = 0;

	if (!find_in_path("valgrind", vg, sizeof(vg))) {
		errno = ENOENT;
		return NULL;
	}
	while (argv[argc])
		argc++;
	s = xcalloc(1, sizeof(*s));
	if (strchr(argv[0], '/')) {
		if (!realpath(argv[0], s->program))
			s->program[0] = '\0';
	} else if (!find_in_path(argv[0], s->program, sizeof(s->program))) {
		s->program[0] = '\0';
	}
	snprintf(s->dir, sizeof(s->dir), "%s/memadvise-sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir)) {
		int e = errno;

		rmdir(s->dir);
		free(s);
		errno = e;
		return NULL;
	}
	sim_dir_for_user(s->dir);
	s->argv = xcalloc(argc + 16, sizeof(*s->argv));
	s->argv[s->argc++] = xstrdup(vg);
	s->argv[s->argc++] = xstrdup("--tool=cachegrind");
	s->argv[s->argc++] = xstrdup("--cache-sim=yes");
	s->argv[s->argc++] = xstrdup("--branch-sim=yes");
	s->keep = keep;
	n = sysinfo__caches(caches, 8);
	for (int i = 0; i < n; i++) {
		if (caches[i].level == 1 && !strcmp(caches[i].type, "Instruction"))
			l1i = &caches[i];
		if (strcmp(caches[i].type, "Instruction") && (!ll || caches[i].level > ll->level))
			ll = &caches[i];
	}
	if (pin) {
		int i1 = pinned_opt(s, "I1", &pin->i1), d1 = pinned_opt(s, "D1", &pin->d1);
		int l2 = pinned_opt(s, "LL", &pin->ll);

		if (i1 < 0 || d1 < 0 || l2 < 0) {
			sim_run__free(s);
			errno = EINVAL;
			return NULL;
		}
		if (!i1)
			cache_opt(s, "I1", l1i);
		if (!d1)
			cache_opt(s, "D1", n > 0 ? sysinfo__cache(caches, n, 1) : NULL);
		if (!l2 && ll && ll->level > 1)
			cache_opt(s, "LL", ll);
	} else {
		cache_opt(s, "I1", l1i);
		cache_opt(s, "D1", n > 0 ? sysinfo__cache(caches, n, 1) : NULL);
		if (ll && ll->level > 1)
			cache_opt(s, "LL", ll);
	}
	snprintf(opt, sizeof(opt), "--cachegrind-out-file=%s/cachegrind.out.%%p", s->dir);
	s->argv[s->argc++] = xstrdup(opt);
	snprintf(opt, sizeof(opt), "--log-file=%s/valgrind.log.%%p", s->dir);
	s->argv[s->argc++] = xstrdup(opt);
	for (int i = 0; i < argc; i++)
		s->argv[s->argc++] = xstrdup(argv[i]);
	s->argv[s->argc] = NULL;
	return s;
}

char *const *sim_run__argv(const struct sim_run *s)
{
	return s->argv;
}

const char *sim_run__program(const struct sim_run *s)
{
	return s->program[0] ? s->program : NULL;
}

/* Lines of the valgrind log that say what went wrong (not the banner). */
static void log_reason(const char *path, char *buf, size_t len)
{
	char *text = read_file(path, NULL), *save = NULL;

	buf[0] = '\0';
	if (!text)
		return;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *m = l;

		if (!strncmp(m, "==", 2) || !strncmp(m, "--", 2))
			m = strchr(m + 2, ' ') ? strchr(m + 2, ' ') + 1 : m;
		if (*m && !strstr(m, "Copyright") && !strstr(m, "Using Valgrind") &&
		    !strstr(m, "Cachegrind,") && !strstr(m, "Command:") && !strstr(m, "Parent PID") &&
		    !strstr(m, "warning:") && !strstr(m, " refs:") && !strstr(m, "miss rate")) {
			snprintf(buf, len, "%s", m);
			break;
		}
	}
	free(text);
}

int sim_run__collect(struct sim_run *s, struct report *r)
{
	struct sim_report *all = NULL;
	DIR *d = opendir(s->dir);
	struct dirent *de;
	char path[512], why[200] = "";
	int files = 0, rc = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct sim_report *one;
		bool log = !strncmp(de->d_name, "valgrind.log.", 13);
		int errline;

		if (!log && strncmp(de->d_name, "cachegrind.out.", 15))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name);
		if (!sim_result_file(path)) {
			report__add_provenance(r, "simulation", "%s is not a file valgrind wrote: skipped",
					       de->d_name);
			continue;
		}
		if (log) {
			if (!why[0])
				log_reason(path, why, sizeof(why));
			continue;
		}
		rc = sim__parse_file(path, 0, &one, &errline);
		if (rc) {
			report__add_provenance(r, "simulation", "cannot parse %s line %d",
					       de->d_name, errline);
			continue;
		}
		if (!all) {
			all = one;
		} else {
			/* a forked child of the program: add its counts */
			all->lines = xrealloc(all->lines, (all->nr_lines_total + one->nr_lines_total) *
							       sizeof(*all->lines));
			memcpy(all->lines + all->nr_lines_total, one->lines,
			       one->nr_lines_total * sizeof(*one->lines));
			all->nr_lines = all->nr_lines_total += one->nr_lines_total;
			for (int e = 0; e < SIM_EV__COUNT; e++)
				all->total[e] += one->total[e];
			sim_report__free(one);
		}
		files++;
	}
	closedir(d);
	if (!all) {
		report__add_provenance(r, "simulation", "cachegrind wrote no results%s%s",
				       why[0] ? ": " : "", why);
		return -ENODATA;
	}
	all->nr_lines = all->nr_lines_total;
	merge_lines(all, s->keep ? s->keep : SIM_KEEP_LINES);
	derive(all);
	snprintf(all->note, sizeof(all->note), "%s", s->note);
	if (files > 1)
		report__add_provenance(r, "simulation", "%d processes simulated (forked children "
				       "added); exec'd programs are not followed", files);
	sim_report__free(r->sim);
	r->sim = all;
	return 0;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[512];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

void sim_run__free(struct sim_run *s)
{
	if (!s)
		return;
	remove_dir(s->dir);
	for (int i = 0; i < s->argc; i++)
		free(s->argv[i]);
	free(s->argv);
	free(s);
}
