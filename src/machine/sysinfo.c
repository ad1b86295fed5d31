// SPDX-License-Identifier: GPL-2.0-only
#include "machine/sysinfo.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "base/util.h"

#define CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"

static int read_caches(struct cache_level *out, int max)
{
	char path[256], buf[64];
	int n = 0;

	for (int i = 0; i < 16 && n < max; i++) {
		struct cache_level *c = &out[n];
		uint64_t v;

		snprintf(path, sizeof(path), CACHE_DIR "/index%d/level", i);
		if (read_line(path, buf, sizeof(buf)))
			break;
		memset(c, 0, sizeof(*c));
		c->level = atoi(buf);
		snprintf(path, sizeof(path), CACHE_DIR "/index%d/type", i);
		if (read_line(path, c->type, sizeof(c->type)))
			snprintf(c->type, sizeof(c->type), "Unknown");
		snprintf(path, sizeof(path), CACHE_DIR "/index%d/size", i);
		if (!read_line(path, buf, sizeof(buf)) && !parse_size(buf, &v))
			c->size = v;
		snprintf(path, sizeof(path), CACHE_DIR "/index%d/coherency_line_size", i);
		if (!read_u64_file(path, &v))
			c->line = (int)v;
		snprintf(path, sizeof(path), CACHE_DIR "/index%d/ways_of_associativity", i);
		if (!read_u64_file(path, &v))
			c->ways = (int)v;
		snprintf(path, sizeof(path), CACHE_DIR "/index%d/number_of_sets", i);
		if (!read_u64_file(path, &v))
			c->sets = (int)v;
		snprintf(path, sizeof(path), CACHE_DIR "/index%d/shared_cpu_list", i);
		read_line(path, c->shared_cpus, sizeof(c->shared_cpus));
		n++;
	}
	return n ? n : -ENOENT;
}

/*
 * Read once a process: a run asks for them from several collectors and the
 * rules (8 times, 7 sysfs files a level each: 230 opens, 1-2 ms).
 */
#define MAX_CACHE_LEVELS 16

static struct {
	pthread_mutex_t lock;
	bool done;
	int n;
	struct cache_level c[MAX_CACHE_LEVELS];
} caches = { .lock = PTHREAD_MUTEX_INITIALIZER };

int sysinfo__caches(struct cache_level *out, int max)
{
	int n;

	pthread_mutex_lock(&caches.lock);
	if (!caches.done) {
		caches.n = read_caches(caches.c, MAX_CACHE_LEVELS);
		caches.done = true;
	}
	n = caches.n < max ? caches.n : max;
	if (n > 0)
		memcpy(out, caches.c, n * sizeof(*out));
	pthread_mutex_unlock(&caches.lock);
	return caches.n < 0 ? caches.n : n;
}

const struct cache_level *sysinfo__cache(const struct cache_level *c, int n, int level)
{
	for (int i = 0; i < n; i++)
		if (c[i].level == level && strcmp(c[i].type, "Instruction"))
			return &c[i];
	return NULL;
}

int sysinfo__cacheline(void)
{
	struct cache_level c[8];
	int n = sysinfo__caches(c, 8);
	const struct cache_level *l1 = n > 0 ? sysinfo__cache(c, n, 1) : NULL;

	return l1 && l1->line > 0 ? l1->line : 64;
}

static int bracketed(const char *path, char *buf, size_t len)
{
	char line[256], *a, *b;
	int err = read_line(path, line, sizeof(line));

	if (err)
		return err;
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b)
		return -EINVAL;
	*b = 0;
	snprintf(buf, len, "%s", a + 1);
	return 0;
}

int sysinfo__thp_mode(char *buf, size_t len)
{
	return bracketed("/sys/kernel/mm/transparent_hugepage/enabled", buf, len);
}

int sysinfo__thp_defrag(char *buf, size_t len)
{
	return bracketed("/sys/kernel/mm/transparent_hugepage/defrag", buf, len);
}

int sysinfo__perf_paranoid(int *level)
{
	char buf[32];
	int err = read_line("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));

	if (err)
		return err;
	*level = atoi(buf);
	return 0;
}

int sysinfo__cpu(char *vendor, size_t vlen, int *family, int *model, char *name, size_t nlen)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	int seen = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && seen != 0xf) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v++;
		while (*v == ' ')
			v++;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9) && !(seen & 1)) {
			snprintf(vendor, vlen, "%s", v);
			seen |= 1;
		} else if (!strncmp(line, "cpu family", 10) && !(seen & 2)) {
			*family = atoi(v);
			seen |= 2;
		} else if (!strncmp(line, "model name", 10) && !(seen & 4)) {
			snprintf(name, nlen, "%s", v);
			seen |= 4;
		} else if (!strncmp(line, "model\t", 6) && !(seen & 8)) {
			*model = atoi(v);
			seen |= 8;
		}
	}
	fclose(f);
	return seen ? 0 : -ENOENT;
}

int sysinfo__hypervisor(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	int ret = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			ret = strstr(line, " hypervisor") != NULL;
			break;
		}
	}
	fclose(f);
	return ret;
}

int sysinfo__cpu_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	size_t n = strlen(flag);
	int ret = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "flags", 5)) {
			for (char *p = strstr(line, flag); p; p = strstr(p + 1, flag))
				if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || !p[n])) {
					ret = 1;
					break;
				}
			break;
		}
	}
	fclose(f);
	return ret;
}

/* CONFIG_HZ=N in a line of a kernel config; 0 when not that line. */
static unsigned int config_hz(const char *line)
{
	unsigned int hz;

	return sscanf(line, "CONFIG_HZ=%u", &hz) == 1 ? hz : 0;
}

unsigned int sysinfo__kernel_hz(void)
{
	static unsigned int hz;
	char path[128], line[256];
	struct utsname u;
	gzFile gz;
	FILE *f;

	if (hz)
		return hz;
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = fopen(path, "re");
		if (f) {
			while (!hz && fgets(line, sizeof(line), f))
				hz = config_hz(line);
			fclose(f);
			if (hz)
				return hz;
		}
	}
	gz = gzopen("/proc/config.gz", "rb");
	if (gz) {
		while (!hz && gzgets(gz, line, sizeof(line)))
			hz = config_hz(line);
		gzclose(gz);
	}
	return hz;
}

void sysinfo__nohz_full(char *buf, size_t len)
{
	if (read_line("/sys/devices/system/cpu/nohz_full", buf, len) || !strcmp(buf, "(null)"))
		buf[0] = '\0';
}

int sysinfo__nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

int sysinfo__nr_allowed_cpus(void)
{
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return sysinfo__nr_cpus();
}

int sysinfo__steal_ns(uint64_t *ns)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -errno;
	/* cpu user nice system idle iowait irq softirq steal ... */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 8 || hz <= 0)
		return -ENODATA;
	*ns = v[7] * (1000000000ULL / (unsigned long long)hz);
	return 0;
}
