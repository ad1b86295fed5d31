// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include <json-c/json.h>

#include "base/json.h"
#include "harness.h"

void test_json__u64_keeps_64_bits(void)
{
	struct json_object *o = json_object_new_object();

	json_add(o, "big", json_u64(UINT64_MAX));
	json_add(o, "addr", json_hex(0xffffffffff600000ULL));
	json_add(o, "name", json_str(NULL));
	ASSERT_STREQ(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		     "{\"big\":18446744073709551615,\"addr\":\"0xffffffffff600000\",\"name\":\"\"}",
		     "plain JSON");
	json_object_put(o);
}

static void check_clean(const char *in, const char *want, const char *what)
{
	struct json_object *o = json_str(in);

	ASSERT_STREQ(json_object_get_string(o), want, what);
	ASSERT_TRUE(utf8_valid(json_object_get_string(o)), what);
	json_object_put(o);
}

void test_json__str_replaces_invalid_utf8(void)
{
	check_clean("a\xff" "b", "a\xef\xbf\xbd" "b", "lone 0xff");
	check_clean("/tmp/x\xff", "/tmp/x\xef\xbf\xbd", "0xff at the end");
	check_clean("\x80", "\xef\xbf\xbd", "stray continuation byte");
	check_clean("a\xc3", "a\xef\xbf\xbd", "truncated 2-byte at the end");
	check_clean("\xe2\x82" "x", "\xef\xbf\xbd" "x", "truncated 3-byte: one U+FFFD");
	check_clean("\xf0\x9f\x98" "x", "\xef\xbf\xbd" "x", "truncated 4-byte: one U+FFFD");
	check_clean("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "overlong 2-byte '/'");
	check_clean("\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "overlong 3-byte");
	check_clean("\xf0\x80\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		    "overlong 4-byte");
	check_clean("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "surrogate U+D800");
	check_clean("\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		    "above U+10FFFF");
	check_clean("\xf5", "\xef\xbf\xbd", "0xf5");
}

void test_json__str_keeps_valid_utf8(void)
{
	const char *ok = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xed\x9f\xbf \xf4\x8f\xbf\xbf";

	ASSERT_TRUE(utf8_valid(ok), "valid input");
	check_clean(ok, ok, "valid multi-byte unchanged");
	check_clean("", "", "empty");
	ASSERT_FALSE(utf8_valid("\xff"), "0xff is invalid");
	ASSERT_FALSE(utf8_valid("\xed\xbf\xbf"), "surrogate U+DFFF is invalid");
}

void test_json__serialized_is_strict_utf8(void)
{
	struct json_object *o = json_object_new_object();
	const char *s;

	json_add(o, "path", json_str("t\xff\xfe.p"));
	json_add(o, "name", json_str_or_null("f\xc1\x81"));
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ASSERT_TRUE(utf8_valid(s), "serialized JSON is valid UTF-8");
	ASSERT_STREQ(s, "{\"path\":\"t\xef\xbf\xbd\xef\xbf\xbd.p\",\"name\":\"f\xef\xbf\xbd\xef\xbf\xbd\"}",
		     "serialized");
	json_object_put(o);
}
