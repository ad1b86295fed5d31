// SPDX-License-Identifier: GPL-2.0-only
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols/addrsym.h"
#include "symbols/procmaps.h"
#include "symbols/symbolizer.h"
#include "harness.h"

struct ut_inner {
	short s;
	int v[4];
};

struct ut_global {
	long a;
	struct ut_inner in[2];
	pthread_mutex_t lock;
} ut_global_var;

void test_addrsym__data_names_members(void)
{
	struct procmaps *m = procmaps__capture(getpid(), false);
	struct symbolizer *s = symbolizer__new();
	char buf[96];

	if (!ASSERT_NOT_NULL(m, "symboliser on this process"))
		goto out;
	ASSERT_OK(addrsym__data(s, m, (uintptr_t)&ut_global_var.a, buf, sizeof(buf)), "a");
	ASSERT_STREQ(buf, "ut_global_var.a", "first member");
	ASSERT_OK(addrsym__data(s, m, (uintptr_t)&ut_global_var.in[1].v[2] + 1, buf, sizeof(buf)),
		  "inside an array element");
	ASSERT_STREQ(buf, "ut_global_var.in[1].v[2]", "nested path");
	/* a library's object is one: its owner field is the mutex, not __data.__owner */
	ASSERT_OK(addrsym__data(s, m, (uintptr_t)&ut_global_var.lock.__data.__owner, buf,
				sizeof(buf)), "inside a mutex");
	ASSERT_STREQ(buf, "ut_global_var.lock", "down to the mutex, not into glibc's fields");
	ASSERT_ERR(addrsym__data(s, m, (uintptr_t)buf, buf, sizeof(buf)), "a stack address");
out:
	symbolizer__free(s);
	procmaps__free(m);
}
