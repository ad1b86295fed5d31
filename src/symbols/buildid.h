/* SPDX-License-Identifier: GPL-2.0-only */
/* The GNU build id of an ELF file (NT_GNU_BUILD_ID). */
#ifndef __MA_BUILDID_H
#define __MA_BUILDID_H

#include <stddef.h>

/* The build id of PATH in hex into BUF.  0, -ENODATA without one, or -errno. */
int elf__build_id(const char *path, char *buf, size_t len);

#endif
