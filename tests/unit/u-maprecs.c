// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mapping records (PERF_RECORD_MMAP2) as a memory map: parsing, the
 * kernel's replacement of overlapped mappings, the ELF image's first
 * read-only pages put back from its program headers (this test's own
 * executable), and the code read back from the file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "harness.h"
#include "collect/maprecs.h"

/* A MMAP2 record as the kernel writes it (no sample_id_all trailer). */
static size_t mmap2_record(uint8_t *buf, uint32_t pid, uint64_t addr, uint64_t len,
			   uint64_t pgoff, uint64_t ino, uint32_t prot, const char *path)
{
	struct perf_event_header *h = (void *)buf;
	uint8_t *b = buf + sizeof(*h);
	size_t plen = (strlen(path) + 8) & ~(size_t)7;
	uint32_t maj = 8, min = 1, flags = MAP_PRIVATE;
	uint64_t gen = 0;

	memset(buf, 0, sizeof(*h) + 64 + plen);
	memcpy(b, &pid, 4);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &addr, 8);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &pgoff, 8);
	memcpy(b + 32, &maj, 4);
	memcpy(b + 36, &min, 4);
	memcpy(b + 40, &ino, 8);
	memcpy(b + 48, &gen, 8);
	memcpy(b + 56, &prot, 4);
	memcpy(b + 60, &flags, 4);
	strcpy((char *)b + 64, path);
	h->type = PERF_RECORD_MMAP2;
	h->size = (uint16_t)(sizeof(*h) + 64 + plen);
	return h->size;
}

void test_maprecs__parse(void)
{
	uint8_t buf[512];
	struct maprec r;
	pid_t pid = 0;

	mmap2_record(buf, 4242, 0x555500001000, 0x3000, 0x1000, 77, PROT_READ | PROT_EXEC,
		     "/usr/bin/prog");
	ASSERT_TRUE(maprec__parse((void *)buf, &pid, &r), "a MMAP2 record parses");
	ASSERT_EQ(pid, 4242, "its pid");
	ASSERT_EQ(r.start, 0x555500001000ULL, "its start");
	ASSERT_EQ(r.end, 0x555500004000ULL, "its end");
	ASSERT_EQ(r.pgoff, 0x1000, "its file offset");
	ASSERT_EQ(r.ino, 77, "its inode");
	ASSERT_STREQ(r.path, "/usr/bin/prog", "its file");
	((struct perf_event_header *)buf)->type = PERF_RECORD_COMM;
	ASSERT_TRUE(!maprec__parse((void *)buf, &pid, &r), "another record does not");
	((struct perf_event_header *)buf)->type = PERF_RECORD_MMAP2;
	((struct perf_event_header *)buf)->size = sizeof(struct perf_event_header) + 40;
	ASSERT_TRUE(!maprec__parse((void *)buf, &pid, &r), "a short record does not");
}

void test_maprecs__overlap(void)
{
	struct maprecs s = { 0 };
	struct maprec a = { .start = 0x10000, .end = 0x20000, .prot = PROT_READ | PROT_EXEC,
			    .path = "[anon:a]" };
	struct maprec b = { .start = 0x30000, .end = 0x40000, .prot = PROT_READ | PROT_EXEC,
			    .path = "[anon:b]" };
	struct maprec c = { .start = 0x18000, .end = 0x34000, .prot = PROT_READ | PROT_EXEC,
			    .path = "[anon:c]" };

	maprecs__add(&s, &b, 4096);
	maprecs__add(&s, &a, 4096);
	ASSERT_EQ(s.n, 2, "two mappings");
	ASSERT_EQ(s.v[0].start, 0x10000, "kept sorted by start");
	if (!ASSERT_NOT_NULL(maprecs__find(&s, 0x1ffff), "found by address"))
		return;
	ASSERT_STREQ(maprecs__find(&s, 0x1ffff)->path, "[anon:a]", "the one holding it");
	ASSERT_TRUE(!maprecs__find(&s, 0x20000), "the end is not in it");
	maprecs__add(&s, &c, 4096);
	if (!ASSERT_EQ(s.n, 3, "a mapping over two parts of each: three"))
		return;
	ASSERT_STREQ(maprecs__find(&s, 0x18000)->path, "[anon:c]", "the new one holds it");
	ASSERT_STREQ(maprecs__find(&s, 0x33fff)->path, "[anon:c]", "up to its end");
	ASSERT_EQ(maprecs__find(&s, 0x10000)->end, 0x18000, "the left part of a stays");
	ASSERT_EQ(maprecs__find(&s, 0x34000)->start, 0x34000, "the right part of b stays");
	ASSERT_EQ(s.v[0].start, 0x10000, "still sorted");
	maprecs__clear(&s);
}

/*
 * A loader's pattern: the image's whole extent read-only, then each segment
 * over it.  What stays of the first mapping keeps its file offsets.
 */
void test_maprecs__split(void)
{
	struct maprecs s = { 0 };
	struct maprec whole = { .start = 0x100000, .end = 0x105000, .pgoff = 0, .ino = 7,
				.prot = PROT_READ, .path = "/x/prog" };
	struct maprec text = { .start = 0x101000, .end = 0x102000, .pgoff = 0x1000, .ino = 7,
			       .prot = PROT_READ | PROT_EXEC, .path = "/x/prog" };
	struct maprec inner = { .start = 0x103000, .end = 0x104000, .pgoff = 0x2000, .ino = 7,
				.prot = PROT_READ | PROT_WRITE, .path = "/x/prog" };
	const struct maprec *r;

	maprecs__add(&s, &whole, 4096);
	maprecs__add(&s, &text, 4096);
	maprecs__add(&s, &inner, 4096);
	if (!ASSERT_EQ(s.n, 5, "head, text, middle, data, tail"))
		goto out;
	r = maprecs__find(&s, 0x100000);
	ASSERT_TRUE(r && r->end == 0x101000 && r->pgoff == 0 && r->prot == PROT_READ,
		    "the head stays, at offset 0");
	r = maprecs__find(&s, 0x102000);
	ASSERT_TRUE(r && r->end == 0x103000 && r->pgoff == 0x2000, "the middle at its own offset");
	r = maprecs__find(&s, 0x104000);
	ASSERT_TRUE(r && r->end == 0x105000 && r->pgoff == 0x4000, "the tail at its own offset");
	r = maprecs__find(&s, 0x103000);
	ASSERT_TRUE(r && (r->prot & PROT_WRITE), "the newest where they overlap");
out:
	maprecs__clear(&s);
}

void test_maprecs__elf_head(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct maprecs s = { 0 };
	struct procmaps *m;
	const struct maprec *r;
	uint8_t page[4096], mem[4096];
	uint64_t text = 0, start, end, off, ino;
	char path[4096], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4600];

	if (!ASSERT_TRUE(n > 0 && f, "the test's own executable and maps"))
		return;
	exe[n] = '\0';
	/* this executable's text segment, as the kernel mapped it */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %" SCNu64 " %4095s",
			   &start, &end, perms, &off, &ino, path) == 6 &&
		    !strcmp(path, exe) && strchr(perms, 'x')) {
			struct maprec t = { .start = start, .end = end, .pgoff = off, .ino = ino,
					    .prot = PROT_READ | PROT_EXEC, .path = path };

			maprecs__add(&s, &t, 4096);
			text = start;
			break;
		}
	fclose(f);
	if (!ASSERT_TRUE(text != 0, "the text segment is in /proc/self/maps") ||
	    !ASSERT_EQ(s.n, 2, "the text and the image's first pages"))
		return;
	r = &s.v[0];
	ASSERT_EQ(r->pgoff, 0, "the first pages map the file from offset 0");
	ASSERT_EQ(r->end, text, "and end where the text begins");
	ASSERT_TRUE(!(r->prot & PROT_EXEC), "read-only");
	{
		/* the same file in another process, elsewhere: its segments come from the cache */
		struct maprec t = s.v[1];
		struct maprecs s2 = { 0 };

		t.start += 0x10000000;
		t.end += 0x10000000;
		maprecs__add(&s2, &t, 4096);
		ASSERT_EQ(s2.n, 2, "again the text and the first pages");
		ASSERT_EQ(s2.n == 2 ? s2.v[0].start : 0, r->start + 0x10000000,
			  "at the other load address");
		maprecs__clear(&s2);
	}
	/* the image's first bytes are its ELF header, in memory and in the file */
	ASSERT_TRUE(maprecs__read_page(&s, r->start, sizeof(page), page), "read from the file");
	memcpy(mem, (void *)(uintptr_t)r->start, sizeof(mem));
	ASSERT_TRUE(!memcmp(page, mem, sizeof(page)), "the file's bytes are the memory's");
	ASSERT_TRUE(maprecs__read_page(&s, text, sizeof(page), page), "the text page too");
	memcpy(mem, (void *)(uintptr_t)text, sizeof(mem));
	ASSERT_TRUE(!memcmp(page, mem, sizeof(page)), "the text's bytes are the memory's");
	ASSERT_TRUE(!maprecs__read_page(&s, r->start - 4096, sizeof(page), page),
		    "nothing before the image");
	m = maprecs__procmaps(&s, getpid());
	if (!ASSERT_TRUE(m && m->n == 2 && procmaps__find(m, text), "a memory map of both"))
		return;
	ASSERT_TRUE(!s.changed, "taken");
	ASSERT_EQ(procmaps__find(m, text)->offset, off, "the text at its file offset");
	ASSERT_STREQ(procmaps__find(m, text)->path, exe, "in this executable");
	procmaps__free(m);
	maprecs__clear(&s);
}

/*
 * Records in any order, overlapping each other, against a page-by-page model
 * of the kernel's replacement: the set stays in order, without overlaps, and
 * says for every page which record mapped it last.  A forked child's copy is
 * the same set.
 */
void test_maprecs__random_against_pages(void)
{
	enum { PAGES = 256, ROUNDS = 400 };
	static char names[ROUNDS][24];
	int owner[PAGES];
	struct maprecs s = { 0 }, child = { 0 };
	unsigned int seed = 12345;

	for (int i = 0; i < PAGES; i++)
		owner[i] = -1;
	for (int k = 0; k < ROUNDS; k++) {
		int at = (int)(rand_r(&seed) % PAGES), len = 1 + (int)(rand_r(&seed) % 24);
		struct maprec r = { .prot = PROT_READ | PROT_WRITE, .path = names[k] };

		if (at + len > PAGES)
			len = PAGES - at;
		snprintf(names[k], sizeof(names[k]), "[anon:%d]", k);
		r.start = 0x100000 + (uint64_t)at * 4096;
		r.end = r.start + (uint64_t)len * 4096;
		maprecs__add(&s, &r, 4096);
		for (int p = at; p < at + len; p++)
			owner[p] = k;
	}
	for (size_t i = 1; i < s.n; i++)
		ASSERT_TRUE(s.v[i - 1].end <= s.v[i].start, "in order, without overlaps");
	for (int p = 0; p < PAGES; p++) {
		const struct maprec *r = maprecs__find(&s, 0x100000 + (uint64_t)p * 4096 + 100);
		char want[24];

		if (owner[p] < 0) {
			ASSERT_TRUE(!r, "a page never mapped is not found");
			continue;
		}
		snprintf(want, sizeof(want), "[anon:%d]", owner[p]);
		ASSERT_TRUE(r && !strcmp(r->path, want), "each page belongs to its last mapping");
	}
	maprecs__copy(&child, &s);
	ASSERT_EQ(child.n, s.n, "the child's copy has every mapping");
	for (size_t i = 0; i < s.n && i < child.n; i++)
		ASSERT_TRUE(child.v[i].start == s.v[i].start && child.v[i].end == s.v[i].end &&
			    !strcmp(child.v[i].path, s.v[i].path) && child.v[i].path != s.v[i].path,
			    "the same mapping, with its own path");
	ASSERT_TRUE(child.changed, "the copy counts as a change");
	maprecs__clear(&child);
	maprecs__clear(&s);
}

/*
 * A map made from records has the entries that parsing its text (made for
 * libdwfl only when asked, procmaps__format) gives
 * (kind, perms and anonymous paths included), and a forked child's copy of a
 * captured map has its entries and its own fds on the same files.
 */
void test_maprecs__procmaps_like_parsed(void)
{
	struct maprec recs[] = {
		{ .start = 0x400000, .end = 0x401000, .pgoff = 0, .ino = 11, .maj = 8, .min = 1,
		  .prot = PROT_READ, .flags = MAP_PRIVATE, .path = "/usr/bin/prog" },
		{ .start = 0x401000, .end = 0x402000, .pgoff = 0x1000, .ino = 11, .maj = 8, .min = 1,
		  .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE, .path = "/usr/bin/prog" },
		{ .start = 0x600000, .end = 0x800000, .prot = PROT_READ | PROT_WRITE,
		  .flags = MAP_PRIVATE, .path = "//anon" },
		{ .start = 0x900000, .end = 0x921000, .prot = PROT_READ | PROT_WRITE,
		  .flags = MAP_PRIVATE, .path = "[heap]" },
		{ .start = 0xa00000, .end = 0xa01000, .ino = 12, .prot = PROT_READ | PROT_WRITE,
		  .flags = MAP_SHARED, .path = "/dev/shm/x" },
	};
	struct maprecs s = { 0 };
	struct procmaps *m, *p, *self, *child;
	size_t len;
	char *text;

	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
		maprecs__add(&s, &recs[i], 4096);
	m = maprecs__procmaps(&s, 77);
	if (!ASSERT_TRUE(m != NULL, "a map from the records"))
		return;
	ASSERT_TRUE(m->text == NULL, "no text made until libdwfl needs it");
	text = procmaps__format(m, &len);
	ASSERT_EQ(len, strlen(text), "its length");
	p = procmaps__parse(77, text);
	free(text);
	ASSERT_EQ(m->n, p->n, "as many entries as its text has lines");
	for (int i = 0; i < m->n && i < p->n; i++) {
		const struct procmap *a = &m->v[i], *b = &p->v[i];

		ASSERT_TRUE(a->start == b->start && a->end == b->end && a->offset == b->offset &&
			    a->inode == b->inode && !strcmp(a->perms, b->perms) &&
			    !strcmp(a->path, b->path) && a->kind == b->kind &&
			    a->thp_eligible == b->thp_eligible, "each entry as parsed");
	}
	ASSERT_EQ(procmaps__find(m, 0x600010)->kind, MAPK_ANON, "anonymous memory");
	ASSERT_STREQ(procmaps__find(m, 0xa00010)->perms, "rw-s", "a shared mapping");
	procmaps__free(p);
	procmaps__free(m);
	maprecs__clear(&s);

	self = procmaps__capture(getpid(), false);
	if (!ASSERT_TRUE(self && self->nr_files > 0, "this process's map, with its files"))
		return;
	child = procmaps__dup(self, 78);
	ASSERT_EQ(child->pid, 78, "the child's");
	ASSERT_TRUE(child->n == self->n && !memcmp(child->v, self->v, self->n * sizeof(*self->v)),
		    "the same entries");
	ASSERT_TRUE(child->len == self->len && !memcmp(child->text, self->text, self->len),
		    "the same text");
	for (int i = 0; i < self->nr_files; i++) {
		ASSERT_STREQ(child->files[i].path, self->files[i].path, "the same files");
		ASSERT_EQ(child->files[i].fd, self->files[i].fd, "the same fd, shared");
	}
	/* the files stay open while a snapshot that shares them is left */
	{
		struct stat a[self->nr_files];
		int n = self->nr_files;

		for (int i = 0; i < n; i++)
			if (self->files[i].fd >= 0)
				fstat(self->files[i].fd, &a[i]);
		procmaps__free(self);
		for (int i = 0; i < n; i++) {
			struct stat b;

			if (child->files[i].fd < 0)
				continue;
			ASSERT_TRUE(!fstat(child->files[i].fd, &b) && b.st_ino == a[i].st_ino,
				    "the child's fd still open on its file");
		}
	}
	procmaps__free(child);
}
