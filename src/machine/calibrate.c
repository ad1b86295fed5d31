// SPDX-License-Identifier: GPL-2.0-only
#include "machine/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

static int is_examples_dir(const char *dir)
{
	char p[PATH_MAX];
	int n = snprintf(p, sizeof(p), "%s/list_walk", dir);

	return n > 0 && (size_t)n < sizeof(p) && access(p, X_OK) == 0;
}

int calib__find_examples(const char *override, char *dir, size_t len)
{
	const char *env = getenv("MEMADVISE_EXAMPLES");
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	ssize_t n;

	if (override) {
		snprintf(dir, len, "%s", override);
		return is_examples_dir(dir) ? 0 : -ENOENT;
	}
	if (env && *env && is_examples_dir(env)) {
		snprintf(dir, len, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(cand, sizeof(cand), "%s/../examples/bin", exe);
			if (is_examples_dir(cand) && realpath(cand, exe)) {
				snprintf(dir, len, "%s", exe);
				return 0;
			}
		}
	}
	snprintf(cand, sizeof(cand), "%s/examples", MA_LIBEXECDIR);
	if (is_examples_dir(cand)) {
		snprintf(dir, len, "%s", cand);
		return 0;
	}
	return -ENOENT;
}

static void parse_line(char *line, struct calib_run *out)
{
	struct calib_rec *r;

	if (!strcmp(line, "calibrate-note: realtime refused")) {
		out->rt_failed = true;
		return;
	}
	if (!strncmp(line, "checksum ", 9)) {
		snprintf(out->checksum, sizeof(out->checksum), "%s", line + 9);
		return;
	}
	if (strncmp(line, "result ", 7))
		return;
	out->recs = xrealloc(out->recs, (out->nr + 1) * sizeof(*out->recs));
	r = &out->recs[out->nr++];
	memset(r, 0, sizeof(*r));
	for (char *save, *tok = strtok_r(line + 7, " \t", &save); tok && r->n < CALIB_MAX_KV;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = 0;
		snprintf(r->key[r->n], sizeof(r->key[0]), "%s", tok);
		snprintf(r->val[r->n], sizeof(r->val[0]), "%s", eq + 1);
		r->n++;
	}
}

int calib__parse(const char *text, struct calib_run *out)
{
	char *copy = xstrdup(text), *save;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		parse_line(line, out);
	free(copy);
	return 0;
}

int calib__run(const char *dir, const char *prog, const char *const *args, unsigned flags,
	       struct calib_run *out)
{
	char path[PATH_MAX], *buf = NULL;
	const char *argv[40];
	size_t len = 0, cap = 0;
	int fds[2], st, argc = 0, err = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, prog) >= sizeof(path))
		return -ENAMETOOLONG;
	argv[argc++] = prog;
	for (int i = 0; args && args[i] && argc < 39; i++)
		argv[argc++] = args[i];
	argv[argc] = NULL;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		if (flags & CALIB_RT) {
			struct sched_param sp = { .sched_priority = 10 };

			if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
				static const char msg[] = "calibrate-note: realtime refused\n";

				if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
					_exit(126);
			}
		}
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 16384;
			buf = xrealloc(buf, cap);
		}
		n = read(fds[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = 0;
			err = -errno;
			break;
		}
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	buf = buf ? buf : xmalloc(1);
	buf[len] = 0;
	calib__parse(buf, out);
	free(buf);
	if (!err && out->status)
		err = out->status == 127 ? -ENOENT : -EIO;
	return err;
}

void calib_run__free(struct calib_run *r)
{
	free(r->recs);
	r->recs = NULL;
	r->nr = 0;
}

const char *calib_rec__get(const struct calib_rec *r, const char *key)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->key[i], key))
			return r->val[i];
	return NULL;
}

double calib_rec__num(const struct calib_rec *r, const char *key)
{
	const char *v = calib_rec__get(r, key);
	char *end;
	double d;

	if (!v)
		return NAN;
	d = strtod(v, &end);
	return end == v ? NAN : d;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double calib__median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int calib__first_above(const struct calib_point *p, int n, int from, double base, double factor)
{
	for (int i = from < 0 ? 0 : from; i < n; i++)
		if (p[i].med > factor * base && (i + 1 == n || p[i + 1].med > factor * base))
			return i;
	return -1;
}

double calib__plateau(const struct calib_point *p, int n, double lo, double hi)
{
	double v[256];
	int k = 0;

	for (int i = 0; i < n && k < 256; i++)
		if (p[i].x > lo && p[i].x <= hi)
			v[k++] = p[i].med;
	return calib__median(v, k);
}

#if defined(__x86_64__)
double calib__clock_ghz(void)
{
	struct sched_param rt = { .sched_priority = 10 }, normal = { 0 };
	int policy = sched_getscheduler(0);
	bool raised = policy == SCHED_OTHER && !sched_setscheduler(0, SCHED_FIFO, &rt);
	double best = 0;

	/* 100 runs of 5e5 adds (about 0.2 ms each): one of them runs undisturbed. */
	for (int r = 0; r < 100; r++) {
		uint64_t x = 1, one = 1, t0 = now_ns(), dt;

		for (int i = 0; i < 5000; i++)
			__asm__ volatile(".rept 100\n\taddq %1, %0\n\t.endr" : "+r"(x) : "r"(one));
		dt = now_ns() - t0;
		if (dt && 5e5 / (double)dt > best)
			best = 5e5 / (double)dt;
	}
	if (raised)
		sched_setscheduler(0, SCHED_OTHER, &normal);
	return best;
}
#else
double calib__clock_ghz(void)
{
	return NAN;
}
#endif

double calib__cpuinfo_ghz(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	double mhz = NAN;

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "cpu MHz", 7) && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz / 1000;
}

/* ---- SVG ---------------------------------------------------------------- */

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">", x, y, anchor,
		size);
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
	fputs("</text>\n", f);
}

static const char *fmt_ws(double b, char *buf, size_t len)
{
	if (b >= 1 << 30)
		snprintf(buf, len, "%gG", b / (1 << 30));
	else if (b >= 1 << 20)
		snprintf(buf, len, "%gM", b / (1 << 20));
	else if (b >= 1 << 10)
		snprintf(buf, len, "%gK", b / (1 << 10));
	else
		snprintf(buf, len, "%g", b);
	return buf;
}

int calib__svg_latency(const char *path, const char *title, const struct calib_point *p, int n,
		       const struct calib_mark *marks, int nmarks)
{
	const double W = 760, H = 460, L = 70, R = 20, T = 40, B = 60;
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	char buf[64];
	FILE *f;

	if (n < 2)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		xmin = fmin(xmin, p[i].x);
		xmax = fmax(xmax, p[i].x);
		ymin = fmin(ymin, p[i].min > 0 ? p[i].min : p[i].med);
		ymax = fmax(ymax, p[i].max > 0 ? p[i].max : p[i].med);
	}
	double lx0 = log2(xmin), lx1 = log2(xmax);
	double ly0 = floor(log10(ymin)), ly1 = ceil(log10(ymax));
	if (ly1 <= ly0)
		ly1 = ly0 + 1;
#define SX(v) (L + (log2(v) - lx0) / (lx1 - lx0) * (W - L - R))
#define SY(v) (H - B - (log10(v) - ly0) / (ly1 - ly0) * (H - T - B))
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H);
	svg_text(f, W / 2, 24, "middle", 16, title);
	/* Axes and grid. */
	fprintf(f, "<g stroke=\"#ccc\" stroke-width=\"1\">\n");
	for (double e = ly0; e <= ly1; e++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, SY(pow(10, e)),
			W - R, SY(pow(10, e)));
	for (double e = ceil(lx0); e <= lx1; e += 2)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", SX(pow(2, e)), T,
			SX(pow(2, e)), H - B);
	fprintf(f, "</g>\n");
	for (double e = ly0; e <= ly1; e++) {
		snprintf(buf, sizeof(buf), "%g", pow(10, e));
		svg_text(f, L - 6, SY(pow(10, e)) + 4, "end", 11, buf);
	}
	for (double e = ceil(lx0); e <= lx1; e += 2)
		svg_text(f, SX(pow(2, e)), H - B + 16, "middle", 11, fmt_ws(pow(2, e), buf, sizeof(buf)));
	svg_text(f, (L + W - R) / 2, H - 18, "middle", 12, "working set (bytes, log scale)");
	fprintf(f, "<text x=\"16\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
		   "transform=\"rotate(-90 16 %.1f)\">ns per access (log scale)</text>\n",
		(T + H - B) / 2, (T + H - B) / 2);
	/* Marks: sysfs cache sizes. */
	for (int i = 0; i < nmarks; i++) {
		if (marks[i].x < xmin || marks[i].x > xmax)
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c33\" "
			   "stroke-dasharray=\"5,4\"/>\n",
			SX(marks[i].x), T, SX(marks[i].x), H - B);
		svg_text(f, SX(marks[i].x) + 3, T + 14 + 14 * (i % 2), "start", 11, marks[i].label);
	}
	/* Spread as a band, median as a line with points. */
	fprintf(f, "<polygon fill=\"#9bd\" fill-opacity=\"0.4\" points=\"");
	for (int i = 0; i < n; i++)
		fprintf(f, "%.1f,%.1f ", SX(p[i].x), SY(p[i].max > 0 ? p[i].max : p[i].med));
	for (int i = n - 1; i >= 0; i--)
		fprintf(f, "%.1f,%.1f ", SX(p[i].x), SY(p[i].min > 0 ? p[i].min : p[i].med));
	fprintf(f, "\"/>\n<polyline fill=\"none\" stroke=\"#136\" stroke-width=\"2\" points=\"");
	for (int i = 0; i < n; i++)
		fprintf(f, "%.1f,%.1f ", SX(p[i].x), SY(p[i].med));
	fprintf(f, "\"/>\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#136\"><title>%s: %.2f ns"
			   "</title></circle>\n",
			SX(p[i].x), SY(p[i].med), fmt_ws(p[i].x, buf, sizeof(buf)), p[i].med);
	fprintf(f, "</svg>\n");
#undef SX
#undef SY
	return fclose(f) ? -errno : 0;
}

int calib__svg_bars(const char *path, const char *title, const char *const *labels,
		    const double *paper, const double *here, int n, const char *unit)
{
	const double W = 640, H = 400, L = 60, R = 20, T = 60, B = 50;
	double ymax = 0, gw = (W - L - R) / (n > 0 ? n : 1), bw = gw * 0.35;
	char buf[64];
	FILE *f;

	for (int i = 0; i < n; i++) {
		if (!isnan(paper[i]))
			ymax = fmax(ymax, paper[i]);
		if (!isnan(here[i]))
			ymax = fmax(ymax, here[i]);
	}
	if (ymax <= 0)
		return -EINVAL;
	ymax *= 1.1;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H);
	svg_text(f, W / 2, 24, "middle", 16, title);
	fprintf(f, "<rect x=\"%.0f\" y=\"34\" width=\"12\" height=\"12\" fill=\"#aaa\"/>\n", L);
	svg_text(f, L + 16, 45, "start", 12, "paper");
	fprintf(f, "<rect x=\"%.0f\" y=\"34\" width=\"12\" height=\"12\" fill=\"#2a6\"/>\n", L + 70);
	svg_text(f, L + 86, 45, "start", 12, "this machine");
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", L,
		H - B, W - R, H - B);
	for (int i = 0; i < n; i++) {
		double x = L + gw * i + gw * 0.15;
		const double *v[2] = { &paper[i], &here[i] };
		const char *fill[2] = { "#aaa", "#2a6" };

		for (int k = 0; k < 2; k++) {
			double h;

			if (isnan(*v[k]))
				continue;
			h = *v[k] / ymax * (H - T - B);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
				x + k * bw, H - B - h, bw - 2, h, fill[k]);
			snprintf(buf, sizeof(buf), "%.1f%s", *v[k], unit);
			svg_text(f, x + k * bw + bw / 2, H - B - h - 4, "middle", 10, buf);
		}
		svg_text(f, L + gw * i + gw / 2, H - B + 18, "middle", 12, labels[i]);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -errno : 0;
}
