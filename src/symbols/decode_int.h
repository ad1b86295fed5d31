/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The decoder's internals shared by its files (decode.c, decode_origin.c):
 * the one capstone handle, the cached instruction iterator and the register
 * families of the sampled registers.  Not for use outside src/symbols.
 */
#ifndef __MA_SYMBOLS_DECODE_INT_H
#define __MA_SYMBOLS_DECODE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <capstone/capstone.h>

/* The process's x86-64 handle with detail on, 0 when capstone cannot open one. */
csh decode__cs(void);
/* cs_disasm_iter through the decoded-instruction cache (IN's detail filled). */
bool decode__next(csh h, const uint8_t **code, size_t *size, uint64_t *addr, cs_insn *in);
/* The sampled register family (enum as_reg) holding capstone register R, -1 none. */
int decode__reg_family(unsigned int r);
/* Whether family F is caller-saved (a call may change it). */
bool decode__caller_saved(int f);
/* The target of a direct jump, 0 for any other instruction. */
uint64_t decode__jump_target(csh h, const cs_insn *in);
/*
 * How IN changes family REG: 0 not at all, 1 by the constant *DELTA (add,
 * sub, inc, dec, lea REG, [REG + d]), -1 otherwise.
 */
int decode__reg_step(csh h, const cs_insn *in, int reg, int64_t *delta);

#endif
