// SPDX-License-Identifier: GPL-2.0-only
/*
 * Runs the unit tests, each in a forked child so a crash fails one test only.
 * Prints 'ok|FAIL|SKIP unit/NAME' lines; 'unit-tests -l' lists, a name or
 * prefix argument selects.
 */
#include "harness.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#include "unit-decls.h"

static int failed;
static char skip_reason[256];
static int result_fd = -1;

void test__fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failed = 1;
}

void test__skip(const char *why)
{
	snprintf(skip_reason, sizeof(skip_reason), "%s", why);
}

const char *test__fixture_dir(void)
{
	static char dir[512];
	const char *env = getenv("MA_FIXTURES");

	if (dir[0])
		return dir;
	if (env && *env) {
		snprintf(dir, sizeof(dir), "%s", env);
		mkdir(dir, 0755);
	} else {
		snprintf(dir, sizeof(dir), "%s/ma-fixtures-XXXXXX", getenv("TMPDIR") ?: "/tmp");
		if (!mkdtemp(dir))
			return NULL;
	}
	return dir;
}

const char *test__build_fixture(const char *src, const char *out, const char *flags)
{
	static char path[8][768];
	static int slot;
	char cmd[2048];
	const char *dir = test__fixture_dir();
	const char *top = getenv("MA_TOP") ?: ".";
	const char *cc = strstr(src, ".cc") || strstr(src, ".cpp") ? "g++" : "gcc";
	char *p = path[slot++ % 8];

	if (!dir)
		return NULL;
	snprintf(p, 768, "%s/%s", dir, out);
	snprintf(cmd, sizeof(cmd), "%s %s -o '%s' '%s/tests/unit/fixtures/%s' 2>&1", cc,
		 flags, p, top, src);
	if (system(cmd) != 0) {
		fprintf(stderr, "    fixture build failed: %s\n", cmd);
		return NULL;
	}
	return p;
}

static int run_one(const struct unit_test *t)
{
	int pfd[2], status;
	char buf[300] = "";
	pid_t pid;
	ssize_t n;

	if (pipe(pfd))
		return 1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		result_fd = pfd[1];
		t->fn();
		if (skip_reason[0] && !failed)
			dprintf(result_fd, "S%s", skip_reason);
		else
			dprintf(result_fd, "%c", failed ? 'F' : 'P');
		fflush(NULL);
		_exit(0);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFSIGNALED(status))
			printf("FAIL unit/%s: killed by signal %d\n", t->name, WTERMSIG(status));
		else
			printf("FAIL unit/%s: test process exited %d without a verdict\n", t->name,
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return 1;
	}
	buf[n] = 0;
	if (buf[0] == 'P')
		printf("ok   unit/%s\n", t->name);
	else if (buf[0] == 'S')
		printf("SKIP unit/%s: %s\n", t->name, buf + 1);
	else
		printf("FAIL unit/%s\n", t->name);
	fflush(stdout);
	return buf[0] == 'F';
}

int main(int argc, char **argv)
{
	int fails = 0;

	for (size_t i = 0; i < sizeof(unit_tests) / sizeof(unit_tests[0]); i++) {
		const struct unit_test *t = &unit_tests[i];

		if (argc > 1 && !strcmp(argv[1], "-l")) {
			puts(t->name);
			continue;
		}
		if (argc > 1 && strncmp(t->name, argv[1], strlen(argv[1])))
			continue;
		fails += run_one(t);
	}
	return fails ? 1 : 0;
}
