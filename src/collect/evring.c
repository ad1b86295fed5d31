// SPDX-License-Identifier: GPL-2.0-only
/* Per-CPU perf sampling rings: open, drain, count lost records. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "collect/evring.h"
#include "machine/sysinfo.h"
#include "base/util.h"

struct cpu_ring {
	int fd;
	int cpu;
	void *base;	     /* metadata page + data pages */
	size_t data_size;    /* power of two */
};

struct evring {
	struct cpu_ring *rings;
	int nr;
	uint64_t lost;
	size_t page;
	unsigned char *scratch; /* for records that wrap around the ring end */
	size_t scratch_len;
	int *extra;		/* events of other threads, output redirected */
	int nr_extra;
};

int evring__sys_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

struct evring *evring__open(struct perf_event_attr *attr, pid_t pid, int pages_order,
			    char *why, size_t why_len)
{
	int ncpu = sysinfo__nr_cpus(), first_err = 0;
	struct evring *er;

	if (ncpu <= 0)
		ncpu = 1;
	er = xcalloc(1, sizeof(*er));
	er->rings = xcalloc(ncpu, sizeof(*er->rings));
	er->page = (size_t)sysconf(_SC_PAGESIZE);
	attr->inherit = 1;
	attr->size = sizeof(*attr);
	for (int cpu = 0; cpu < ncpu; cpu++) {
		struct cpu_ring *cr = &er->rings[er->nr];
		size_t len = er->page * ((1u << pages_order) + 1);
		int fd = evring__sys_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			if (!first_err) {
				first_err = fd;
				snprintf(why, why_len, "perf_event_open on cpu %d: %s", cpu,
					 strerror(-fd));
			}
			continue;
		}
		cr->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (cr->base == MAP_FAILED) {
			int err = -errno;

			if (!first_err) {
				first_err = err;
				snprintf(why, why_len, "mmap of the ring on cpu %d: %s", cpu,
					 strerror(-err));
			}
			close(fd);
			continue;
		}
		cr->fd = fd;
		cr->cpu = cpu;
		cr->data_size = len - er->page;
		er->nr++;
	}
	if (!er->nr) {
		evring__close(er);
		errno = first_err ? -first_err : ENODEV;
		return NULL;
	}
	return er;
}

int evring__add_threads(struct evring *er, struct perf_event_attr *attr, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int added = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name), ok = 0;

		if (tid <= 0 || tid == pid)
			continue;
		for (int i = 0; i < er->nr; i++) {
			int fd = evring__sys_open(attr, tid, er->rings[i].cpu, -1,
						  PERF_FLAG_FD_CLOEXEC);

			if (fd < 0)
				continue;
			if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, er->rings[i].fd)) {
				close(fd);
				continue;
			}
			er->extra = xrealloc(er->extra, (er->nr_extra + 1) * sizeof(int));
			er->extra[er->nr_extra++] = fd;
			ok = 1;
		}
		added += ok;
	}
	closedir(d);
	return added;
}

static const struct perf_event_header *ring_record(struct evring *er, struct cpu_ring *cr,
						   uint64_t tail)
{
	const unsigned char *data = (const unsigned char *)cr->base + er->page;
	size_t off = tail & (cr->data_size - 1);
	const struct perf_event_header *h = (const void *)(data + off);
	size_t size, first;

	/* A header never wraps (8-byte aligned records in a power-of-two ring). */
	size = h->size;
	if (off + size <= cr->data_size)
		return h;
	if (er->scratch_len < size) {
		er->scratch = xrealloc(er->scratch, size);
		er->scratch_len = size;
	}
	first = cr->data_size - off;
	memcpy(er->scratch, data + off, first);
	memcpy(er->scratch + first, data, size - first);
	return (const void *)er->scratch;
}

uint64_t evring__drain(struct evring *er, evring_sample_fn fn, void *ctx)
{
	uint64_t n = 0;

	if (!er)
		return 0;
	for (int i = 0; i < er->nr; i++) {
		struct cpu_ring *cr = &er->rings[i];
		struct perf_event_mmap_page *meta = cr->base;
		uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = meta->data_tail;

		while (tail < head) {
			const struct perf_event_header *h = ring_record(er, cr, tail);

			if (h->size < sizeof(*h))
				break; /* corrupt: resynchronise at head */
			if (h->type == PERF_RECORD_LOST) {
				const uint64_t *p = (const void *)(h + 1);

				er->lost += p[1];
			} else {
				fn(ctx, h);
				n++;
			}
			tail += h->size;
		}
		__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
	}
	return n;
}

int evring__enable(struct evring *er, bool on)
{
	int rc = 0;

	for (int i = 0; er && i < er->nr; i++)
		if (ioctl(er->rings[i].fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			rc = -errno;
	for (int i = 0; er && i < er->nr_extra; i++)
		if (ioctl(er->extra[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			rc = -errno;
	return rc;
}

int evring__ioctl(struct evring *er, unsigned long req, void *arg)
{
	int rc = 0;

	for (int i = 0; er && i < er->nr; i++)
		if (ioctl(er->rings[i].fd, req, arg) && !rc)
			rc = -errno;
	for (int i = 0; er && i < er->nr_extra; i++)
		if (ioctl(er->extra[i], req, arg) && !rc)
			rc = -errno;
	return rc;
}

uint64_t evring__lost(const struct evring *er)
{
	return er ? er->lost : 0;
}

int evring__fds(const struct evring *er, int *out, int max)
{
	int n = 0;

	for (int i = 0; er && i < er->nr && n < max; i++)
		if (er->rings[i].fd >= 0)
			out[n++] = er->rings[i].fd;
	for (int i = 0; er && i < er->nr_extra && n < max; i++)
		if (er->extra[i] >= 0)
			out[n++] = er->extra[i];
	return n;
}

int evring__nr_cpus(const struct evring *er)
{
	return er ? er->nr : 0;
}

void evring__close(struct evring *er)
{
	if (!er)
		return;
	for (int i = 0; i < er->nr; i++) {
		munmap(er->rings[i].base, er->rings[i].data_size + er->page);
		close(er->rings[i].fd);
	}
	for (int i = 0; i < er->nr_extra; i++)
		close(er->extra[i]);
	free(er->extra);
	free(er->rings);
	free(er->scratch);
	free(er);
}
