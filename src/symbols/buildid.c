// SPDX-License-Identifier: GPL-2.0-only
/* The GNU build id of an ELF file, for check baselines' fingerprints. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "symbols/buildid.h"

int elf__build_id(const char *path, char *buf, size_t len)
{
	const void *id = NULL;
	ssize_t n = 0;
	Elf *elf;
	int fd, err = 0;

	if (len)
		buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		err = -ENOEXEC;
	else if ((n = dwelf_elf_gnu_build_id(elf, &id)) <= 0)
		err = -ENODATA;
	for (ssize_t i = 0; !err && i < n && (size_t)(2 * i + 2) < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
	elf_end(elf);
	close(fd);
	return err;
}
