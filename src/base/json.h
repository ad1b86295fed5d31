/* SPDX-License-Identifier: GPL-2.0-only */
/* JSON values the outputs build often (json-c). */
#ifndef __MA_BASE_JSON_H
#define __MA_BASE_JSON_H

#include <stdbool.h>
#include <stdint.h>

struct json_object;

/*
 * A string; "" for NULL.  Invalid UTF-8 (stray or truncated sequences,
 * overlong forms, surrogates, code points above U+10FFFF) is replaced by
 * U+FFFD, one per maximal invalid subpart, so the output is always valid.
 */
struct json_object *json_str(const char *s);
/* A string, as json_str(); JSON null for NULL. */
struct json_object *json_str_or_null(const char *s);
/* An unsigned 64-bit number. */
struct json_object *json_u64(uint64_t v);
/* Adds v under key k of object o (json_object_object_add, short for the outputs). */
void json_add(struct json_object *o, const char *k, struct json_object *v);
/* An address or mask as a "0x..." string (JSON numbers lose 64-bit precision). */
struct json_object *json_hex(uint64_t v);

/* Whether s is valid UTF-8. */
bool utf8_valid(const char *s);
/* A copy of s (malloc) with invalid UTF-8 replaced by U+FFFD; NULL on ENOMEM. */
char *utf8_valid_dup(const char *s);

#endif
