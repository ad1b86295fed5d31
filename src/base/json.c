// SPDX-License-Identifier: GPL-2.0-only
#include "base/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

/*
 * Length of the valid UTF-8 sequence at s (1 to 4), or 0 if the bytes at s
 * do not start one: a stray continuation byte, 0xc0, 0xc1, 0xf5..0xff, a
 * truncated sequence, an overlong form, a surrogate (U+D800..U+DFFF) or a
 * code point above U+10FFFF.  *bad gets the length of the maximal invalid
 * subpart (at least 1), as Unicode recommends for replacing it.
 */
static size_t utf8_seq(const unsigned char *s, size_t *bad)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (c == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (c == 0xf0)
		lo = 0x90;		/* overlong */
	else if (c == 0xf4)
		hi = 0x8f;		/* above U+10FFFF */
	for (i = 1; i < n; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		*bad = i + 1;
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

char *utf8_valid_dup(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), o = 0, n, bad;
	char *r;

	/* Each invalid byte becomes at most 3 bytes (U+FFFD). */
	r = malloc(len * 3 + 1);
	if (!r)
		return NULL;
	while (*p) {
		n = utf8_seq(p, &bad);
		if (n) {
			memcpy(r + o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(r + o, "\xef\xbf\xbd", 3);
			o += 3;
			p += bad;
		}
	}
	r[o] = '\0';
	return r;
}

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n, bad;

	while (*p) {
		n = utf8_seq(p, &bad);
		if (!n)
			return false;
		p += n;
	}
	return true;
}

/*
 * Every string that goes into JSON passes here: paths, DWARF names and
 * symbols are bytes, and a strict parser rejects invalid UTF-8, so each
 * invalid sequence is replaced by U+FFFD.
 */
struct json_object *json_str(const char *s)
{
	struct json_object *o;
	char *v;

	if (!s)
		s = "";
	if (utf8_valid(s))
		return json_object_new_string(s);
	v = utf8_valid_dup(s);
	if (!v)
		return NULL;
	o = json_object_new_string(v);
	free(v);
	return o;
}

struct json_object *json_str_or_null(const char *s)
{
	return s ? json_str(s) : NULL;
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
