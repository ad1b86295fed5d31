/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Code addresses -> function, source file:line and inlined frames, through
 * libdwfl, for the address space described by a procmaps snapshot (the
 * process may be gone).  Handles PIE executables and shared libraries;
 * results are cached by (build-id, module-relative address) so that forked
 * children and repeated addresses cost one lookup.
 */
#ifndef __MA_SYMBOLIZER_H
#define __MA_SYMBOLIZER_H

#include <stdint.h>

#include "procmaps.h"
#include "profile.h"

struct symbolizer;

struct symbolizer *symbolizer__new(void);
void symbolizer__free(struct symbolizer *s);
/*
 * Fills LOC for IP in the address space MAPS (which must outlive S).
 * RETURN_ADDR: IP is a return address (a caller frame); it is looked up at
 * IP - 1 so that the call's line is found.  Returns 0 when the address is in
 * a mapped module (LOC may still lack a line), -ENOENT otherwise.
 */
int symbolizer__resolve(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
			bool return_addr, struct profile_loc *loc);
/* Lookups answered from the build-id cache (for tests). */
uint64_t symbolizer__cache_hits(const struct symbolizer *s);

#endif
