// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fixture of the layout budgets of 'memadvise check': struct conn is 56
 * bytes, one cache line; built with -DGROW it gains a member and spans two.
 * Its hot members id and state share the first line either way; lock and
 * stats are kept apart only with -DGROW.
 */
struct conn {
	long id;
	int state;
	int lock;
	char name[32];
#ifdef GROW
	char peer[16];
#endif
	long stats;
};

struct conn conns[4];

int main(void)
{
	return conns[0].state;
}
