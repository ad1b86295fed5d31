// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/procmaps.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

static enum map_kind path_kind(const char *path)
{
	if (!strcmp(path, "[heap]"))
		return MAPK_HEAP;
	if (!strncmp(path, "[stack", 6))
		return MAPK_STACK;
	if (!path[0])
		return MAPK_ANON;
	return path[0] == '/' ? MAPK_FILE : MAPK_OTHER;
}

static int parse_line(const char *line, struct procmap *pm)
{
	unsigned long long start, end, off, ino;
	char perms[8], dev[32];
	int pos = 0;

	memset(pm, 0, sizeof(*pm));
	if (sscanf(line, "%llx-%llx %7s %llx %31s %llu %n", &start, &end, perms, &off, dev,
		   &ino, &pos) < 6)
		return -EINVAL;
	pm->start = start;
	pm->end = end;
	pm->offset = off;
	pm->inode = ino;
	pm->thp_eligible = -1;
	snprintf(pm->perms, sizeof(pm->perms), "%s", perms);
	if (pos > 0) {
		const char *p = line + pos;
		size_t l;

		while (*p == ' ')
			p++;
		l = strcspn(p, "\n");
		if (l >= sizeof(pm->path))
			l = sizeof(pm->path) - 1;
		memcpy(pm->path, p, l);
		pm->path[l] = '\0';
	}
	pm->kind = path_kind(pm->path);
	return 0;
}

/* smaps: "Key:   N kB" lines and "VmFlags: rd wr ..." after each header line. */
static void parse_smaps_field(const char *line, struct procmap *pm)
{
	unsigned long long v;

	pm->has_smaps = true;
	if (sscanf(line, "Rss: %llu kB", &v) == 1)
		pm->rss = v * 1024;
	else if (sscanf(line, "AnonHugePages: %llu kB", &v) == 1)
		pm->anon_huge = v * 1024;
	else if (sscanf(line, "THPeligible: %llu", &v) == 1)
		pm->thp_eligible = (int)v;
	else if (!strncmp(line, "VmFlags:", 8)) {
		pm->hg = strstr(line, " hg") != NULL;
		pm->nh = strstr(line, " nh") != NULL;
	}
}

static struct procmaps *parse_text(pid_t pid, char *text, size_t len, bool smaps)
{
	struct procmaps *m = xcalloc(1, sizeof(*m));
	int cap = 0;
	char *line, *save = NULL;
	char *copy = xstrdup(text);

	m->pid = pid;
	m->taken_ns = now_ns();
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct procmap pm;

		/* A header line starts with a hex range; smaps field lines with a capital. */
		if (!parse_line(line, &pm) && strchr(line, '-') && line[0] != ' ' &&
		    !(line[0] >= 'A' && line[0] <= 'Z')) {
			if (m->n == cap) {
				cap = cap ? cap * 2 : 64;
				m->v = xrealloc(m->v, cap * sizeof(*m->v));
			}
			m->v[m->n++] = pm;
		} else if (smaps && m->n) {
			parse_smaps_field(line, &m->v[m->n - 1]);
		}
	}
	free(copy);
	if (smaps) {
		/* a plain maps text for libdwfl is made from the entries when needed */
		free(text);
	} else {
		m->text = text;
		m->len = len;
	}
	return m;
}

struct procmaps *procmaps__parse(pid_t pid, const char *text)
{
	return parse_text(pid, xstrdup(text), strlen(text), false);
}

struct procmaps *procmaps__adopt(pid_t pid, char *text, size_t len, struct procmap *v, int n)
{
	struct procmaps *m = xcalloc(1, sizeof(*m));

	m->pid = pid;
	m->taken_ns = now_ns();
	m->text = text;
	m->len = len;
	m->v = v;
	m->n = n;
	for (int i = 0; i < n; i++) {
		v[i].kind = path_kind(v[i].path);
		if (!v[i].has_smaps)
			v[i].thp_eligible = -1;
	}
	return m;
}

static void open_files(struct procmaps *m)
{
	for (int i = 0; i < m->n; i++) {
		const char *path = m->v[i].path;
		bool seen = false;
		int fd;

		if (path[0] != '/')
			continue;
		for (int j = 0; j < m->nr_files && !seen; j++)
			seen = !strcmp(m->files[j].path, path);
		if (seen)
			continue;
		/* map_files works even when the file was deleted or replaced. */
		{
			char mf[96];

			snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
				 (int)m->pid, m->v[i].start, m->v[i].end);
			fd = open(mf, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		m->files = xrealloc(m->files, (m->nr_files + 1) * sizeof(*m->files));
		m->files[m->nr_files].path = xstrdup(path);
		m->files[m->nr_files].fd = fd;
		m->nr_files++;
	}
	if (m->nr_files) {
		m->files_refs = xmalloc(sizeof(*m->files_refs));
		*m->files_refs = 1;
	}
}

/*
 * glibc's malloc puts a chunk header at the start of what it maps: a block
 * over mmap_threshold has prev_size (the front misalignment, 0) and its size
 * with IS_MMAPPED (2) set (a page multiple with prev_size, 128 KiB at
 * least: the smallest mmap_threshold); a thread arena's heap is HEAP_MAX_SIZE (64 MiB)
 * aligned and starts with heap_info { ar_ptr, prev, size, mprotect_size },
 * size being its read-write part.  Anything else is left unknown.
 */
static void classify_anon(pid_t pid, struct procmaps *m)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (int i = 0; i < m->n; i++) {
		struct procmap *pm = &m->v[i];
		uint64_t w[4], size = pm->end - pm->start;

		if (pm->kind != MAPK_ANON || strncmp(pm->perms, "rw", 2))
			continue;
		if (i && m->v[i - 1].end == pm->start && m->v[i - 1].kind == MAPK_FILE &&
		    !strncmp(m->v[i - 1].perms, "rw", 2)) {
			pm->alloc = PM_ALLOC_BSS;
			continue;
		}
		if (fd < 0 || pread(fd, w, sizeof(w), (off_t)pm->start) != (ssize_t)sizeof(w))
			continue;
		/* the kernel may have merged the block with a neighbouring mapping */
		if ((w[1] & 2) && !(w[1] & 4) && w[0] < 4096 && !(((w[1] & ~7ULL) + w[0]) & 4095) &&
		    (w[1] & ~7ULL) >= (128 << 10) && (w[1] & ~7ULL) <= size - w[0])
			pm->alloc = PM_ALLOC_MALLOC_CHUNK;
		else if (!(pm->start & ((64ULL << 20) - 1)) && w[2] == size && w[0])
			pm->alloc = PM_ALLOC_MALLOC_ARENA;
	}
	if (fd >= 0)
		close(fd);
}

struct procmaps *procmaps__capture(pid_t pid, bool with_smaps)
{
	char path[64];
	size_t len;
	char *text;
	struct procmaps *m;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, with_smaps ? "smaps" : "maps");
	text = read_file(path, &len);
	if (!text)
		return NULL;
	if (!len) { /* a zombie: no address space any more */
		free(text);
		errno = ESRCH;
		return NULL;
	}
	m = parse_text(pid, text, len, with_smaps);
	open_files(m);
	if (with_smaps)
		classify_anon(pid, m);
	return m;
}

char *procmaps__format(const struct procmaps *m, size_t *len)
{
	size_t cap = 1, off = 0;
	char *t;

	for (int i = 0; i < m->n; i++)
		cap += 80 + strlen(m->v[i].path);
	t = xmalloc(cap);
	t[0] = '\0';
	for (int i = 0; i < m->n; i++) {
		int w = snprintf(t + off, cap - off, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64
				 " 00:00 %" PRIu64 " %s\n", m->v[i].start, m->v[i].end,
				 m->v[i].perms, m->v[i].offset, m->v[i].inode, m->v[i].path);

		if (w > 0 && (size_t)w < cap - off)
			off += (size_t)w;
	}
	*len = off;
	return t;
}

struct procmaps *procmaps__dup(const struct procmaps *m, pid_t pid)
{
	struct procmaps *d = xcalloc(1, sizeof(*d));

	d->pid = pid;
	d->taken_ns = m->taken_ns;
	d->n = m->n;
	d->v = xmalloc((m->n ? m->n : 1) * sizeof(*d->v));
	memcpy(d->v, m->v, m->n * sizeof(*d->v));
	if (m->text) {
		d->len = m->len;
		d->text = xmalloc(m->len + 1);
		memcpy(d->text, m->text, m->len);
		d->text[m->len] = '\0';
	}
	/*
	 * The files are the same at the fork: shared, not duplicated (a shell
	 * that runs 300 commands forked 300 copies of its 3-5 descriptors).
	 */
	if (m->files_refs) {
		__atomic_add_fetch(m->files_refs, 1, __ATOMIC_RELAXED);
		d->files_refs = m->files_refs;
		d->files = m->files;
		d->nr_files = m->nr_files;
	}
	return d;
}

void procmaps__free(struct procmaps *m)
{
	if (!m)
		return;
	if (m->files_refs && !__atomic_sub_fetch(m->files_refs, 1, __ATOMIC_ACQ_REL)) {
		for (int i = 0; i < m->nr_files; i++) {
			if (m->files[i].fd >= 0)
				close(m->files[i].fd);
			free(m->files[i].path);
		}
		free(m->files);
		free(m->files_refs);
	}
	free(m->v);
	free(m->text);
	free(m);
}

const struct procmap *procmaps__find(const struct procmaps *m, uint64_t addr)
{
	int lo = 0, hi = m ? m->n - 1 : -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (addr < m->v[mid].start)
			hi = mid - 1;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

int procmaps__file_fd(const struct procmaps *m, const char *path)
{
	for (int i = 0; m && i < m->nr_files; i++)
		if (!strcmp(m->files[i].path, path))
			return m->files[i].fd;
	return -1;
}

bool procmaps__same(const struct procmaps *a, const struct procmaps *b)
{
	if (!a || !b || a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (a->v[i].start != b->v[i].start || a->v[i].end != b->v[i].end ||
		    strcmp(a->v[i].path, b->v[i].path))
			return false;
	return true;
}
