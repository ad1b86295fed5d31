// SPDX-License-Identifier: GPL-2.0-only
/*
 * A 64 MiB buffer from malloc (its own mapping, which the kernel may merge
 * with the anonymous mapping next to it), written once (TOUCH), kept 300 ms,
 * then freed 150 ms before exit: a region gone by the time the program ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	size_t len = 64u << 20;
	char *p = malloc(len);

	if (!p)
		return 1;
	memset(p, 1, len); /* TOUCH */
	usleep(300000);
	printf("%d\n", p[len / 2]);
	free(p);
	usleep(150000);
	return 0;
}
