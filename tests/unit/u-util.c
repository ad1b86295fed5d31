// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdint.h>

#include "harness.h"
#include "base/util.h"

void test_util__parse_u64(void)
{
	uint64_t v;

	ASSERT_OK(parse_u64("42", &v), "decimal");
	ASSERT_EQ(v, 42, "value");
	ASSERT_OK(parse_u64("0x10", &v), "hex");
	ASSERT_EQ(v, 16, "hex value");
	ASSERT_EQ(parse_u64("", &v), -EINVAL, "empty");
	ASSERT_EQ(parse_u64("-1", &v), -EINVAL, "negative");
	ASSERT_EQ(parse_u64("12abc", &v), -EINVAL, "trailing junk");
	ASSERT_EQ(parse_u64("99999999999999999999999", &v), -ERANGE, "overflow");
}

void test_util__parse_int(void)
{
	int v;

	ASSERT_OK(parse_int("1234", 1, 1 << 22, &v), "pid");
	ASSERT_EQ(v, 1234, "value");
	ASSERT_EQ(parse_int("0", 1, 10, &v), -ERANGE, "below min");
	ASSERT_EQ(parse_int("1x", 1, 10, &v), -EINVAL, "junk");
}

void test_util__parse_duration(void)
{
	uint64_t ns;

	ASSERT_OK(parse_duration("2", &ns), "bare seconds");
	ASSERT_EQ(ns, 2000000000ULL, "2 s");
	ASSERT_OK(parse_duration("1.5s", &ns), "1.5s");
	ASSERT_EQ(ns, 1500000000ULL, "1.5 s");
	ASSERT_OK(parse_duration("250ms", &ns), "ms");
	ASSERT_EQ(ns, 250000000ULL, "250 ms");
	ASSERT_OK(parse_duration("1m", &ns), "minute");
	ASSERT_EQ(ns, 60000000000ULL, "60 s");
	ASSERT_EQ(parse_duration("5 parsecs", &ns), -EINVAL, "bad unit");
	ASSERT_EQ(parse_duration("-1", &ns), -EINVAL, "negative");
}

void test_util__parse_size(void)
{
	uint64_t b;

	ASSERT_OK(parse_size("4096", &b), "plain");
	ASSERT_EQ(b, 4096, "4096");
	ASSERT_OK(parse_size("64K", &b), "K");
	ASSERT_EQ(b, 65536, "64K");
	ASSERT_OK(parse_size("2MiB", &b), "MiB");
	ASSERT_EQ(b, 2097152, "2MiB");
	ASSERT_OK(parse_size("1g", &b), "g");
	ASSERT_EQ(b, 1ULL << 30, "1g");
	ASSERT_EQ(parse_size("3Q", &b), -EINVAL, "bad suffix");
}

void test_util__fmt(void)
{
	char buf[32];

	ASSERT_STREQ(fmt_count(999, buf, sizeof(buf)), "999", "small count");
	ASSERT_STREQ(fmt_count(12345, buf, sizeof(buf)), "12.3 K", "K");
	ASSERT_STREQ(fmt_bytes(2097152, buf, sizeof(buf)), "2.0 MiB", "MiB");
}
