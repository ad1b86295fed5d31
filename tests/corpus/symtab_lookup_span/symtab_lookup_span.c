// SPDX-License-Identifier: GPL-2.0-only
/*
 * A compiler's symbol table: open addressing over 96-byte entries, 80 K
 * slots (7.5 MiB).  Name resolution probes the table with the identifier's
 * hash and accepts an entry when its hash matches and it is visible at the
 * current scope depth.  With -DBAD scope_depth sits after the inline name
 * and the type information, 72 bytes into the entry, so a probe reads two
 * cache lines for every entry; otherwise it sits beside the hash and a
 * probe reads one line for most entries.
 *
 * Usage: symtab_lookup_span [LOOKUPS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSLOTS (80 * 1024)
#define NSYMS (NSLOTS / 2)

struct symbol {
	uint64_t hash;
#ifndef BAD
	int32_t scope_depth;
	uint32_t kind;
#endif
	char name[40];
	uint64_t type_id;
	uint64_t decl_offset;
	uint32_t size;
	uint32_t align;
#ifdef BAD
	int32_t scope_depth;
	uint32_t kind;
#endif
	uint64_t value;
	uint64_t uses;
};

_Static_assert(sizeof(struct symbol) == 96, "96-byte entries");

static struct symbol *symtab;

static uint64_t name_hash(uint64_t i)
{
	uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;

	return (h ^ (h >> 29)) | 1;
}

static void symtab_insert(uint64_t h, int depth, const char *name)
{
	uint64_t slot = h % NSLOTS;

	while (symtab[slot].hash)
		slot = (slot + 1) % NSLOTS;
	symtab[slot].hash = h;
	symtab[slot].scope_depth = depth;
	snprintf(symtab[slot].name, sizeof(symtab[slot].name), "%s", name);
}

static const struct symbol *symtab_lookup(uint64_t h, int depth)
{
	uint64_t slot = h % NSLOTS;

	for (;;) {
		const struct symbol *s = &symtab[slot];

		if (!s->hash)
			return NULL;
		if (s->hash == h && s->scope_depth <= depth)
			return s;
		slot = (slot + 1) % NSLOTS;
	}
}

int main(int argc, char **argv)
{
	long lookups = argc > 1 ? atol(argv[1]) : 40000000;
	uint64_t rng = 2463534242ull, found = 0, depths = 0;
	char name[32];

	symtab = calloc(NSLOTS, sizeof(*symtab));
	if (!symtab)
		return 1;
	for (uint64_t i = 0; i < NSYMS; i++) {
		snprintf(name, sizeof(name), "sym_%llu", (unsigned long long)i);
		symtab_insert(name_hash(i), (int)(i % 8), name);
	}
	for (long i = 0; i < lookups; i++) {
		const struct symbol *s;

		rng ^= rng << 13;
		rng ^= rng >> 17;
		rng ^= rng << 5;
		s = symtab_lookup(name_hash(rng % (NSYMS + NSYMS / 8)), (int)(rng >> 40 & 7));
		if (s) {
			found++;
			depths += (uint64_t)s->scope_depth;
		}
	}
	printf("checksum %llu\n", (unsigned long long)(found * 31 + depths));
	free(symtab);
	return 0;
}
