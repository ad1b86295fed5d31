/* SPDX-License-Identifier: GPL-2.0-only */
/* Internals shared by layout.c, layout_out.c and layout_reorg.c. */
#ifndef __MA_LAYOUT_INT_H
#define __MA_LAYOUT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"

struct arena_blk;

void *arena__alloc(struct arena_blk **a, size_t n);
char *arena__strdup(struct arena_blk **a, const char *s);
char *arena__printf(struct arena_blk **a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena__cat(struct arena_blk **a, const char *s1, const char *s2, const char *s3,
		 const char *s4);
void arena__free(struct arena_blk *a);

/* Recomputes a struct's cache-line facts (and nested-padding counts) for LINE. */
void layout__struct_lines(struct ma_struct *s, uint32_t line);
/* Recomputes holes, padding and every statistic after the members changed. */
void layout__struct_finish(struct ma_struct *s, uint32_t line);
/* Trailing padding of the member's struct type when pahole would report it, else 0. */
int64_t layout__member_struct_padding(const struct ma_member *m);

/* No sane type is this large: a bigger size or offset is damaged DWARF. */
#define LAYOUT_MAX_BYTES (1ULL << 48)

/* *END = OFF + SIZE; -ERANGE when either or the sum is past LAYOUT_MAX_BYTES. */
int layout__span(uint64_t off, uint64_t size, uint64_t *end);
/*
 * The bit offset of a bit field from its byte OFF, the DW_AT_bit_offset BO
 * counted in a storage unit of UBYTES (big endian: from the top), and its
 * width BS; -ERANGE on any overflow or a field outside the unit.
 */
int layout__bitfield_offset(uint64_t off, uint64_t ubytes, uint64_t bo, uint64_t bs,
			    bool big_endian, uint64_t *abs);
/* Multiplies array dimensions; -ERANGE past LAYOUT_MAX_BYTES. */
int layout__mul(uint64_t a, uint64_t b, uint64_t *out);

/*
 * Why PATH gave no DWARF: -ENODATA (no debug sections), -EBADMSG (a
 * truncated or damaged ELF file), -EPROTONOSUPPORT (debug sections
 * compressed in a way this libelf cannot read, e.g. zstd), -EILSEQ (the
 * sections are there but their DWARF is unreadable).
 */
int layout__elf_diagnose(const char *path);

/* Splits a member's declaration into pahole's type and name columns. */
void layout__split_decl(const struct ma_member *m, char *type, size_t tl, char *name, size_t nl);

#endif
