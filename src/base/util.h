/* SPDX-License-Identifier: GPL-2.0-only */
/* Small checked helpers: number parsing, allocation, file reading. */
#ifndef __MA_UTIL_H
#define __MA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* All return 0 or -EINVAL (bad syntax) / -ERANGE. */
int parse_u64(const char *s, uint64_t *out);
int parse_int(const char *s, int min, int max, int *out);
/* "1.5", "500ms", "2s", "1m" -> nanoseconds. A bare number is seconds. */
int parse_duration(const char *s, uint64_t *ns);
/* "4096", "64K", "2M", "1G" (binary units) -> bytes. */
int parse_size(const char *s, uint64_t *bytes);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
/* P (an array of *CAP items of SZ bytes) grown to hold NEED: doubled, at least 64. */
void *xgrow(void *p, size_t *cap, size_t need, size_t sz);
char *xstrdup(const char *s);

/* Reads a whole (small) file; returns malloc'd NUL-terminated text or NULL with errno. */
char *read_file(const char *path, size_t *len);
/* Reads the first line of a file (sysfs style) into buf, trailing newline removed. */
int read_line(const char *path, char *buf, size_t len);
int read_u64_file(const char *path, uint64_t *out);
/*
 * The counts of N perf_event fds, summed into *SUM; false when N is 0 or a
 * read fails.  Fds opened with read_format TOTAL_TIME_ENABLED|RUNNING also
 * give their times, summed into *ENA and *RUN (left 0 for fds without them);
 * either may be NULL.
 */
bool read_counts_sum(const int *fds, int n, uint64_t *sum, uint64_t *ena, uint64_t *run);

uint64_t now_ns(void); /* CLOCK_MONOTONIC */
uint64_t gcd64(uint64_t a, uint64_t b); /* greatest common divisor; gcd64(a, 0) == a */
int cmp_u64(const void *a, const void *b); /* qsort order of uint64_t, ascending */
/* The first index of sorted V[0..N) whose value is X or more (N if none). */
size_t u64_lower_bound(const uint64_t *v, size_t n, uint64_t x);

/* "1.2 K", "3.4 M": human-readable count with SI suffix into buf. */
const char *fmt_count(double v, char *buf, size_t len);
/* "4.0 KiB", "512 MiB". */
const char *fmt_bytes(double v, char *buf, size_t len);

/* The last component of PATH (after its last '/'); PATH itself when it has none. */
const char *path_basename(const char *path);
/* Appends to a growing buffer *buf of *len bytes used in *cap (xrealloc'd). */
void sbuf_printf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A number for a message: whole numbers without decimals, others to 3 digits. */
void fmt_num(double v, char *buf, size_t len);

#endif
