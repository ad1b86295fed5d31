// SPDX-License-Identifier: GPL-2.0-only
#include "base/json.h"

#include <inttypes.h>
#include <stdio.h>

#include <json-c/json.h>

struct json_object *json_str(const char *s)
{
	return json_object_new_string(s ? s : "");
}

struct json_object *json_str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

struct json_object *json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

void json_add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

struct json_object *json_hex(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return json_object_new_string(b);
}
