// SPDX-License-Identifier: GPL-2.0-only
/* Forks and execs ARGV[1..] in the child, waits for it: an exec'd child. */
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int st = 0;
	pid_t c;

	if (argc < 2)
		return 2;
	c = fork();
	if (c == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	waitpid(c, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
