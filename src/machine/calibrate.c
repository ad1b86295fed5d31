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

#include "base/sudo.h"
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
	struct sudo_user user;
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
	sudo_user__init(&user);	/* under sudo the workloads run as the invoking user */
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		sudo_user__free(&user);
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
		/* the priority is set as root; the program runs as the sudo user */
		if (sudo_user__drop(&user))
			_exit(126);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	sudo_user__free(&user);
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
