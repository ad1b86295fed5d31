// SPDX-License-Identifier: GPL-2.0-only
/*
 * A mapped file's build-id and loadable segments, by its inode and path.
 *
 * A shell loop runs /bin/true a thousand times; each process maps the same
 * libc and ld.so at other addresses (ASLR).  The symbol cache is keyed by
 * build-id and file address, so an address there is a hit once the file's
 * build-id and segments are known: reading them once per file replaces a
 * libdwfl session per process (which opens and maps every module of the
 * process), the largest part of symbolising such a run.  The answer is
 * checked against libdwfl's whenever libdwfl is asked anyway (a cache miss),
 * and a file whose answers differ is left to libdwfl.
 */
#include "symbols/fileid.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#define FILEID_BUCKETS 256
#define FILEID_SEGS 16

struct fileid {
	struct fileid *next;
	uint64_t ino;
	char *path;
	bool ok;			/* build-id and segments read, and not distrusted */
	unsigned char id[FILEID_MAX];
	int id_len;
	int nseg;
	struct { uint64_t off, filesz, vaddr; } seg[FILEID_SEGS];	/* PT_LOAD */
	int nxsec;
	struct { uint64_t addr, size, off; } xsec[FILEID_SEGS];	/* executable PROGBITS */
};

static struct {
	pthread_mutex_t lock;
	struct fileid *b[FILEID_BUCKETS];
} ids = { .lock = PTHREAD_MUTEX_INITIALIZER };

static unsigned int bucket(uint64_t ino, const char *path)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ULL;

	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return (unsigned int)(h >> 40) % FILEID_BUCKETS;
}

static void read_file_id(struct fileid *f, int fd)
{
	const void *bid;
	struct stat st;
	size_t n = 0;
	Elf *e;
	int len;

	if (elf_version(EV_CURRENT) == EV_NONE || fstat(fd, &st) || (uint64_t)st.st_ino != f->ino)
		return;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return;
	len = dwelf_elf_gnu_build_id(e, &bid);
	if (len > 0 && !elf_getphdrnum(e, &n)) {
		f->id_len = len > FILEID_MAX ? FILEID_MAX : len;
		memcpy(f->id, bid, (size_t)f->id_len);
		for (size_t i = 0; i < n && f->nseg < FILEID_SEGS; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			f->seg[f->nseg].off = ph.p_offset;
			f->seg[f->nseg].filesz = ph.p_filesz;
			f->seg[f->nseg++].vaddr = ph.p_vaddr;
		}
		f->ok = f->nseg > 0;
	}
	for (Elf_Scn *scn = NULL; f->ok && (scn = elf_nextscn(e, scn)) && f->nxsec < FILEID_SEGS;) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		f->xsec[f->nxsec].addr = sh.sh_addr;
		f->xsec[f->nxsec].size = sh.sh_size;
		f->xsec[f->nxsec++].off = sh.sh_offset;
	}
	elf_end(e);
}

/* PM's entry, made (and its file read) on first use; call with the lock held. */
static struct fileid *lookup(const struct procmaps *m, const struct procmap *pm, bool make)
{
	unsigned int b = bucket(pm->inode, pm->path);
	struct fileid *f;
	int fd;

	for (f = ids.b[b]; f; f = f->next)
		if (f->ino == pm->inode && !strcmp(f->path, pm->path))
			return f;
	if (!make)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->ino = pm->inode;
	f->path = xstrdup(pm->path);
	/* the fd the snapshot holds is the file that was mapped, even if replaced since */
	fd = m ? procmaps__file_fd(m, pm->path) : -1;
	if (fd >= 0) {
		read_file_id(f, fd);
	} else if ((fd = open(pm->path, O_RDONLY | O_CLOEXEC)) >= 0) {
		read_file_id(f, fd);
		close(fd);
	}
	f->next = ids.b[b];
	ids.b[b] = f;
	return f;
}

/* Whether ADDR is inside PM and PM maps a file by its path. */
static bool mapped_file(const struct procmap *pm, uint64_t addr)
{
	return pm && pm->path[0] == '/' && pm->inode && addr >= pm->start && addr < pm->end;
}

/* ADDR's file address in F (or false); call with the lock held. */
static bool addr_in_file(const struct fileid *f, const struct procmap *pm, uint64_t addr, uint64_t *fa)
{
	uint64_t off = pm->offset + (addr - pm->start);

	for (int i = 0; f->ok && i < f->nseg; i++)
		if (off >= f->seg[i].off && off < f->seg[i].off + f->seg[i].filesz) {
			*fa = off - f->seg[i].off + f->seg[i].vaddr;
			return true;
		}
	return false;
}

bool fileid__file_addr(const struct procmaps *m, const struct procmap *pm, uint64_t addr,
		       unsigned char id[FILEID_MAX], int *id_len, uint64_t *file_addr)
{
	const struct fileid *f;
	bool ok;

	if (!mapped_file(pm, addr))
		return false;
	pthread_mutex_lock(&ids.lock);
	f = lookup(m, pm, true);
	ok = addr_in_file(f, pm, addr, file_addr);
	if (ok) {
		memcpy(id, f->id, (size_t)f->id_len);
		*id_len = f->id_len;
	}
	pthread_mutex_unlock(&ids.lock);
	return ok;
}

int fileid__code(const struct procmaps *m, const struct procmap *pm, uint64_t addr, uint8_t *buf,
		 size_t max)
{
	const struct fileid *f;
	uint64_t fa, at = 0;
	size_t n = 0;
	ssize_t got;
	int fd;

	if (!mapped_file(pm, addr))
		return -ENOENT;
	pthread_mutex_lock(&ids.lock);
	f = lookup(m, pm, true);
	if (addr_in_file(f, pm, addr, &fa))
		for (int i = 0; i < f->nxsec && !n; i++)
			if (fa >= f->xsec[i].addr && fa < f->xsec[i].addr + f->xsec[i].size) {
				n = f->xsec[i].addr + f->xsec[i].size - fa;
				at = f->xsec[i].off + (fa - f->xsec[i].addr);
			}
	pthread_mutex_unlock(&ids.lock);
	if (!n)
		return -ENOENT;
	if (n > max)
		n = max;
	fd = m ? procmaps__file_fd(m, pm->path) : -1;
	if (fd >= 0) {
		got = pread(fd, buf, n, (off_t)at);
	} else {
		struct stat st;

		fd = open(pm->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -ENOENT;
		got = fstat(fd, &st) || (uint64_t)st.st_ino != pm->inode ? -1 :
		      pread(fd, buf, n, (off_t)at);
		close(fd);
	}
	return got > 0 ? (int)got : -ENOENT;
}

void fileid__distrust(const struct procmap *pm)
{
	struct fileid *f;

	pthread_mutex_lock(&ids.lock);
	f = lookup(NULL, pm, false);
	if (f)
		f->ok = false;
	pthread_mutex_unlock(&ids.lock);
}
