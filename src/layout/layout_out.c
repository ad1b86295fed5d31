// SPDX-License-Identifier: GPL-2.0-only
/*
 * Struct layouts as text (pahole's annotations, so pahole users read it at
 * once, plus memadvise's notes) and as JSON (every fact).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "layout/layout.h"
#include "layout/layout_int.h"
#include "base/json.h"

#define COMMENT_COL 57 /* where pahole starts the offset/size comment */

struct pstate {
	FILE *f;
	uint32_t line;
	int64_t cacheline; /* last boundary printed */
	const struct layout_print_opts *o;
};

static int put_tabs(FILE *f, int n)
{
	for (int i = 0; i < n; i++)
		fputc('\t', f);
	return n * 8;
}

/* Type column and name column of a member, the way pahole splits them. */
void layout__split_decl(const struct ma_member *m, char *type, size_t tl, char *name, size_t nl)
{
	const char *d = m->decl ? m->decl : "";
	const char *paren = strstr(d, "(*");
	const char *amp = NULL;
	size_t cut;

	if (!paren)
		paren = strstr(d, "(&");
	/* An empty name (damaged DWARF) matches everywhere: no name then. */
	if (m->name && *m->name && !paren) {
		/* The name follows the type, which may contain the same word
		 * ("struct profile *profile"): take the last match. */
		size_t nlen = strlen(m->name);
		const char *p = d, *hit = NULL;

		while ((p = strstr(p, m->name))) {
			bool start_ok = p == d || p[-1] == ' ' || p[-1] == '*' || p[-1] == '&';
			char e = p[nlen];

			if (start_ok && (e == 0 || e == '[' || e == ':' || e == ' '))
				hit = p;
			p += nlen;
		}
		amp = hit;
	}
	if (paren)
		cut = paren - d;
	else if (amp)
		cut = amp - d;
	else
		cut = strlen(d);
	snprintf(type, tl, "%.*s", (int)cut, d);
	/* trim trailing blanks of the type */
	for (size_t n = strlen(type); n && type[n - 1] == ' '; n--)
		type[n - 1] = 0;
	snprintf(name, nl, "%s", d + cut);
}

static void print_boundary(struct pstate *ps, uint64_t off, int indent)
{
	int64_t cl = off / ps->line;

	if (cl <= ps->cacheline)
		return;
	uint64_t pos = off % ps->line, at = off - pos;

	if (pos == 0)
		fprintf(ps->f, "/* --- cacheline %" PRId64 " boundary (%" PRIu64 " bytes) --- */\n", cl, at);
	else
		fprintf(ps->f,
			"/* --- cacheline %" PRId64 " boundary (%" PRIu64 " bytes) was %" PRIu64
			" bytes ago --- */\n",
			cl, at, pos);
	put_tabs(ps->f, indent);
	ps->cacheline = cl;
}

static void pad_to(FILE *f, int col, int target)
{
	if (col >= target)
		fputc(' ', f);
	else
		fprintf(f, "%*s", target - col, "");
}

static void print_body(struct pstate *ps, const struct ma_struct *s, uint64_t base, int indent,
		       bool top);

static void print_offset_comment(struct pstate *ps, const struct ma_member *m, uint64_t base)
{
	if (m->bit_size)
		fprintf(ps->f, "/* %5" PRIu64 ":%2u %2" PRIu64 " */", base + m->offset, m->bit_offset,
			m->size);
	else
		fprintf(ps->f, "/* %5" PRIu64 " %5" PRIu64 " */", base + m->offset, m->size);
}

/*
 * An array of an unnamed struct or union, or a pointer to one, expanded as
 * pahole does: "struct {" members "} arr[3];".  An array's members are at
 * the first element's offsets; a pointee's are its own (from 0), with no
 * cache-line boundaries, since it lives elsewhere.
 */
static void print_anon_type(struct pstate *ps, const struct ma_member *m, uint64_t base,
			    int indent, int target)
{
	const char *d = m->decl, *b = strstr(d, "{...}"), *rest = b + 5;
	bool pointee = strpbrk(rest, "*&") != NULL;
	struct pstate sub = *ps;
	int col;

	fprintf(ps->f, "%.*s{\n", (int)(b - d), d);
	if (pointee) {
		sub.cacheline = INT64_MAX;
		print_body(&sub, m->anon_type, 0, indent + 1, false);
	} else {
		print_body(ps, m->anon_type, base + m->offset, indent + 1, false);
	}
	put_tabs(ps->f, indent);
	col = indent * 8 + fprintf(ps->f, "}%s;", rest);
	pad_to(ps->f, col, target);
	print_offset_comment(ps, m, base);
}

static void print_member(struct pstate *ps, const struct ma_member *m, uint64_t base, int indent,
			 bool in_union_top)
{
	FILE *f = ps->f;
	int col = indent * 8;
	int tw = 26 - (indent - 1) * 8, nw = in_union_top ? 19 : 21;
	int target = indent * 8 + tw + 1 + nw + 1;
	char type[512], name[512];

	if (tw < 1)
		tw = 1;
	print_boundary(ps, base + m->offset, indent);
	if (m->flags & MA_M_BASE) {
		int n = fprintf(f, "/* %-26s %s; */", m->type_name,
				m->flags & MA_M_VIRTUAL_BASE ? "<virtual ancestor>" : "<ancestor>");

		pad_to(f, col + n, target);
		print_offset_comment(ps, m, base);
		return;
	}
	if ((m->flags & MA_M_ANON) && m->nested) {
		fprintf(f, "%s {\n", m->nested->kind == MA_KIND_UNION ? "union" : "struct");
		print_body(ps, m->nested, base + m->offset, indent + 1, false);
		put_tabs(f, indent);
		col = indent * 8 + fprintf(f, "}%s%s;", m->name ? " " : "", m->name ? m->name : "");
		pad_to(f, col, target);
		print_offset_comment(ps, m, base);
		return;
	}
	if (m->anon_type && m->decl && strstr(m->decl, "{...}")) {
		print_anon_type(ps, m, base, indent, target);
		return;
	}
	layout__split_decl(m, type, sizeof(type), name, sizeof(name));
	col += fprintf(f, "%-*s ", tw, type);
	col += fprintf(f, "%s", name);
	if (m->declared_align)
		col += fprintf(f, " __attribute__((__aligned__(%u)))", m->declared_align);
	col += fprintf(f, ";");
	pad_to(f, col, target);
	print_offset_comment(ps, m, base);
}

static void print_body(struct pstate *ps, const struct ma_struct *s, uint64_t base, int indent,
		       bool top)
{
	FILE *f = ps->f;
	int newline = 0;
	const struct ma_member *last = NULL;
	uint64_t last_size = 0;
	bool union_top = top && s->kind == MA_KIND_UNION;

	if (s->pre_bit_hole) {
		if (!newline++)
			fputc('\n', f);
		put_tabs(f, indent);
		fprintf(f, "/* XXX %u bit%s hole, try to pack */\n", s->pre_bit_hole,
			s->pre_bit_hole != 1 ? "s" : "");
	}
	if (s->pre_hole) {
		if (!newline++)
			fputc('\n', f);
		put_tabs(f, indent);
		fprintf(f, "/* XXX %" PRIu64 " byte%s hole, try to pack */\n", s->pre_hole,
			s->pre_hole != 1 ? "s" : "");
	}
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];

		/* at their place in the complete object, after the members */
		if ((m->flags & MA_M_VIRTUAL_BASE) && s->vbases_placed)
			continue;
		if (last && !(m->flags & MA_M_BASE) && last_size) {
			const char *cmt = NULL;

			if (m->offset < last->offset ||
			    (m->offset == last->offset && !last->bit_size && m->bit_size))
				cmt = "previous";
			else if (m->offset > last->offset && m->offset - last->offset < last_size)
				cmt = "next";
			if (cmt) {
				if (!newline++)
					fputc('\n', f);
				put_tabs(f, indent);
				fprintf(f, "/* Bitfield combined with %s fields */\n", cmt);
			}
		}
		if (newline) {
			fputc('\n', f);
			newline = 0;
		}
		put_tabs(f, indent);
		print_member(ps, m, base, indent, union_top);
		int64_t pad = layout__member_struct_padding(m);

		if (pad > 0) {
			if (!newline++)
				fputc('\n', f);
			fputc('\n', f);
			put_tabs(f, indent);
			fprintf(f, "/* XXX last struct has %" PRId64 " byte%s of padding */", pad,
				pad != 1 ? "s" : "");
		}
		if (m->bit_hole) {
			if (!newline++)
				fputc('\n', f);
			fputc('\n', f);
			put_tabs(f, indent);
			fprintf(f, "/* XXX %u bit%s hole, try to pack */", m->bit_hole,
				m->bit_hole != 1 ? "s" : "");
		}
		if (m->hole > 0) {
			if (!newline++)
				fputc('\n', f);
			fputc('\n', f);
			put_tabs(f, indent);
			fprintf(f, "/* XXX %" PRId64 " byte%s hole, try to pack */", m->hole,
				m->hole != 1 ? "s" : "");
		}
		fputc('\n', f);
		if (m->flags & MA_M_BASE)
			continue;
		if (!last || !last_size || last->offset != m->offset ||
		    (!last->bit_size && m->bit_size))
			last_size = m->size;
		last = m;
	}
}

static void print_notes(const struct ma_struct *s, FILE *f)
{
	if (s->decl_file)
		fprintf(f, "\t/* memadvise: declared at %s:%u */\n", s->decl_file, s->decl_line);
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];

		if (m->flags & MA_M_STRADDLES)
			fprintf(f, "\t/* straddles: '%s' (bytes %" PRIu64 "..%" PRIu64
				   ") spans cachelines %" PRIu64 "-%" PRIu64 " */\n",
				m->name ? m->name : "<anonymous>", m->offset,
				m->offset + (m->size ? m->size - 1 : 0), m->first_line, m->last_line);
	}
	if (s->nr_sync) {
		for (int i = 0; i < s->nr_members; i++) {
			const struct ma_member *m = &s->members[i];
			int others = 0;

			if (!(m->flags & (MA_M_ATOMIC | MA_M_LOCK)))
				continue;
			for (int j = 0; j < s->nr_members; j++)
				if (j != i && s->members[j].first_line <= m->last_line &&
				    s->members[j].last_line >= m->first_line &&
				    (s->members[j].size || s->members[j].bit_size))
					others++;
			fprintf(f, "\t/* %s '%s' (%s) on cacheline %" PRIu64 "%s */\n",
				m->flags & MA_M_LOCK ? "lock" : "atomic",
				m->name ? m->name : "<anonymous>", m->sync_kind ? m->sync_kind : "?",
				m->first_line, others ? " with others: may false-share" : "");
		}
	}
	if (s->array_straddling)
		fprintf(f, "\t/* arrays of it: %u of every %u elements straddle a cacheline */\n",
			s->array_straddling, s->array_period);
}

void ma_struct__print_text(const struct ma_struct *s, uint32_t line,
			   const struct layout_print_opts *o, FILE *f)
{
	static const struct layout_print_opts defaults = { .notes = true };
	struct pstate ps = { .f = f, .line = line ? line : 64, .cacheline = 0, .o = o ? o : &defaults };
	bool first_base = true;

	o = ps.o;
	if (s->anonymous)
		fprintf(f, "typedef %s {", ma_kind__name(s->kind));
	else
		fprintf(f, "%s %s", ma_kind__name(s->kind), s->name);
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];

		if (!(m->flags & MA_M_BASE))
			continue;
		fprintf(f, "%s public %s%s", first_base ? " :" : ",",
			m->flags & MA_M_VIRTUAL_BASE ? "virtual " : "", m->type_name);
		first_base = false;
	}
	if (!s->anonymous)
		fprintf(f, " {");
	fputc('\n', f);
	print_body(&ps, s, 0, 1, true);
	for (int i = 0; i < s->nr_vbases && s->vbases_placed; i++) {
		put_tabs(f, 1);
		print_member(&ps, &s->vbases[i], 0, 1, false);
		fputc('\n', f);
	}
	if (!o->compile) {
		fprintf(f, "\n\t/* size: %" PRIu64 ", cachelines: %" PRIu64 ", members: %d */\n",
			s->size, s->cachelines, s->nr_members);
		if (s->sum_holes || s->sum_bit_holes) {
			if (s->sum_members) {
				fprintf(f, "\t/* sum members: %" PRIu64, s->sum_members);
				if (s->sum_holes)
					fprintf(f, ", holes: %d, sum holes: %" PRIu64, s->nr_holes,
						s->sum_holes);
				fprintf(f, " */\n");
			}
			if (s->sum_bit_members) {
				fprintf(f, "\t/* sum bitfield members: %" PRIu64 " bits", s->sum_bit_members);
				if (s->sum_bit_holes)
					fprintf(f, ", bit holes: %d, sum bit holes: %" PRIu64 " bits",
						s->nr_bit_holes, s->sum_bit_holes);
				else
					fprintf(f, " (%" PRIu64 " bytes)", s->sum_bit_members / 8);
				fprintf(f, " */\n");
			}
		}
		if (s->padding > 0)
			fprintf(f, "\t/* padding: %" PRId64 " */\n", s->padding);
		if (s->nr_vbases && s->vbases_placed)
			fprintf(f, "\t/* virtual bases: %d, bytes %" PRIu64 "..%" PRIu64 ", not padding */\n",
				s->nr_vbases, s->nv_size, s->vbases_end - 1);
		else if (s->nr_vbases && s->nv_size <= s->size)
			fprintf(f, "\t/* virtual bases: %d, with any padding in the %" PRIu64
				   " bytes after the members (placement not known) */\n",
				s->nr_vbases, s->size - s->nv_size);
		else if (s->nr_vbases) /* damaged DWARF: members past the size */
			fprintf(f, "\t/* virtual bases: %d, placement not known: the members end at %" PRIu64
				   ", past the size */\n",
				s->nr_vbases, s->nv_size);
		if (s->nr_paddings)
			fprintf(f, "\t/* paddings: %d, sum paddings: %" PRIu64 " */\n", s->nr_paddings,
				s->sum_paddings);
		if (s->bit_padding)
			fprintf(f, "\t/* bit_padding: %u bits */\n", s->bit_padding);
		if (s->nr_forced_alignments) {
			fprintf(f, "\t/* forced alignments: %d", s->nr_forced_alignments);
			if (s->nr_forced_holes)
				fprintf(f, ", forced holes: %d, sum forced holes: %" PRIu64,
					s->nr_forced_holes, s->sum_forced_holes);
			fprintf(f, " */\n");
		}
		if (s->last_cacheline)
			fprintf(f, "\t/* last cacheline: %" PRIu64 " bytes */\n", s->last_cacheline);
		if (o->notes)
			print_notes(s, f);
	}
	fputc('}', f);
	if (s->anonymous)
		fprintf(f, " %s", s->name);
	if (s->packed)
		fprintf(f, " __attribute__((__packed__))");
	if (s->declared_align)
		fprintf(f, " __attribute__((__aligned__(%u)))", s->declared_align);
	fprintf(f, ";\n");
}

/* ---- JSON --------------------------------------------------------------- */

static struct json_object *member_to_json(const struct ma_member *m)
{
	struct json_object *o = json_object_new_object();

	json_add(o, "name", m->name ? json_str(m->name) : NULL);
	json_add(o, "type", json_str(m->type_name ? m->type_name : "?"));
	json_add(o, "declaration", json_str(m->decl ? m->decl : "?"));
	json_add(o, "offset_bytes", json_u64(m->offset));
	json_add(o, "size_bytes", json_u64(m->size));
	json_add(o, "alignment_bytes", json_u64(m->align));
	if (m->declared_align)
		json_add(o, "declared_alignment_bytes", json_u64(m->declared_align));
	if (m->bit_size) {
		json_add(o, "bit_size", json_u64(m->bit_size));
		json_add(o, "bit_offset", json_u64(m->bit_offset));
	}
	json_add(o, "hole_bytes", json_object_new_int64(m->hole));
	if (m->bit_hole)
		json_add(o, "bit_hole_bits", json_u64(m->bit_hole));
	if (m->nr_dims) {
		struct json_object *d = json_object_new_array();

		for (int i = 0; i < m->nr_dims; i++)
			json_object_array_add(d, json_u64(m->dims[i]));
		json_add(o, "array_dims", d);
	}
	if (m->qualifiers && *m->qualifiers)
		json_add(o, "qualifiers", json_str(m->qualifiers));
	json_add(o, "cacheline_first", json_u64(m->first_line));
	json_add(o, "cacheline_last", json_u64(m->last_line));
	json_add(o, "straddles_cacheline", json_object_new_boolean(!!(m->flags & MA_M_STRADDLES)));
	if (m->flags & MA_M_ATOMIC)
		json_add(o, "atomic", json_object_new_boolean(1));
	if (m->flags & MA_M_LOCK)
		json_add(o, "lock", json_object_new_boolean(1));
	if (m->sync_kind)
		json_add(o, "sync_kind", json_str(m->sync_kind));
	if (m->flags & MA_M_BASE)
		json_add(o, "base_class", json_object_new_boolean(1));
	if (m->flags & MA_M_VIRTUAL_BASE)
		json_add(o, "virtual_base", json_object_new_boolean(1));
	if (m->flags & MA_M_FLEX)
		json_add(o, "flexible_array", json_object_new_boolean(1));
	if (m->flags & MA_M_POINTER)
		json_add(o, "pointer", json_object_new_boolean(1));
	if (m->decl_file) {
		json_add(o, "decl_file", json_str(m->decl_file));
		json_add(o, "decl_line", json_u64(m->decl_line));
	}
	int64_t pad = layout__member_struct_padding(m);

	if (pad > 0)
		json_add(o, "type_padding_bytes", json_object_new_int64(pad));
	/* the unnamed struct/union it is an array of or points to */
	if (m->anon_type)
		json_add(o, "anonymous_type", ma_struct__to_json(m->anon_type));
	if ((m->flags & MA_M_ANON) && m->nested) {
		struct json_object *n = ma_struct__to_json(m->nested);

		json_add(o, "anonymous", json_object_new_boolean(1));
		json_add(o, "nested", n);
	}
	return o;
}

struct json_object *ma_struct__to_json(const struct ma_struct *s)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ms = json_object_new_array();
	struct json_object *fs = json_object_new_array();
	struct json_object *st = json_object_new_array();

	json_add(o, "name", s->name ? json_str(s->name) : NULL);
	json_add(o, "kind", json_str(ma_kind__name(s->kind)));
	if (s->anonymous)
		json_add(o, "anonymous", json_object_new_boolean(1));
	if (s->decl_file) {
		json_add(o, "decl_file", json_str(s->decl_file));
		json_add(o, "decl_line", json_u64(s->decl_line));
	}
	json_add(o, "size_bytes", json_u64(s->size));
	json_add(o, "alignment_bytes", json_u64(s->align));
	if (s->declared_align)
		json_add(o, "declared_alignment_bytes", json_u64(s->declared_align));
	if (s->packed)
		json_add(o, "packed", json_object_new_boolean(1));
	json_add(o, "nr_members", json_object_new_int(s->nr_members));
	json_add(o, "sum_members_bytes", json_u64(s->sum_members));
	json_add(o, "sum_bitfield_members_bits", json_u64(s->sum_bit_members));
	json_add(o, "holes", json_object_new_int(s->nr_holes));
	json_add(o, "sum_holes_bytes", json_u64(s->sum_holes));
	json_add(o, "bit_holes", json_object_new_int(s->nr_bit_holes));
	json_add(o, "sum_bit_holes_bits", json_u64(s->sum_bit_holes));
	json_add(o, "padding_bytes", json_object_new_int64(s->padding));
	json_add(o, "bit_padding_bits", json_u64(s->bit_padding));
	json_add(o, "nested_paddings", json_object_new_int(s->nr_paddings));
	json_add(o, "sum_nested_paddings_bytes", json_u64(s->sum_paddings));
	json_add(o, "forced_alignments", json_object_new_int(s->nr_forced_alignments));
	json_add(o, "cacheline_size_bytes", json_u64(s->cacheline));
	json_add(o, "cachelines", json_u64(s->cachelines));
	json_add(o, "last_cacheline_bytes", json_u64(s->last_cacheline));
	json_add(o, "line_aligned", json_object_new_boolean(s->line_aligned));
	json_add(o, "max_lines_spanned", json_u64(s->max_lines_spanned));
	json_add(o, "array_period_elements", json_u64(s->array_period));
	json_add(o, "array_straddling_elements", json_u64(s->array_straddling));
	json_add(o, "duplicates_merged", json_object_new_int(s->duplicates));
	if (s->nr_vbases) {
		struct json_object *vb = json_object_new_array();

		for (int i = 0; i < s->nr_vbases; i++) {
			struct json_object *b = json_object_new_object();

			json_add(b, "type", json_str(s->vbases[i].type_name));
			if (s->vbases_placed)
				json_add(b, "offset_bytes", json_u64(s->vbases[i].offset));
			json_add(b, "size_bytes", json_u64(s->vbases[i].size));
			json_object_array_add(vb, b);
		}
		json_add(o, "virtual_bases", vb);
		json_add(o, "virtual_bases_placed", json_object_new_boolean(s->vbases_placed));
		json_add(o, "non_virtual_size_bytes", json_u64(s->nv_size));
	}
	for (int i = 0; i < s->nr_members; i++) {
		const struct ma_member *m = &s->members[i];

		json_object_array_add(ms, member_to_json(m));
		if (m->flags & MA_M_STRADDLES && m->name)
			json_object_array_add(st, json_str(m->name));
		if (m->flags & (MA_M_ATOMIC | MA_M_LOCK) && m->name)
			json_object_array_add(fs, json_str(m->name));
	}
	json_add(o, "straddling_members", st);
	json_add(o, "sync_members", fs);
	json_add(o, "sync_shared_lines", json_object_new_int(s->nr_sync_shared_lines));
	json_add(o, "members", ms);
	return o;
}
