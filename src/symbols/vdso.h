/* SPDX-License-Identifier: GPL-2.0-only */
/* Names of code in a target's vDSO, from the kernel's image (symbols/vdso.c). */
#ifndef __MA_SYMBOLS_VDSO_H
#define __MA_SYMBOLS_VDSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The function at ADDR in a [vdso] mapping MAP_START..MAP_END into NAME:
 * true when the image names it, else "[vdso]+0xOFF" and false.
 */
bool vdso__resolve(uint64_t map_start, uint64_t map_end, uint64_t addr, char *name, size_t len);

#endif
