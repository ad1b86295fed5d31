// SPDX-License-Identifier: GPL-2.0-only
/*
 * Addresses in a target's [vdso]: the kernel maps one vDSO image into every
 * 64-bit process, and this process's own (getauxval(AT_SYSINFO_EHDR)) is
 * that image; its .dynsym names the functions (__vdso_clock_gettime, ...).
 * The target's mapping must have the image's size, else it is another
 * vDSO (a 32-bit one) and only "[vdso]+0x..." can be said.  Without this,
 * libdwfl has no file for the mapping and blames a neighbouring module.
 */
#include "symbols/vdso.h"

#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

struct vdso_image {
	bool tried;
	Elf *elf;
	size_t size;		/* bytes its mapping spans */
};

static struct vdso_image img;

static void vdso_open(void)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	size_t size = 0, page = (size_t)sysconf(_SC_PAGESIZE);

	img.tried = true;
	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return;
	/* the image ends with its section headers, the last thing in it */
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	img.elf = elf_memory((char *)base, size);
	img.size = (size + page - 1) / page * page;
}

/* A function symbol of the image covering REL: a __vdso_ name over its alias. */
static bool vdso_symbol(uint64_t rel, char *name, size_t len)
{
	Elf_Scn *scn = NULL;
	bool found = false;

	while ((scn = elf_nextscn(img.elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    rel < sym.st_value || rel >= sym.st_value + (sym.st_size ? sym.st_size : 1))
				continue;
			n = elf_strptr(img.elf, sh.sh_link, sym.st_name);
			if (!n)
				continue;
			if (!found || !strncmp(n, "__vdso_", 7)) {
				snprintf(name, len, "%s", n);
				found = true;
			}
		}
	}
	return found;
}

bool vdso__resolve(uint64_t map_start, uint64_t map_end, uint64_t addr, char *name, size_t len)
{
	uint64_t rel = addr - map_start;

	if (!img.tried)
		vdso_open();
	if (img.elf && map_end - map_start == img.size && vdso_symbol(rel, name, len))
		return true;
	snprintf(name, len, "[vdso]+0x%llx", (unsigned long long)rel);
	return false;
}
