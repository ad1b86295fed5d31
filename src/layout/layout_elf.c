// SPDX-License-Identifier: GPL-2.0-only
/*
 * Why an ELF file gave no DWARF: libdwfl answers only "no debug info" for a
 * stripped file, a truncated one and one whose debug sections this libelf
 * cannot decompress.  The user's fix differs for each (rebuild with -g,
 * copy the file again, decompress with objcopy), so the section headers are
 * read again here to tell them apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>

#include "layout/layout_int.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

static bool is_debug_name(const char *name)
{
	return name && (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8));
}

/* Compression type of a SHF_COMPRESSED section; 0 when the header is unreadable. */
static unsigned int chdr_type(Elf_Scn *scn)
{
	GElf_Chdr ch;

	if (!gelf_getchdr(scn, &ch))
		return 0;
	return ch.ch_type;
}

static int diagnose(Elf *elf, off_t fsize)
{
	size_t shstrndx, nr_debug = 0;
	bool info = false;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -EBADMSG;
	if (eh.e_shoff && (eh.e_shoff > (uint64_t)fsize ||
			   (uint64_t)eh.e_shnum * eh.e_shentsize > (uint64_t)fsize - eh.e_shoff))
		return -EBADMSG;	/* the section headers are past the end */
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EBADMSG;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return -EBADMSG;
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > (uint64_t)fsize || sh.sh_size > (uint64_t)fsize - sh.sh_offset))
			return -EBADMSG;	/* a section's bytes are past the end */
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!is_debug_name(name) || sh.sh_type == SHT_NOBITS)
			continue;
		nr_debug++;
		if (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"))
			info = true;
		if ((sh.sh_flags & SHF_COMPRESSED) &&
		    chdr_type(scn) != ELFCOMPRESS_ZLIB)
			return -EPROTONOSUPPORT;
	}
	if (!nr_debug || !info)
		return -ENODATA;
	return -EILSEQ;		/* the sections are there; their DWARF is not readable */
}

int layout__elf_diagnose(const char *path)
{
	struct stat st;
	int fd, err;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENODATA;
	if (fstat(fd, &st)) {
		close(fd);
		return -ENODATA;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? diagnose(elf, st.st_size) : -EBADMSG;
	elf_end(elf);
	close(fd);
	return err;
}
