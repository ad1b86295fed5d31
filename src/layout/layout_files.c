// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file names of a unit's line table, for DW_AT_decl_file.
 *
 * elfutils 0.188 has no call that reads only the file table:
 * dwarf_getsrcfiles() and dwarf_next_lines() decode and sort the whole line
 * program (sqlite3's 250k-line amalgamation: 30 ms of a 35 ms 'layout FILE
 * TYPE').  Here only the table in the program's header is read, with the
 * same names libdw gives (directory + "/" + name unless the name is
 * absolute; DWARF < 5 starts at "???" for index 0 and takes directory 0 from
 * DW_AT_comp_dir).  Any form or layout not handled here returns -ENOTSUP and
 * the caller asks libdw, so an unusual file costs time, never a wrong name.
 */
#include <errno.h>
#include <string.h>

#include <gelf.h>

#include "layout/layout_dwarf.h"
#include "base/util.h"

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	int sh = 0;

	while (r->p < r->end) {
		unsigned char b = *r->p++;

		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static uint64_t rd_fixed(struct rd *r, int n)
{
	uint64_t v = 0;

	if (r->end - r->p < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (int i = 0; i < n; i++) /* little endian only; the caller checks */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static const char *rd_str(struct rd *r)
{
	const unsigned char *z = memchr(r->p, 0, r->end - r->p);
	const char *s = (const char *)r->p;

	if (!z) {
		r->bad = true;
		r->p = r->end;
		return NULL;
	}
	r->p = z + 1;
	return s;
}

static Elf_Data *section_data(Dwarf *dbg, const char *name)
{
	Elf *elf = dwarf_getelf(dbg);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		/* libdw decompressed it when it opened the file */
		if (sh.sh_flags & SHF_COMPRESSED)
			return NULL;
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

static const char *sec_str(Elf_Data *d, uint64_t off)
{
	if (!d || !d->d_buf || off >= d->d_size || !memchr((char *)d->d_buf + off, 0, d->d_size - off))
		return NULL;
	return (const char *)d->d_buf + off;
}

/* The string sections v5 entries point into, looked up once per table. */
struct strsecs {
	Elf_Data *line_str, *str;
};

/* One attribute of a v5 directory or file entry: a string or a number. */
static int rd_form(struct rd *r, uint64_t form, const struct strsecs *ss, const char **s,
		   uint64_t *v)
{
	*s = NULL;
	*v = 0;
	switch (form) {
	case DW_FORM_string: *s = rd_str(r); break;
	case DW_FORM_line_strp: *s = sec_str(ss->line_str, rd_fixed(r, 4)); break;
	case DW_FORM_strp: *s = sec_str(ss->str, rd_fixed(r, 4)); break;
	case DW_FORM_udata: *v = rd_uleb(r); break;
	case DW_FORM_data1: *v = rd_fixed(r, 1); break;
	case DW_FORM_data2: *v = rd_fixed(r, 2); break;
	case DW_FORM_data4: *v = rd_fixed(r, 4); break;
	case DW_FORM_data8: *v = rd_fixed(r, 8); break;
	case DW_FORM_data16: r->p = r->end - r->p >= 16 ? r->p + 16 : (r->bad = true, r->end); break;
	case DW_FORM_block: {
		uint64_t n = rd_uleb(r);

		r->p = (uint64_t)(r->end - r->p) >= n ? r->p + n : (r->bad = true, r->end);
		break;
	}
	default:
		return -ENOTSUP; /* strx (needs the unit's offsets table), DWARF64, ... */
	}
	return r->bad ? -EINVAL : 0;
}

struct fmt {
	int n;
	uint64_t type[8], form[8];
};

static int rd_formats(struct rd *r, struct fmt *f)
{
	f->n = (int)rd_fixed(r, 1);
	if (f->n > 8)
		return -ENOTSUP;
	for (int i = 0; i < f->n; i++) {
		f->type[i] = rd_uleb(r);
		f->form[i] = rd_uleb(r);
	}
	return r->bad ? -EINVAL : 0;
}

/* Reads N v5 entries into names[] (path, directory index). */
static int rd_entries(struct rd *r, const struct fmt *f, uint64_t n, const struct strsecs *ss,
		      const char **names, uint64_t *dirs)
{
	for (uint64_t i = 0; i < n; i++) {
		names[i] = NULL;
		dirs[i] = 0;
		for (int k = 0; k < f->n; k++) {
			const char *s;
			uint64_t v;
			int err = rd_form(r, f->form[k], ss, &s, &v);

			if (err)
				return err;
			if (f->type[k] == DW_LNCT_path)
				names[i] = s;
			else if (f->type[k] == DW_LNCT_directory_index)
				dirs[i] = v;
		}
		if (!names[i])
			return -ENOTSUP;
	}
	return 0;
}

static const char *join(struct layout *l, const char *dir, const char *name)
{
	if (name[0] == '/' || !dir)
		return name;
	return arena__cat(&l->arena, dir, "/", name, NULL);
}

/* The v5 tables after the standard opcode lengths. */
static int rd_v5(struct layout *l, struct rd *r, Dwarf *dbg, struct unit_files *uf)
{
	struct fmt df, ff;
	uint64_t nd, nf, *ddirs, *fdirs;
	const char **dnames, **fnames;
	struct strsecs ss = {
		.line_str = section_data(dbg, ".debug_line_str"),
		.str = section_data(dbg, ".debug_str"),
	};
	int err;

	if ((err = rd_formats(r, &df)))
		return err;
	nd = rd_uleb(r);
	if (r->bad || nd > (uint64_t)(r->end - r->p))
		return -EINVAL;
	dnames = arena__alloc(&l->arena, sizeof(*dnames) * (nd + 1));
	ddirs = arena__alloc(&l->arena, sizeof(*ddirs) * (nd + 1));
	if ((err = rd_entries(r, &df, nd, &ss, dnames, ddirs)) || (err = rd_formats(r, &ff)))
		return err;
	nf = rd_uleb(r);
	if (r->bad || nf > (uint64_t)(r->end - r->p))
		return -EINVAL;
	fnames = arena__alloc(&l->arena, sizeof(*fnames) * (nf + 1));
	fdirs = arena__alloc(&l->arena, sizeof(*fdirs) * (nf + 1));
	if ((err = rd_entries(r, &ff, nf, &ss, fnames, fdirs)))
		return err;
	uf->names = arena__alloc(&l->arena, sizeof(*uf->names) * (nf + 1));
	for (uint64_t i = 0; i < nf; i++)
		uf->names[i] = join(l, fdirs[i] < nd ? dnames[fdirs[i]] : NULL, fnames[i]);
	uf->n = nf;
	return 0;
}

/* DWARF 2-4: directory strings, then (name, dir, mtime, length) entries. */
static int rd_v4(struct layout *l, struct rd *r, const char *comp_dir, struct unit_files *uf)
{
	const char *dirs[1024];
	size_t nd = 1, nf = 1, cap = 64;
	const char *s;

	dirs[0] = comp_dir;
	while ((s = rd_str(r)) && *s) {
		if (nd == ARRAY_SIZE(dirs))
			return -ENOTSUP;
		dirs[nd++] = s;
	}
	if (!s)
		return -EINVAL;
	uf->names = arena__alloc(&l->arena, sizeof(*uf->names) * cap);
	uf->names[0] = "???";
	while ((s = rd_str(r)) && *s) {
		uint64_t d = rd_uleb(r);

		rd_uleb(r); /* mtime */
		rd_uleb(r); /* length */
		if (r->bad)
			return -EINVAL;
		if (nf == cap) {
			const char **nn = arena__alloc(&l->arena, sizeof(*nn) * cap * 2);

			memcpy(nn, uf->names, sizeof(*nn) * cap);
			uf->names = nn;
			cap *= 2;
		}
		uf->names[nf++] = join(l, d < nd ? dirs[d] : NULL, s);
	}
	if (!s)
		return -EINVAL;
	uf->n = nf;
	return 0;
}

int unit_files__read(struct layout *l, Dwarf_Die *cudie, struct unit_files *uf)
{
	Dwarf *dbg = dwarf_cu_getdwarf(cudie->cu);
	Dwarf_Attribute a;
	Dwarf_Word off;
	Elf_Data *d;
	struct rd r;
	uint64_t len, hlen;
	unsigned int ver, opbase;
	const char *comp_dir = NULL;
	uint8_t ut = 0;

	uf->n = 0;
	uf->names = NULL;
	if (l->big_endian || dwarf_cu_info(cudie->cu, NULL, &ut, NULL, NULL, NULL, NULL, NULL) ||
	    ut != DW_UT_compile)
		return -ENOTSUP;
	if (!dwarf_attr(cudie, DW_AT_stmt_list, &a) || dwarf_formudata(&a, &off))
		return -ENOENT;
	if (dwarf_attr(cudie, DW_AT_comp_dir, &a))
		comp_dir = dwarf_formstring(&a);
	d = section_data(dbg, ".debug_line");
	if (!d || !d->d_buf || off >= d->d_size)
		return -ENOTSUP;
	r.p = (const unsigned char *)d->d_buf + off;
	r.end = (const unsigned char *)d->d_buf + d->d_size;
	r.bad = false;
	len = rd_fixed(&r, 4);
	if (len >= 0xfffffff0 || len > (uint64_t)(r.end - r.p))
		return -ENOTSUP; /* DWARF64 or damaged */
	r.end = r.p + len;
	ver = rd_fixed(&r, 2);
	if (ver < 2 || ver > 5)
		return -ENOTSUP;
	if (ver >= 5)
		r.p += 2; /* address and segment selector sizes */
	hlen = rd_fixed(&r, 4);
	if (r.bad || hlen > (uint64_t)(r.end - r.p))
		return -EINVAL;
	r.end = r.p + hlen;
	r.p += ver >= 4 ? 5 : 4; /* min insn, [max ops], default_is_stmt, line_base, line_range */
	opbase = rd_fixed(&r, 1);
	if (r.bad || !opbase || opbase - 1 > (unsigned int)(r.end - r.p))
		return -EINVAL;
	r.p += opbase - 1;
	return ver >= 5 ? rd_v5(l, &r, dbg, uf) : rd_v4(l, &r, comp_dir, uf);
}
