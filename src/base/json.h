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
/* An address or mask as a "0x..." string (JSON numbers lose 64-bit precision). */
struct json_object *json_hex(uint64_t v);

#endif
