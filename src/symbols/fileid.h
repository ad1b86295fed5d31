/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A mapped file's build-id and the file address of a mapped address, read
 * once per file and kept across processes: what a symbol cache is keyed by,
 * without a libdwfl session for every process that maps the file.
 */
#ifndef __MA_SYMBOLS_FILEID_H
#define __MA_SYMBOLS_FILEID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/procmaps.h"

#define FILEID_MAX 20

/*
 * ADDR (inside mapping PM of snapshot M) as an address in its ELF file
 * (*FILE_ADDR, what libdwfl calls the module-relative address after its load
 * bias), and the file's GNU build-id (*ID_LEN bytes of ID).  False when the
 * file cannot be read this way (no build-id, not ELF, gone, replaced, or
 * distrusted): the caller then asks libdwfl.
 */
bool fileid__file_addr(const struct procmaps *m, const struct procmap *pm, uint64_t addr,
		       unsigned char id[FILEID_MAX], int *id_len, uint64_t *file_addr);
/*
 * Up to MAX bytes of code at ADDR, read from the file (to the end of its
 * executable section): how many, or -ENOENT (not code of a file read this
 * way: the caller asks libdwfl).
 */
int fileid__code(const struct procmaps *m, const struct procmap *pm, uint64_t addr, uint8_t *buf,
		 size_t max);
/* PM's file gave another answer than libdwfl: not used this way again. */
void fileid__distrust(const struct procmap *pm);

#endif
