/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snapshot of a process's memory map (/proc/PID/maps, optionally
 * /proc/PID/smaps), taken while the process is alive, with the mapped files
 * kept open so that they can be symbolised after the process is gone (or the
 * file was deleted or replaced).
 */
#ifndef __MA_PROCMAPS_H
#define __MA_PROCMAPS_H

#include "model/site.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What a mapping holds, from its path. */

/*
 * Who made an anonymous mapping, from its first bytes and its neighbour
 * (read at a capture with smaps, while the process is stopped).
 */
enum procmap_alloc {
	PM_ALLOC_UNKNOWN,
	PM_ALLOC_MALLOC_CHUNK,	/* one glibc malloc block served by mmap (over mmap_threshold) */
	PM_ALLOC_MALLOC_ARENA,	/* a glibc thread arena's heap (64 MiB aligned) */
	PM_ALLOC_BSS,		/* right after a file's writable data: its .bss (static arrays) */
};

struct procmap {
	uint64_t start, end, offset;
	char perms[8];
	uint64_t inode;
	char path[256];		/* "" for anonymous, "[heap]", "/usr/lib/..." */
	enum map_kind kind;
	/* smaps fields (has_smaps) */
	bool has_smaps;
	uint64_t rss, anon_huge;	/* bytes */
	int thp_eligible;		/* -1 unknown */
	bool hg, nh;			/* VmFlags */
	enum procmap_alloc alloc;	/* anonymous mappings, at a capture with smaps */
};

struct procmaps {
	pid_t pid;
	char *text;		/* the maps file as read (for libdwfl); NULL: see procmaps__format */
	size_t len;
	struct procmap *v;
	int n;
	struct procmaps_file { char *path; int fd; } *files;
	int nr_files;
	int *files_refs;	/* snapshots sharing files (procmaps__dup), NULL: none opened */
	uint64_t taken_ns;
};

/* Reads /proc/PID/maps (and smaps when WITH_SMAPS); NULL + errno on failure. */
struct procmaps *procmaps__capture(pid_t pid, bool with_smaps);
/* Parses maps text (no files opened); for tests and replay. */
struct procmaps *procmaps__parse(pid_t pid, const char *text);
/*
 * A map from entries already parsed (start, end, offset, perms, inode and
 * path set; kind derived here) and their maps text: both are the map's now.
 */
struct procmaps *procmaps__adopt(pid_t pid, char *text, size_t len, struct procmap *v, int n);
/* M's entries as a maps text (start-end perms offset 00:00 inode path), malloc'd. */
char *procmaps__format(const struct procmaps *m, size_t *len);
/* A copy of M for process PID (its files' fds shared with M): a forked child's map. */
struct procmaps *procmaps__dup(const struct procmaps *m, pid_t pid);
void procmaps__free(struct procmaps *m);
/* The mapping holding ADDR, or NULL. */
const struct procmap *procmaps__find(const struct procmaps *m, uint64_t addr);
/* An fd opened at capture time for PATH (do not close), or -1. */
int procmaps__file_fd(const struct procmaps *m, const char *path);
/* Whether two snapshots list the same mappings (start, end, path). */
bool procmaps__same(const struct procmaps *a, const struct procmaps *b);

#endif
