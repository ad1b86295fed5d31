/* SPDX-License-Identifier: GPL-2.0-only */
/* JSON values the outputs build often (json-c). */
#ifndef __MA_BASE_JSON_H
#define __MA_BASE_JSON_H

#include <stdint.h>

struct json_object;

/* A string; "" for NULL. */
struct json_object *json_str(const char *s);
/* A string; JSON null for NULL. */
struct json_object *json_str_or_null(const char *s);
/* An unsigned 64-bit number. */
struct json_object *json_u64(uint64_t v);
/* Adds v under key k of object o (json_object_object_add, short for the outputs). */
void json_add(struct json_object *o, const char *k, struct json_object *v);
/* An address or mask as a "0x..." string (JSON numbers lose 64-bit precision). */
struct json_object *json_hex(uint64_t v);

#endif
