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
