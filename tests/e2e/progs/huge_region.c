// SPDX-License-Identifier: GPL-2.0-only
/*
 * A 2 MiB-aligned anonymous region of MIB mebibytes, advised MODE, touched
 * once per 4 KiB page.  MODE: hugepage | nohugepage | collapse (no THP at
 * fault time, then MADV_COLLAPSE after touching and waiting WAIT_MS).
 * Usage: huge_region MODE [MIB [WAIT_MS]]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "hugepage";
	size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 64, len = mib << 20, huge = 2 << 20;
	char *raw, *p;

	/* over-allocate and trim, so that the region starts and ends on 2 MiB */
	raw = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return 1;
	p = (char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
	if (p > raw)
		munmap(raw, p - raw);
	munmap(p + len, raw + len + huge - (p + len));
	if (!strcmp(mode, "hugepage"))
		madvise(p, len, MADV_HUGEPAGE);
	else
		madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	if (!strcmp(mode, "collapse")) {
		long ms = argc > 3 ? atol(argv[3]) : 0;
		struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };

		nanosleep(&ts, NULL);
		madvise(p, len, MADV_HUGEPAGE);
		/* EAGAIN is a transient failure the kernel may return: say which */
		if (madvise(p, len, MADV_COLLAPSE))
			printf("collapse failed: %s\n", strerror(errno));
		else
			printf("collapse done\n");
	}
	printf("region %p-%p\n", (void *)p, (void *)(p + len));
	return 0;
}
