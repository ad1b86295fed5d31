// SPDX-License-Identifier: GPL-2.0-only
#include "collect/maprecs.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "base/util.h"

bool maprec__parse(const struct perf_event_header *h, pid_t *pid, struct maprec *r)
{
	const uint8_t *b = (const void *)(h + 1);
	size_t body = h->size - sizeof(*h);
	uint32_t p;
	uint64_t len;

	/* pid tid, addr len pgoff, maj min ino ino_generation, prot flags, filename */
	if (h->type != PERF_RECORD_MMAP2 || h->size < sizeof(*h) || body <= 64 ||
	    (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return false;
	memcpy(&p, b, 4);
	memcpy(&r->start, b + 8, 8);
	memcpy(&len, b + 16, 8);
	memcpy(&r->pgoff, b + 24, 8);
	memcpy(&r->maj, b + 32, 4);
	memcpy(&r->min, b + 36, 4);
	memcpy(&r->ino, b + 40, 8);
	memcpy(&r->prot, b + 56, 4);
	memcpy(&r->flags, b + 60, 4);
	r->end = r->start + len;
	if (!len || r->end < r->start || !memchr(b + 64, '\0', body - 64))
		return false;
	r->path = (char *)(b + 64);
	*pid = (pid_t)p;
	return true;
}

const struct maprec *maprecs__find(const struct maprecs *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < s->v[mid].start)
			hi = mid;
		else if (addr >= s->v[mid].end)
			lo = mid + 1;
		else
			return &s->v[mid];
	}
	return NULL;
}

static void push(struct maprecs *s, const struct maprec *r, char *path)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n] = *r;
	s->v[s->n++].path = path;
}

/*
 * Back in order of start after push() appended one or two entries: an
 * insertion sort, linear on a sorted array (a qsort on every record was most
 * of the cost of following a shell that runs hundreds of commands).
 */
static void sort_by_start(struct maprecs *s)
{
	for (size_t i = 1; i < s->n; i++) {
		struct maprec t = s->v[i];
		size_t j = i;

		for (; j > 0 && s->v[j - 1].start > t.start; j--)
			s->v[j] = s->v[j - 1];
		s->v[j] = t;
	}
}

/*
 * One mapping in, as the kernel's MAP_FIXED and mprotect() do it: the parts
 * of those it overlaps that lie outside it stay (a file's at their own
 * offset).  A loader maps an image's whole extent read-only, then each
 * segment over it; with data mappings recorded, the first read-only pages
 * (the base a symboliser needs) are what stays of that first mapping.
 */
static void add_one(struct maprecs *s, const struct maprec *r)
{
	size_t n = s->n;

	for (size_t i = 0; i < n; i++) {
		struct maprec *o = &s->v[i], right;

		if (o->end <= r->start || r->end <= o->start)
			continue;
		if (o->end > r->end) {
			right = *o;
			right.pgoff += r->end - o->start;
			right.start = r->end;
			push(s, &right, xstrdup(o->path));
			o = &s->v[i]; /* push may move the array */
		}
		if (o->start < r->start)
			o->end = r->start;
		else
			o->start = o->end; /* nothing left: dropped below */
	}
	for (size_t i = n = 0; i < s->n; i++) {
		if (s->v[i].start < s->v[i].end)
			s->v[n++] = s->v[i];
		else
			free(s->v[i].path);
	}
	s->n = n;
	push(s, r, xstrdup(r->path));
	sort_by_start(s);
	s->changed = true;
}

/*
 * An ELF file's loadable segments (page-aligned), read once per file: a
 * program that runs /bin/true 300 times maps the same three images 300
 * times, and opening and parsing each again for every mapping record was
 * the largest part of following those processes.  Keyed by the file's
 * device, inode and path; a file rewritten in place under the same inode
 * between two mappings keeps its old segments here.
 */
#define HEAD_CACHE 64
#define HEAD_SEGS 16

struct elf_loads {
	uint32_t maj, min;
	uint64_t ino;
	char path[256];
	int n;			/* PT_LOAD segments kept; -1: not an ELF file we can read */
	uint64_t vaddr[HEAD_SEGS], off[HEAD_SEGS], off_end[HEAD_SEGS];
};

static struct {
	pthread_mutex_t lock;
	struct elf_loads e[HEAD_CACHE];
	int used, next;
} loads_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void read_loads(const struct maprec *r, size_t page_size, struct elf_loads *l)
{
	uint64_t pm = ~(uint64_t)(page_size - 1);
	struct stat st;
	size_t n = 0;
	Elf *e = NULL;
	int fd;

	l->n = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_ino != r->ino || !(e = elf_begin(fd, ELF_C_READ, NULL)) ||
	    elf_getphdrnum(e, &n))
		n = 0;
	else
		l->n = 0;
	for (size_t i = 0; i < n && l->n < HEAD_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		l->vaddr[l->n] = ph.p_vaddr & pm;
		l->off[l->n] = ph.p_offset & pm;
		l->off_end[l->n++] = ph.p_offset + ph.p_filesz;
	}
	elf_end(e);
	close(fd);
}

/* R's file's segments into *L (a copy: the cache may be reused meanwhile). */
static bool file_loads(const struct maprec *r, size_t page_size, struct elf_loads *l)
{
	bool hit = false;

	pthread_mutex_lock(&loads_cache.lock);
	for (int i = 0; i < loads_cache.used && !hit; i++) {
		const struct elf_loads *c = &loads_cache.e[i];

		if (c->ino == r->ino && c->maj == r->maj && c->min == r->min &&
		    !strcmp(c->path, r->path)) {
			*l = *c;
			hit = true;
		}
	}
	pthread_mutex_unlock(&loads_cache.lock);
	if (hit)
		return l->n > 0;
	read_loads(r, page_size, l);
	l->maj = r->maj;
	l->min = r->min;
	l->ino = r->ino;
	if (snprintf(l->path, sizeof(l->path), "%s", r->path) >= (int)sizeof(l->path))
		return l->n > 0; /* too long a path to key by: not kept */
	pthread_mutex_lock(&loads_cache.lock);
	loads_cache.e[loads_cache.next] = *l;
	loads_cache.next = (loads_cache.next + 1) % HEAD_CACHE;
	if (loads_cache.used < HEAD_CACHE)
		loads_cache.used++;
	pthread_mutex_unlock(&loads_cache.lock);
	return l->n > 0;
}

/*
 * The mapping of an ELF image's first page(s) before its executable segment
 * R: ld.so and the kernel map the first PT_LOAD read-only.  The segment that
 * holds R's file offset gives the load bias.
 */
static bool elf_head(const struct maprec *r, size_t page_size, struct maprec *head)
{
	uint64_t bias = 0, v0 = UINT64_MAX, o0 = 0;
	struct elf_loads l;
	bool found = false;

	if (!r->pgoff || r->path[0] != '/' || !file_loads(r, page_size, &l))
		return false;
	for (int i = 0; i < l.n; i++) {
		if (l.vaddr[i] < v0) {
			v0 = l.vaddr[i];
			o0 = l.off[i];
		}
		if (!found && l.off[i] <= r->pgoff && r->pgoff < l.off_end[i]) {
			bias = r->start - (l.vaddr[i] + (r->pgoff - l.off[i]));
			found = true;
		}
	}
	if (!found || v0 == UINT64_MAX || bias + v0 >= r->start)
		return false;
	*head = *r;
	head->start = bias + v0;
	head->end = r->start;
	head->pgoff = o0;
	head->prot = PROT_READ;
	return true;
}

void maprecs__add(struct maprecs *s, const struct maprec *r, size_t page_size)
{
	struct maprec head;

	bool free_range = true;

	if ((r->prot & PROT_EXEC) && elf_head(r, page_size, &head)) {
		/* only where nothing else is mapped: a guess never displaces a record */
		for (size_t i = 0; i < s->n && free_range; i++)
			free_range = s->v[i].end <= head.start || head.end <= s->v[i].start;
		if (free_range)
			add_one(s, &head);
	}
	add_one(s, r);
}

void maprecs__copy(struct maprecs *dst, const struct maprecs *src)
{
	if (!dst->n) {
		/* a forked child's: SRC is in order and without overlaps already */
		for (size_t i = 0; i < src->n; i++)
			push(dst, &src->v[i], xstrdup(src->v[i].path));
		dst->changed = dst->changed || src->n;
		return;
	}
	for (size_t i = 0; i < src->n; i++)
		add_one(dst, &src->v[i]);
}

bool maprecs__read_page(const struct maprecs *s, uint64_t addr, size_t page_size, uint8_t *buf)
{
	const struct maprec *r = maprecs__find(s, addr);
	struct stat st;
	ssize_t got;
	int fd;

	if (!r || r->path[0] != '/' || addr + page_size > r->end)
		return false;
	fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = fstat(fd, &st) || st.st_ino != r->ino ? -1 :
	      pread(fd, buf, page_size, (off_t)(addr - r->start + r->pgoff));
	close(fd);
	if (got <= 0)
		return false;
	memset(buf + got, 0, page_size - (size_t)got);
	return true;
}

struct procmaps *maprecs__procmaps(struct maprecs *s, pid_t pid)
{
	struct procmap *v;

	s->changed = false;
	if (!s->n)
		return NULL;
	v = xcalloc(s->n, sizeof(*v));
	/* the entries only: their maps text is made if libdwfl ever needs it (procmaps__format) */
	for (size_t i = 0; i < s->n; i++) {
		const struct maprec *r = &s->v[i];
		struct procmap *pm = &v[i];
		const char *path = strcmp(r->path, "//anon") ? r->path : "";
		size_t pl = strlen(path);

		pm->start = r->start;
		pm->end = r->end;
		pm->offset = r->pgoff;
		pm->inode = r->ino;
		pm->perms[0] = r->prot & PROT_READ ? 'r' : '-';
		pm->perms[1] = r->prot & PROT_WRITE ? 'w' : '-';
		pm->perms[2] = r->prot & PROT_EXEC ? 'x' : '-';
		pm->perms[3] = (r->flags & MAP_TYPE) == MAP_SHARED ? 's' : 'p';
		pm->perms[4] = '\0';
		if (pl >= sizeof(pm->path))
			pl = sizeof(pm->path) - 1;
		memcpy(pm->path, path, pl);
		pm->path[pl] = '\0';
	}
	return procmaps__adopt(pid, NULL, 0, v, (int)s->n);
}

void maprecs__clear(struct maprecs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
