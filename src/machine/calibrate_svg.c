// SPDX-License-Identifier: GPL-2.0-only
/* The charts of 'memadvise calibrate', as standalone SVG files. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "machine/calibrate.h"
#include "machine/calibrate_run.h"
#include "base/sudo.h"
#include "base/log.h"

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

/* A W x H chart on white with its title centred at the top; NULL and errno set. */
static FILE *svg_open(const char *path, double W, double H, const char *title)
{
	struct sudo_user u;
	FILE *f = NULL;
	int fd;

	/* under sudo, written as the invoking user: the directory is theirs */
	sudo_user__init(&u);
	fd = sudo_user__open(&u, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
	sudo_user__free(&u);
	if (fd >= 0 && !(f = fdopen(fd, "w")))
		close(fd);
	else if (fd < 0)
		errno = -fd;

	if (!f)
		return NULL;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H);
	svg_text(f, W / 2, 24, "middle", 16, title);
	return f;
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
	f = svg_open(path, W, H, title);
	if (!f)
		return -errno;
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
	f = svg_open(path, W, H, title);
	if (!f)
		return -errno;
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

void cal__write_latency_svg(const struct cal *c, const char *path)
{
	struct calib_mark marks[3];
	static const char *names[] = { "L1d (sysfs)", "L2 (sysfs)", "L3 (sysfs)" };
	int nm = 0, err;

	if (c->nlat < 2)
		return;
	for (int i = 0; i < 3; i++)
		if (c->mp.level[i].sysfs_size)
			marks[nm++] = (struct calib_mark){ (double)c->mp.level[i].sysfs_size, names[i] };
	err = calib__svg_latency(path, "Random pointer chase, 64-byte elements (Figs 3.10/3.15)",
				 c->lat, c->nlat, marks, nm);
	if (err)
		pr_warn("cannot write '%s': %s", path, strerror(-err));
}
