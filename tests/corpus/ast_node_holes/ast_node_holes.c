// SPDX-License-Identifier: GPL-2.0-only
/*
 * The constant-folding pass of a small compiler.  The expression trees of a
 * translation unit live in one node array in post order (operands before
 * their operator); the pass walks it again and again, as passes do, and
 * folds every operator whose operands are constants.  With -DBAD the node's
 * members are declared as they were added over time (kind, value, flags,
 * left, line, right, type) and the compiler pads the node to 40 bytes, 19 of
 * them holes and tail padding; otherwise the same members are declared
 * largest first: 24 bytes.
 *
 * Usage: ast_node_holes [PASSES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NNODES (256 * 1024)

enum { K_CONST, K_ADD, K_MUL, K_SUB, K_NEG };

struct node {
#ifdef BAD
	uint8_t kind;
	int64_t value;
	uint8_t flags;
	uint32_t left;
	uint16_t line;
	uint32_t right;
	uint8_t type;
#else
	int64_t value;
	uint32_t left;
	uint32_t right;
	uint16_t line;
	uint8_t kind;
	uint8_t flags;
	uint8_t type;
#endif
};

static struct node *nodes;

static int64_t fold_constants(void)
{
	int64_t acc = 0;

	for (uint32_t i = 0; i < NNODES; i++) {
		struct node *n = &nodes[i];
		int64_t a, b;

		if (n->kind == K_CONST) {
			acc += n->value & 0xff;
			continue;
		}
		a = nodes[n->left].value;
		b = nodes[n->right].value;
		switch (n->kind) {
		case K_ADD: n->value = a + b; break;
		case K_MUL: n->value = (a * b) & 0xffffff; break;
		case K_SUB: n->value = a - b; break;
		default: n->value = -a; break;
		}
		n->flags |= 1;
		acc += n->line + n->type;
	}
	return acc;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 1600;
	uint32_t rng = 12345;
	int64_t acc = 0;

	nodes = malloc(NNODES * sizeof(*nodes));
	if (!nodes)
		return 1;
	/* Leaves and operators alternate; an operator's operands come before it. */
	for (uint32_t i = 0; i < NNODES; i++) {
		rng = rng * 1664525u + 1013904223u;
		if (i < 2 || (rng >> 28) < 7)
			nodes[i] = (struct node){ .kind = K_CONST, .value = rng >> 16, .line = (uint16_t)(i / 8) };
		else
			nodes[i] = (struct node){ .kind = (uint8_t)(K_ADD + (rng >> 8) % 4), .left = i - 1,
						  .right = i - 2 - (rng >> 12) % (i - 1 < 64 ? i - 1 : 64),
						  .line = (uint16_t)(i / 8), .type = 1 };
	}
	for (long p = 0; p < passes; p++)
		acc += fold_constants();
	printf("checksum %lld\n", (long long)acc);
	free(nodes);
	return 0;
}
