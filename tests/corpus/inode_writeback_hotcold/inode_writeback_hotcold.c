// SPDX-License-Identifier: GPL-2.0-only
/*
 * inode_writeback_hotcold: the inode cache of a user-space file server
 * (a FUSE or NFS daemon).  512K cached inodes carry their attributes,
 * times, ownership, link and list fields: 160 bytes each.  Every tick the
 * writeback thread scans all inodes for the ones that are dirty and have
 * been dirty for longer than the writeback delay, and writes those back.
 * The scan reads two members of each inode, its state flags and the time
 * it was dirtied; everything else is read only for the few inodes written
 * back.
 * BAD keeps the two members inside struct inode: the scan brings a 64-byte
 * line from memory for 16 useful bytes of every inode, 80 MiB per tick.
 * GOOD moves them into an array of their own, indexed like the inode table
 * (16 bytes per inode, 8 MiB, which stays in L3): the scan reads 16 bytes
 * per inode and only written-back inodes touch the 144 bytes left in
 * struct inode.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NINODES		(512 * 1024)
#define TICKS		480
#define I_DIRTY		0x1u
#define I_NEW		0x8u
#define WB_DELAY	30

struct timespec64 {
	int64_t sec;
	int64_t nsec;
};

struct inode_wb {
	uint32_t i_state;		/* I_DIRTY, ... */
	uint32_t i_flags;
	uint64_t dirtied_when;		/* tick it became dirty */
};

struct inode {
	uint64_t i_ino;
	uint32_t i_mode;
	uint32_t i_uid;
	uint32_t i_gid;
	uint32_t i_nlink;
	uint64_t i_size;
	uint64_t i_blocks;
	struct timespec64 i_atime;
	struct timespec64 i_mtime;
	struct timespec64 i_ctime;
#ifdef BAD
	struct inode_wb wb;		/* read by every writeback scan */
#endif
	uint64_t i_generation;
	uint64_t i_version;
	void *i_private;
	struct inode *i_hash_next;
	struct inode *i_lru_prev;
	struct inode *i_lru_next;
	uint64_t i_rdev;
};

#ifdef BAD
_Static_assert(sizeof(struct inode) == 160, "160-byte inodes");
#else
_Static_assert(sizeof(struct inode) == 144, "144-byte inodes");
#endif

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#ifdef BAD
#define WB(ino, i)	(&(ino)[i].wb)
#else
#define WB(ino, i)	(&wbs[i])
static struct inode_wb *wbs;
#endif

/* Writes back the inodes dirty for longer than WB_DELAY ticks. */
static __attribute__((noinline)) uint64_t writeback_scan(struct inode *ino, uint64_t now)
{
	uint64_t written = 0;

	for (size_t i = 0; i < NINODES; i++) {
		struct inode_wb *w = WB(ino, i);

		if ((w->i_state & I_DIRTY) && w->dirtied_when + WB_DELAY < now) {
			ino[i].i_version++;	/* the write to disk */
			w->i_state &= ~I_DIRTY;
			written += ino[i].i_size;
		}
	}
	return written;
}

int main(void)
{
	struct inode *ino = aligned_alloc(64, NINODES * sizeof(*ino));
	uint64_t x = 0x2545f4914f6cdd1dull, sum = 0;

#ifndef BAD
	wbs = aligned_alloc(64, NINODES * sizeof(*wbs));
	if (!wbs)
		return 1;
#endif
	if (!ino)
		return 1;
	for (size_t i = 0; i < NINODES; i++) {
		struct inode_wb *w = WB(ino, i);

		ino[i] = (struct inode){ .i_ino = i + 2, .i_mode = 0100644, .i_uid = 1000,
					 .i_gid = 1000, .i_nlink = 1,
					 .i_size = rnd(&x) % (1 << 20) };
		ino[i].i_blocks = (ino[i].i_size + 511) / 512;
		w->i_state = 0;
		w->i_flags = 0;
		w->dirtied_when = 0;
	}
	for (uint64_t t = 1; t <= TICKS; t++) {
		for (int k = 0; k < 2048; k++) {	/* writes since the last tick */
			size_t i = rnd(&x) % NINODES;
			struct inode_wb *w = WB(ino, i);

			ino[i].i_mtime.sec = (int64_t)t;
			if (!(w->i_state & I_DIRTY)) {
				w->i_state |= I_DIRTY;
				w->dirtied_when = t;
			}
		}
		sum += writeback_scan(ino, t);
	}
	printf("%llu\n", (unsigned long long)sum);
#ifndef BAD
	free(wbs);
#endif
	free(ino);
	return 0;
}
