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

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

#include "model/site.h"
#include "symbols/procmaps.h"
#include "model/sampling.h"

struct symbolizer;

struct symbolizer *symbolizer__new(void);
void symbolizer__free(struct symbolizer *s);
/*
 * How much to resolve: source lines and inlined frames need the module's
 * DWARF, which can take 100 ms to decompress for a big library (libc's
 * debug info): ask for them where the address carries weight.
 */
enum sym_detail {
	SYM_FUNCTION,		/* function (symbol table) only */
	SYM_LINES,		/* function, file:line, inlined frames; system libraries
				 * (/lib, /usr/lib) only when their DWARF is loaded */
	SYM_LINES_IF_LOADED,	/* lines when the module's DWARF is already loaded */
	SYM_LINES_ALWAYS,	/* lines wherever there is DWARF */
};

/*
 * Fills LOC for IP in the address space MAPS (which must outlive S).
 * RETURN_ADDR: IP is a return address (a caller frame); it is looked up at
 * IP - 1 so that the call's line is found.  Returns 0 when the address is in
 * a mapped module (LOC may still lack a line), -ENOENT otherwise.
 */
int symbolizer__resolve(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
			bool return_addr, enum sym_detail detail, struct sampling_loc *loc);
/* A demangled C++ name, simplified to "ns::Class::method" (see symbolizer.c). */
void symbolizer__simplify_cxx(const char *demangled, char *out, size_t len);
/* NAME as the report prints it: a C++ (_Z) name demangled and simplified. */
void symbolizer__name(char *out, size_t len, const char *name);
int symbolizer__site(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
		     bool lines, struct sym_site *site);
/* The libdwfl session for MAPS (for lookups of data addresses), or NULL. */
Dwfl *symbolizer__dwfl(struct symbolizer *s, const struct procmaps *maps);
/* Drops what was built for MAPS: call before freeing a snapshot S has seen. */
void symbolizer__forget(struct symbolizer *s, const struct procmaps *maps);
/*
 * The instruction before IP in its function (decoded from the function's
 * start in the module's file).  A timer or non-precise counter interrupt
 * is taken after the instruction that stalled retires, so the sampled IP is
 * usually the next one: charging the previous one puts samples on the line
 * that did the work (docs/platform.md, item 6).  0 or -errno (-ENOENT at a
 * function's first instruction or when IP is not an instruction boundary).
 */
int symbolizer__prev_insn(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
			  uint64_t *prev);
/*
 * The same from code bytes at hand: CODE holds the bytes from CODE_ADDR up to
 * IP, decoded from FUNC_START (inside them) on; PREV is the instruction that
 * ends exactly at IP.  -ENOENT when FUNC_START is not in [CODE_ADDR, IP) or IP
 * is not an instruction boundary from there, -ENOTSUP without a decoder.
 */
int symbolizer__prev_insn_in(const uint8_t *code, uint64_t code_addr, uint64_t func_start,
			     uint64_t ip, uint64_t *prev);
/*
 * The same with CODE_LEN bytes at hand, which may go past IP (to the
 * function's end): they are decoded and kept, so that the next IP of the
 * function is answered without decoding again.
 */
int symbolizer__prev_insn_span(const uint8_t *code, uint64_t code_addr, size_t code_len,
			       uint64_t func_start, uint64_t ip, uint64_t *prev);
/*
 * Up to MAX bytes of code at IP, from the file of the module mapping it (as
 * far as its executable section goes).  The count, or -ENOENT.
 */
int symbolizer__code(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
		     uint8_t *buf, size_t max);
/* Lookups answered from the build-id cache (for tests). */
uint64_t symbolizer__cache_hits(const struct symbolizer *s);
/*
 * Dwfl_Callbacks.find_debuginfo: local debug files (build-id, debuglink);
 * debuginfod servers only when DEBUGINFOD_URLS names some.
 */
int symbolizer__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			       Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			       GElf_Word debuglink_crc, char **debuginfo_file_name);
/*
 * Whether to load MOD's DWARF for a detail: not for a system library (its
 * DWARF, from a -dbg package, takes 10-100 ms to decompress) unless this
 * symbolizer loaded it already.
 */
bool symbolizer__dwarf_wanted(struct symbolizer *s, Dwfl_Module *mod);
/* dwfl_module_addrinfo() by binary search in an index kept per build-id. */
const char *symbolizer__addrinfo(Dwfl_Module *mod, uint64_t addr, GElf_Off *off, GElf_Sym *sym);

#endif
