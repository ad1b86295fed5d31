// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "base/u64map.h"
#include "base/util.h"

static size_t u64map__slot(const struct u64map *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	size_t i = (h ^ (h >> 29)) & (m->cap - 1);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void u64map__grow(struct u64map *m)
{
	struct u64map old = *m;

	m->cap = old.cap ? old.cap * 2 : 1024;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i]) {
			size_t s = u64map__slot(m, old.keys[i]);

			m->keys[s] = old.keys[i];
			m->vals[s] = old.vals[i];
		}
	free(old.keys);
	free(old.vals);
}

/* Returns the value slot; *added is true when the key is new (value 0). */
uint32_t *u64map__get(struct u64map *m, uint64_t key, bool *added)
{
	size_t s;

	if ((m->n + 1) * 4 >= m->cap * 3)
		u64map__grow(m);
	s = u64map__slot(m, key);
	*added = !m->keys[s];
	if (*added) {
		m->keys[s] = key;
		m->n++;
	}
	return &m->vals[s];
}

uint32_t u64map__find(const struct u64map *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	size_t s = u64map__slot(m, key);

	return m->keys[s] ? m->vals[s] : 0;
}

void u64map__free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
