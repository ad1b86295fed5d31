/* SPDX-License-Identifier: GPL-2.0-only */
/* A small open-addressing hash map: non-zero uint64 key -> uint32 value. */
#ifndef __MA_BASE_U64MAP_H
#define __MA_BASE_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};

uint32_t *u64map__get(struct u64map *m, uint64_t key, bool *added);
uint32_t u64map__find(const struct u64map *m, uint64_t key);
void u64map__free(struct u64map *m);

#endif
