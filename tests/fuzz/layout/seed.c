// SPDX-License-Identifier: GPL-2.0-only
/*
 * A seed for the layout fuzzer (tests/fuzz/layout-fuzz.py): the C struct
 * shapes whose DWARF the layout code reads.  Compiled by several compilers
 * and DWARF versions at fuzz time, then mutated.
 */
#include <stdint.h>
#include <stdatomic.h>

struct fz_flags {
	unsigned int ready : 1;
	unsigned int mode : 3;
	unsigned int : 0;
	signed int level : 5;
	uint64_t wide : 40;
	char tail;
};

union fz_value {
	long l;
	double d;
	char bytes[12];
	struct { short lo, hi; } half;
};

struct fz_node {
	char kind;
	union fz_value v;
	struct {
		int a;
		char b;
	};
	union {
		float f;
		int i;
	};
	struct fz_node *next;
	void (*visit)(struct fz_node *);
};

struct __attribute__((packed)) fz_packed {
	char c;
	int i;
	short s;
};

struct fz_aligned {
	char c;
	int x __attribute__((aligned(64)));
	_Atomic long counter;
	long pad[3];
} __attribute__((aligned(128)));

struct fz_table {
	struct fz_node nodes[4];
	struct fz_packed packed[3][2];
	struct fz_flags flags;
	const volatile char *names[2];
	int n;
	char flex[];
};

typedef struct fz_table fz_table_t;
enum fz_state { FZ_IDLE, FZ_BUSY = 7, FZ_DONE = -1 };

fz_table_t *g_table;
struct fz_aligned g_aligned;
enum fz_state g_state;

static void fz_visit(struct fz_node *n)
{
	n->i++;
}

int main(int argc, char **argv)
{
	struct fz_node n = { .kind = (char)argc, .visit = fz_visit };
	struct fz_flags fl = { .mode = 2, .level = -3 };

	n.visit(&n);
	atomic_fetch_add(&g_aligned.counter, 1);
	g_state = argc > 1 ? FZ_BUSY : FZ_IDLE;
	return n.i + fl.level + (argv[0][0] == 0) + (g_table != 0);
}
