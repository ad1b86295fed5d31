// SPDX-License-Identifier: GPL-2.0-only
/* Watchpoint placement: symbols and DWARF members; cache-line grouping. */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "collect/watch.h"

static const char *fixture(void)
{
	return test__build_fixture("watch_globals.c", "watch_globals", "-g -O0 -fPIE -pie");
}

void test_watch__resolve_member(void)
{
	const char *exe = fixture();
	struct watch_spec s[WATCH_MAX], base[1];
	char err[200] = "";
	int n;

	if (!ASSERT_NOT_NULL(exe, "fixture built"))
		return;
	ASSERT_EQ(watch__resolve(exe, "plain_counter", base, 1, err, sizeof(err)), 1, "plain int");
	ASSERT_EQ(base[0].len, 4, "an int is watched as 4 bytes");
	ASSERT_TRUE(base[0].link_time, "PIE: address relative to the load base");
	n = watch__resolve(exe, "stats.in.i", s, WATCH_MAX, err, sizeof(err));
	if (!ASSERT_EQ(n, 1, err))
		return;
	ASSERT_EQ(s[0].member_off, 16, "nested member offset");
	ASSERT_EQ(s[0].len, 4, "int member");
	ASSERT_STREQ(s[0].name, "stats.in.i", "name");
	n = watch__resolve(exe, "stats.hits:rw", base, 1, err, sizeof(err));
	ASSERT_EQ(n, 1, "hits");
	ASSERT_TRUE(base[0].rw, ":rw");
	ASSERT_EQ(s[0].addr - base[0].addr, 16, "member address = symbol + offset");
	n = watch__resolve(exe, "stats.big", s, WATCH_MAX, err, sizeof(err));
	ASSERT_EQ(n, 1, "array member");
	ASSERT_EQ(s[0].member_size, 32, "declared size");
	ASSERT_EQ(s[0].len, 8, "watched: the first 8 bytes");
}

void test_watch__resolve_whole_struct(void)
{
	const char *exe = fixture();
	struct watch_spec s[WATCH_MAX];
	char err[200] = "";
	int n;

	if (!ASSERT_NOT_NULL(exe, "fixture built"))
		return;
	n = watch__resolve(exe, "stats", s, WATCH_MAX, err, sizeof(err));
	if (!ASSERT_EQ(n, 4, "one spec per member"))
		return;
	ASSERT_STREQ(s[0].name, "stats.hits", "first member");
	ASSERT_STREQ(s[1].name, "stats.flag", "second member");
	ASSERT_EQ(s[1].len, 1, "char");
	ASSERT_EQ(s[2].member_off, 12, "struct member offset");
	ASSERT_EQ(s[2].len, 4, "8-byte member at offset 12: 4 bytes aligned");
	ASSERT_EQ(watch__resolve(exe, "stats", s, 2, err, sizeof(err)), 2, "at most max");
}

void test_watch__resolve_errors(void)
{
	const char *exe = fixture();
	struct watch_spec s[1];
	char err[200] = "";

	if (!ASSERT_NOT_NULL(exe, "fixture built"))
		return;
	ASSERT_EQ(watch__resolve(exe, "no_such_var", s, 1, err, sizeof(err)), -ENOENT, "unknown");
	ASSERT_TRUE(strstr(err, "no global variable 'no_such_var'") != NULL, err);
	ASSERT_EQ(watch__resolve(exe, "stats.nope", s, 1, err, sizeof(err)), -ENOENT, "member");
	ASSERT_TRUE(strstr(err, "no member 'nope'") != NULL, err);
	ASSERT_EQ(watch__resolve(exe, "stats..hits", s, 1, err, sizeof(err)), -EINVAL, "syntax");
	ASSERT_EQ(watch__resolve(exe, "stats:x", s, 1, err, sizeof(err)), -EINVAL, "access");
	ASSERT_EQ(watch__resolve(exe, "0x1003/4", s, 1, err, sizeof(err)), -EINVAL, "unaligned");
	ASSERT_EQ(watch__resolve(exe, "0x1000/2:rw", s, 1, err, sizeof(err)), 1, "raw address");
	ASSERT_FALSE(s[0].link_time, "a raw address is a run-time address");
	ASSERT_EQ(s[0].len, 2, "length");
}

void test_watch__lines(void)
{
	struct watch_report w = { .nr = 3 };

	/* a and b in one line, written by different threads; c alone, two threads */
	w.pts[0].spec.addr = 0x1040; w.pts[0].armed = true;
	w.pts[0].nr_threads = 1; w.pts[0].threads[0].tid = 10;
	w.pts[1].spec.addr = 0x1048; w.pts[1].armed = true;
	w.pts[1].nr_threads = 1; w.pts[1].threads[0].tid = 11;
	w.pts[2].spec.addr = 0x2000; w.pts[2].armed = true;
	w.pts[2].nr_threads = 2; w.pts[2].threads[0].tid = 10; w.pts[2].threads[1].tid = 11;
	watch_report__lines(&w, 64);
	if (!ASSERT_EQ(w.nr_lines, 2, "two lines"))
		return;
	ASSERT_EQ(w.lines[0].nr_points, 2, "a and b share a line");
	ASSERT_TRUE(w.lines[0].false_sharing, "different threads, different members");
	ASSERT_FALSE(w.lines[0].true_sharing, "no member written by two threads");
	ASSERT_EQ(w.lines[0].writer_threads, 2, "two writers");
	ASSERT_FALSE(w.lines[1].false_sharing, "one member only");
	ASSERT_TRUE(w.lines[1].true_sharing, "one member, two threads");
	/* the same thread writing both members is not false sharing */
	w.pts[1].threads[0].tid = 10;
	watch_report__lines(&w, 64);
	ASSERT_FALSE(w.lines[0].false_sharing, "one thread");
}
