// SPDX-License-Identifier: GPL-2.0-only
/* Data addresses by global variable and member, from ELF symbols and DWARF. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "symbols/addrsym.h"
#include "symbols/symbolizer.h"
#include "base/util.h"

/* Skips typedefs and qualifiers. */
bool addrsym__peel_type(Dwarf_Die *type)
{
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(type);
		Dwarf_Attribute a;

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_atomic_type &&
		    tag != DW_TAG_restrict_type)
			return true;
		if (!dwarf_attr_integrate(type, DW_AT_type, &a) || !dwarf_formref_die(&a, type))
			return false;
	}
	return false;
}

bool addrsym__die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, type) &&
	       addrsym__peel_type(type);
}

/*
 * Calls FN for each global variable named NAME (the top-level
 * DW_TAG_variable DIEs of every unit, in order) until it returns true.
 */
static bool for_each_global(Dwarf *dw, const char *name,
			    bool (*fn)(Dwarf_Die *var, void *ctx), void *ctx)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				const char *n;

				if (dwarf_tag(&child) != DW_TAG_variable)
					continue;
				n = dwarf_diename(&child);
				if (n && !strcmp(n, name) && fn(&child, ctx))
					return true;
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return false;
}

struct var_pick {
	Dwarf_Die die;
	bool found;
};

/* Stops at the definition; keeps the first typed declaration meanwhile. */
static bool pick_definition(Dwarf_Die *var, void *ctx)
{
	struct var_pick *p = ctx;

	if (!dwarf_hasattr(var, DW_AT_declaration)) {
		p->die = *var;
		p->found = true;
		return true;
	}
	if (!p->found && dwarf_hasattr(var, DW_AT_type)) {
		p->die = *var;
		p->found = true;
	}
	return false;
}

/*
 * The global variable NAME's DIE: its definition (the CU that allocates it),
 * else the first declaration seen (an 'extern' in a header).
 */
static bool var_die(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	struct var_pick p = { .found = false };

	for_each_global(dw, name, pick_definition, &p);
	if (p.found)
		*out = p.die;
	return p.found;
}

/*
 * The declaring file and line of DIE, through its own unit's file table
 * (dwarf_decl_file asserts on units whose table it has not read).
 */
static bool decl_of(Dwarf_Die *die, char *file, size_t len, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;
	const char *f;

	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) ||
	    !dwarf_diecu(die, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &nfiles) ||
	    idx >= nfiles || !(f = dwarf_filesrc(files, idx, NULL, NULL)))
		return false;
	snprintf(file, len, "%s", f);
	if (dwarf_decl_line(die, line))
		*line = 0;
	return true;
}

static bool typed(Dwarf_Die *var, void *type)
{
	return addrsym__die_type(var, type);
}

bool addrsym__var_type(Dwarf *dw, const char *name, Dwarf_Die *type)
{
	return for_each_global(dw, name, typed, type);
}

bool addrsym__member_offset(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return *off = 0, true; /* union members */
	if (dwarf_formudata(&a, &w))
		return false;
	*off = w;
	return true;
}

bool addrsym__find_member(Dwarf_Die *type, const char *name, uint64_t *off, Dwarf_Die *mtype)
{
	Dwarf_Die child;

	if (dwarf_child(type, &child))
		return false;
	do {
		const char *n = dwarf_diename(&child);

		if (dwarf_tag(&child) == DW_TAG_member && n && !strcmp(n, name))
			return addrsym__member_offset(&child, off) && addrsym__die_type(&child, mtype);
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * Whether TYPE is declared in a system header (/usr/include): a library's
 * object (pthread_mutex_t, FILE, sem_t) whose fields the library writes,
 * whichever thread calls it.
 */
static bool system_type(Dwarf_Die *type)
{
	char file[512];
	int line;

	return decl_of(type, file, sizeof(file), &line) && !strncmp(file, "/usr/include/", 13);
}

/*
 * Appends ".member" / "[i]" for byte offset off inside type (nested), down
 * to a library's object: two threads writing the owner and the lock word of
 * one mutex write one object (true sharing), not two.
 */
static void member_path(Dwarf_Die type, uint64_t off, char *buf, size_t len)
{
	for (int depth = 0; depth < 8 && addrsym__peel_type(&type); depth++) {
		int tag = dwarf_tag(&type);
		size_t o = strlen(buf);
		Dwarf_Die child, mt;
		Dwarf_Word sz;
		bool found = false;

		if (tag != DW_TAG_array_type && system_type(&type))
			return;

		if (tag == DW_TAG_array_type) {
			if (!addrsym__die_type(&type, &mt) || dwarf_aggregate_size(&mt, &sz) || !sz)
				return;
			snprintf(buf + o, len - o, "[%" PRIu64 "]", off / sz);
			off %= sz;
			type = mt;
			continue;
		}
		if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		     tag != DW_TAG_class_type) || dwarf_child(&type, &child))
			return;
		do {
			const char *n = dwarf_diename(&child);
			uint64_t moff;

			if (dwarf_tag(&child) != DW_TAG_member || !addrsym__member_offset(&child, &moff) ||
			    !addrsym__die_type(&child, &mt) || dwarf_aggregate_size(&mt, &sz))
				continue;
			if (off >= moff && off < moff + sz) {
				snprintf(buf + o, len - o, ".%s", n ? n : "?");
				off -= moff;
				type = mt;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!found)
			return;
	}
}

struct data_search {
	uint64_t addr;
	Dwfl_Module *found;
};

/* Does a PT_LOAD segment of the module (with its .bss tail) hold the address? */
static int module_holds(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr start,
			void *arg)
{
	struct data_search *ds = arg;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(m, &bias);
	size_t n;

	if (!elf || elf_getphdrnum(elf, &n))
		return DWARF_CB_OK;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ds->addr >= ph.p_vaddr + bias && ds->addr < ph.p_vaddr + bias + ph.p_memsz) {
			ds->found = m;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

int addrsym__data(struct symbolizer *s, const struct procmaps *maps, uint64_t addr, char *buf,
		  size_t len)
{
	return addrsym__data_decl(s, maps, addr, buf, len, NULL, 0, NULL);
}

int addrsym__data_decl(struct symbolizer *s, const struct procmaps *maps, uint64_t addr,
		       char *buf, size_t len, char *file, size_t flen, int *line)
{
	Dwfl *dwfl = symbolizer__dwfl(s, maps);
	Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, addr) : NULL;

	if (dwfl && !m) {
		/* .bss past the file-backed pages is an anonymous mapping */
		struct data_search ds = { .addr = addr };

		dwfl_getmodules(dwfl, module_holds, &ds, 0);
		m = ds.found;
	}
	const char *name;
	GElf_Off off;
	GElf_Sym sym;
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwarf_Die type;

	buf[0] = '\0';
	if (!m)
		return -ENOENT;
	name = symbolizer__addrinfo(m, addr, &off, &sym);
	if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT || off >= sym.st_size)
		return -ENOENT;
	snprintf(buf, len, "%s", name);
	dw = symbolizer__dwarf_wanted(s, m) ? dwfl_module_getdwarf(m, &bias) : NULL;
	if (file && flen) {
		Dwarf_Die var;

		file[0] = '\0';
		if (dw && var_die(dw, name, &var) && !decl_of(&var, file, flen, line))
			file[0] = '\0';
	}
	if (dw && addrsym__var_type(dw, name, &type))
		member_path(type, off, buf, len);
	else if (off)
		snprintf(buf + strlen(buf), len - strlen(buf), "+%" PRIu64, (uint64_t)off);
	return 0;
}
