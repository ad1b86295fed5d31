// SPDX-License-Identifier: GPL-2.0-only
/* libdwfl over a live process, plus /proc/PID/maps parsing. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>

#include "addrsym.h"
#include "util.h"

struct addrsym {
	Dwfl *dwfl;
	pid_t pid;
};

static char *debuginfo_path;
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

int addrsym__refresh(struct addrsym *s)
{
	int rc;

	dwfl_report_begin(s->dwfl);
	rc = dwfl_linux_proc_report(s->dwfl, s->pid);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (rc > 0)
		return -rc;
	return rc < 0 ? -ENOENT : 0;
}

struct addrsym *addrsym__new(pid_t pid)
{
	struct addrsym *s = xcalloc(1, sizeof(*s));
	int rc;

	s->pid = pid;
	s->dwfl = dwfl_begin(&proc_callbacks);
	if (!s->dwfl) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	rc = addrsym__refresh(s);
	if (rc) {
		addrsym__free(s);
		errno = -rc;
		return NULL;
	}
	return s;
}

int addrsym__func(struct addrsym *s, uint64_t ip, uint64_t *start, uint64_t *size)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, ip);
	GElf_Off off;
	GElf_Sym sym;

	if (!m || !dwfl_module_addrinfo(m, ip, &off, &sym, NULL, NULL, NULL))
		return -ENOENT;
	*start = ip - off;
	*size = sym.st_size;
	return 0;
}

int addrsym__resolve(struct addrsym *s, uint64_t ip, struct addrsym_loc *loc)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, ip);
	const char *name, *file;
	Dwfl_Line *l;
	GElf_Off off;
	GElf_Sym sym;
	int line = 0;

	memset(loc, 0, sizeof(*loc));
	if (!m)
		return -ENOENT;
	name = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (name) {
		const char *b = strrchr(name, '/');

		snprintf(loc->module, sizeof(loc->module), "%s", b ? b + 1 : name);
	}
	name = dwfl_module_addrinfo(m, ip, &off, &sym, NULL, NULL, NULL);
	if (name) {
		snprintf(loc->function, sizeof(loc->function), "%s", name);
		loc->func_start = ip - off;
		loc->func_size = sym.st_size;
	}
	l = dwfl_module_getsrc(m, ip);
	if (l && (file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL))) {
		snprintf(loc->file, sizeof(loc->file), "%s", file);
		loc->line = line;
	}
	return 0;
}

void addrsym__free(struct addrsym *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s);
}

const char *map_kind__name(enum map_kind k)
{
	static const char *const names[MAPK__COUNT] = {
		[MAPK_HEAP] = "heap", [MAPK_STACK] = "stack", [MAPK_ANON] = "anon",
		[MAPK_FILE] = "file", [MAPK_OTHER] = "other",
	};

	return k < MAPK__COUNT ? names[k] : "?";
}

int procmap__parse(const char *text, struct map_entry **out)
{
	struct map_entry *v = NULL;
	int n = 0, cap = 0;
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[512], perms[8] = "", dev[16];
		uint64_t start, end, off, ino;
		int pos = 0;

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p = eol ? eol + 1 : NULL;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %15s %" SCNu64 " %n",
			   &start, &end, perms, &off, dev, &ino, &pos) < 6)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, cap * sizeof(*v));
		}
		struct map_entry *e = &v[n++];

		memset(e, 0, sizeof(*e));
		e->start = start;
		e->end = end;
		e->pgoff = off;
		snprintf(e->perms, sizeof(e->perms), "%s", perms);
		snprintf(e->path, sizeof(e->path), "%s", pos ? line + pos : "");
		if (!strcmp(e->path, "[heap]"))
			e->kind = MAPK_HEAP;
		else if (!strncmp(e->path, "[stack", 6))
			e->kind = MAPK_STACK;
		else if (!e->path[0])
			e->kind = MAPK_ANON;
		else if (e->path[0] == '/')
			e->kind = MAPK_FILE;
		else
			e->kind = MAPK_OTHER;
	}
	*out = v;
	return n;
}

int procmap__read(pid_t pid, struct map_entry **out)
{
	char path[64], *text;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	text = read_file(path, NULL);
	if (!text)
		return -errno;
	n = procmap__parse(text, out);
	free(text);
	return n;
}

const struct map_entry *procmap__find(const struct map_entry *m, int n, uint64_t addr)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (addr < m[mid].start)
			hi = mid - 1;
		else if (addr >= m[mid].end)
			lo = mid + 1;
		else
			return &m[mid];
	}
	return NULL;
}
