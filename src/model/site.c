// SPDX-License-Identifier: GPL-2.0-only
#include "model/site.h"

const char *map_kind__name(enum map_kind k)
{
	static const char *const names[MAPK__COUNT] = {
		[MAPK_HEAP] = "heap", [MAPK_STACK] = "stack", [MAPK_ANON] = "anon",
		[MAPK_FILE] = "file", [MAPK_OTHER] = "other",
	};

	return k < MAPK__COUNT ? names[k] : "?";
}
