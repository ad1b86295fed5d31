// SPDX-License-Identifier: GPL-2.0-only
#include "symbols/symbolizer.h"

#include <ctype.h>
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "symbols/decode.h"
#include "symbols/fileid.h"
#include "symbols/scopeidx.h"
#include "symbols/vdso.h"

#define CACHE_BUCKETS 4096
#define SCOPES_BUCKETS 256

struct cache_entry {
	struct cache_entry *next;
	unsigned char build_id[20];
	int build_id_len;
	uint64_t rel;
	bool return_addr;
	bool lines;		/* line and inline information was looked up */
	struct sampling_loc loc;	/* ip filled per lookup */
};

struct space {
	const struct procmaps *maps;
	Dwfl *dwfl;
	bool failed;
};

/* A CU's scope index, by the module's build-id and the CU's offset. */
struct cu_scopes {
	struct cu_scopes *next;
	unsigned char id[20];
	int id_len;
	Dwarf_Off cu_off;
	struct scopeidx *idx;	/* NULL: the CU cannot be indexed */
};

/*
 * The instruction starts of a function, decoded once: a hot function has
 * hundreds of sampled addresses, and decoding from its start to each (up to
 * 64 KiB: sqlite3VdbeExec) cost a tenth of a second a run.  By build-id and
 * the function's address in the file.
 */
struct func_insns {
	struct func_insns *next;
	unsigned char id[20];
	int id_len;
	uint64_t start;		/* the function's address, as in the file */
	uint64_t len;		/* bytes given to the decoder */
	uint64_t *insn;		/* the starts of the instructions decoded, and the end of the last */
	size_t n;
};

/* The instruction before a file address (symbolizer__prev_insn), by build-id. */
struct prev_entry {
	struct prev_entry *next;
	unsigned char id[20];
	int id_len;
	uint64_t rel;		/* the address, as in the file */
	uint64_t back;		/* how far the instruction before it starts; 0: none found */
};

struct symbolizer {
	struct prev_entry *prevs[CACHE_BUCKETS];
	struct func_insns **funcs;	/* SCOPES_BUCKETS lists, by function address */
	struct { unsigned char id[20]; int len; } *loaded; /* modules whose DWARF was read */
	int nr_loaded;
	struct cu_scopes **scopes;	/* SCOPES_BUCKETS lists, by CU offset */
	struct space *spaces;
	int nr_spaces;
	struct cache_entry *cache[CACHE_BUCKETS];
	uint64_t hits;
};

/* libdwfl's find_elf callback has no user pointer: the space being reported. */
static const struct procmaps *current_maps;

/* Opens a module from the fd kept by the snapshot (the file may be gone). */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	int fd = current_maps ? procmaps__file_fd(current_maps, modname) : -1;

	if (fd >= 0) {
		int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);

		if (nfd >= 0) {
			*file_name = strdup(modname);
			*elfp = NULL;
			return nfd;
		}
	}
	return dwfl_linux_proc_find_elf(mod, userdata, modname, base, file_name, elfp);
}

/* A debug file is taken only when its build-id is the module's. */
static int open_if_same_build_id(const char *path, const unsigned char *id, int id_len,
				 char **found)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	const void *fid;
	bool same;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	same = elf && dwelf_elf_gnu_build_id(elf, &fid) == id_len && !memcmp(fid, id, id_len);
	elf_end(elf);
	if (!same) {
		close(fd);
		return -1;
	}
	*found = strdup(path);
	return fd;
}

/*
 * The separate debug file, from local places only: /usr/lib/debug/.build-id,
 * then the .gnu_debuglink name beside the file, in its .debug/ and under
 * /usr/lib/debug.  libdwfl's standard search also asks debuginfod servers,
 * and loading that client (libcurl and its TLS stack) costs 8 ms even when
 * no server is configured: it is used only when DEBUGINFOD_URLS names one.
 */
int symbolizer__find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			       Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			       GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	static const struct { const char *before, *after; } places[] = {
		{ "", "" }, { "", "/.debug" }, { "/usr/lib/debug", "" },
	};
	const char *urls = getenv("DEBUGINFOD_URLS");
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int fd, id_len;
	char dir[PATH_MAX], path[PATH_MAX * 2];
	const char *slash;

	if (urls && urls[0])
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	id_len = dwfl_module_build_id(mod, &id, &id_vaddr);
	if (fd >= 0 || !debuglink_file || !file_name)
		return fd;
	if (id_len <= 0)	/* nothing to check a debuglink candidate with */
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	slash = strrchr(file_name, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file_name) : 1,
		 slash ? file_name : ".");
	for (size_t i = 0; i < ARRAY_SIZE(places); i++) {
		snprintf(path, sizeof(path), "%s%s%s/%s", places[i].before, dir, places[i].after,
			 debuglink_file);
		if (strcmp(path, file_name) &&
		    (fd = open_if_same_build_id(path, id, id_len, debuginfo_file_name)) >= 0)
			return fd;
	}
	errno = ENOENT;
	return -1;
}

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = symbolizer__find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct symbolizer *symbolizer__new(void)
{
	return xcalloc(1, sizeof(struct symbolizer));
}

static void callers_clear(void);

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr_spaces; i++)
		if (s->spaces[i].dwfl)
			dwfl_end(s->spaces[i].dwfl);
	callers_clear();
	for (int i = 0; s->scopes && i < SCOPES_BUCKETS; i++)
		while (s->scopes[i]) {
			struct cu_scopes *c = s->scopes[i];

			s->scopes[i] = c->next;
			scopeidx__free(c->idx);
			free(c);
		}
	free(s->scopes);
	for (int i = 0; s->funcs && i < SCOPES_BUCKETS; i++)
		while (s->funcs[i]) {
			struct func_insns *f = s->funcs[i];

			s->funcs[i] = f->next;
			free(f->insn);
			free(f);
		}
	free(s->funcs);
	free(s->spaces);
	free(s->loaded);
	for (int i = 0; i < CACHE_BUCKETS; i++) {
		struct cache_entry *e = s->cache[i], *n;
		struct prev_entry *pe = s->prevs[i], *pn;

		for (; e; e = n) {
			n = e->next;
			free(e);
		}
		for (; pe; pe = pn) {
			pn = pe->next;
			free(pe);
		}
	}
	free(s);
}

uint64_t symbolizer__cache_hits(const struct symbolizer *s)
{
	return s->hits;
}

static Dwfl *space_dwfl(struct symbolizer *s, const struct procmaps *maps)
{
	struct space *sp = NULL;
	char *text, *made = NULL;
	FILE *f = NULL;
	size_t len;

	for (int i = 0; i < s->nr_spaces; i++)
		if (s->spaces[i].maps == maps)
			sp = &s->spaces[i];
	if (!sp) {
		s->spaces = xrealloc(s->spaces, (s->nr_spaces + 1) * sizeof(*s->spaces));
		sp = &s->spaces[s->nr_spaces++];
		memset(sp, 0, sizeof(*sp));
		sp->maps = maps;
	}
	if (sp->dwfl || sp->failed)
		return sp->dwfl;
	sp->dwfl = dwfl_begin(&callbacks);
	if (sp->dwfl) {
		len = maps->len;
		text = maps->text ? maps->text : (made = procmaps__format(maps, &len));
		f = len ? fmemopen(text, len, "r") : NULL;
	}
	if (!f) {
		free(made);
		sp->failed = true;
		if (sp->dwfl)
			dwfl_end(sp->dwfl);
		sp->dwfl = NULL;
		return NULL;
	}
	dwfl_report_begin(sp->dwfl);
	if (dwfl_linux_proc_maps_report(sp->dwfl, f) != 0)
		pr_debug("symbolizer: pid %d: %s", (int)maps->pid, dwfl_errmsg(-1));
	dwfl_report_end(sp->dwfl, NULL, NULL);
	fclose(f);
	free(made);
	return sp->dwfl;
}

Dwfl *symbolizer__dwfl(struct symbolizer *s, const struct procmaps *maps)
{
	if (!maps)
		return NULL;
	current_maps = maps;
	return space_dwfl(s, maps);
}

void symbolizer__forget(struct symbolizer *s, const struct procmaps *maps)
{
	for (int i = 0; s && i < s->nr_spaces; i++)
		if (s->spaces[i].maps == maps) {
			if (s->spaces[i].dwfl)
				dwfl_end(s->spaces[i].dwfl);
			s->spaces[i] = s->spaces[--s->nr_spaces];
			break;
		}
	if (current_maps == maps)
		current_maps = NULL;
	callers_clear();
}

/*
 * Address to symbol, by binary search.  dwfl_module_addrinfo() scans the
 * whole symbol table on every call (libc's has ten thousand entries): one
 * sorted index per module, shared by build-id across snapshots and
 * symbolizers, makes a lookup logarithmic.  The choice follows libdwfl's:
 * the sized symbol containing the address with the highest start (global
 * before weak before local), else the nearest size-0 label not inside a
 * sized symbol.
 */
struct symidx_ent {
	uint64_t start;		/* relative to the module's start */
	uint64_t size;
	uint64_t max_end;	/* highest end of the sized entries up to this one */
	uint64_t sect_end;	/* size-0 labels: the end of their section */
	uint64_t st_value;	/* as in its ELF file, like dwfl_module_addrinfo's */
	size_t name_off;	/* in struct symidx's names */
	unsigned int ndx;	/* in the symbol table: the first of aliases wins */
	unsigned char info;
};

struct symidx {
	struct symidx *next;
	unsigned char id[20];
	int id_len;
	struct symidx_ent *e;
	size_t n;
	char *names;
};

static struct symidx *symidx_list;

static int bind_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: return 2;
	case STB_WEAK: return 1;
	default: return 0;
	}
}

static int cmp_symidx(const void *a, const void *b)
{
	const struct symidx_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* at one address the preferred one last, where the search stops */
	if (bind_rank(x->info) != bind_rank(y->info))
		return bind_rank(x->info) - bind_rank(y->info);
	return x->ndx < y->ndx ? 1 : x->ndx > y->ndx ? -1 : 0;
}

static struct symidx *symidx_build(Dwfl_Module *mod, Dwarf_Addr mod_start,
				   const unsigned char *id, int id_len)
{
	int n = dwfl_module_getsymtab(mod);
	struct symidx *x;
	size_t names_len = 0, names_cap = 0;

	if (n <= 0)
		return NULL;
	x = xcalloc(1, sizeof(*x));
	memcpy(x->id, id, id_len);
	x->id_len = id_len;
	x->e = xcalloc(n, sizeof(*x->e));
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		Dwarf_Addr bias = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info);
		struct symidx_ent *e = &x->e[x->n];
		size_t l;

		if (!name || !name[0] || shndx == SHN_UNDEF || addr < mod_start ||
		    type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		l = strlen(name) + 1;
		if (names_len + l > names_cap) {
			names_cap = (names_len + l) * 2;
			x->names = xrealloc(x->names, names_cap);
		}
		memcpy(x->names + names_len, name, l);
		e->name_off = names_len;
		names_len += l;
		e->start = addr - mod_start;
		e->size = sym.st_size;
		e->info = sym.st_info;
		e->ndx = i;
		e->st_value = sym.st_value;
		if (!sym.st_size) {
			/* a label names addresses of its own section only */
			Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
			GElf_Shdr sh;

			if (scn && gelf_getshdr(scn, &sh) && sh.sh_addr + bias >= mod_start)
				e->sect_end = sh.sh_addr + sh.sh_size + bias - mod_start;
		}
		x->n++;
	}
	qsort(x->e, x->n, sizeof(*x->e), cmp_symidx);
	for (size_t i = 0; i < x->n; i++) {
		uint64_t end = x->e[i].size ? x->e[i].start + x->e[i].size : 0;
		uint64_t prev = i ? x->e[i - 1].max_end : 0;

		x->e[i].max_end = end > prev ? end : prev;
	}
	return x;
}

static const struct symidx_ent *symidx_find(const struct symidx *x, uint64_t rel)
{
	size_t lo = 0, hi = x->n;
	const struct symidx_ent *label = NULL;

	while (lo < hi) {	/* first entry starting after rel */
		size_t mid = (lo + hi) / 2;

		if (x->e[mid].start <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct symidx_ent *e = &x->e[i];

		if (e->max_end <= rel)
			break;	/* no sized entry up to here contains rel */
		if (e->size && rel - e->start < e->size)
			return e;
	}
	/* a label: the nearest size-0 entry past the end of every sized one */
	if (lo > 0) {
		const struct symidx_ent *e = &x->e[lo - 1];
		uint64_t covered = lo > 1 ? x->e[lo - 2].max_end : 0;

		for (size_t i = lo; i-- > 0 && x->e[i].start == e->start;)
			if (!x->e[i].size) {
				label = &x->e[i];
				break;
			}
		if (label && label->start >= covered && rel < label->sect_end)
			return label;
	}
	return NULL;
}

const char *symbolizer__addrinfo(Dwfl_Module *mod, uint64_t addr, GElf_Off *off, GElf_Sym *sym)
{
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	Dwarf_Addr start = 0;
	int id_len = dwfl_module_build_id(mod, &id, &id_vaddr);
	const struct symidx_ent *e;
	struct symidx *x;

	if (id_len <= 0 || id_len > 20)
		return dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL);
	dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	for (x = symidx_list; x; x = x->next)
		if (x->id_len == id_len && !memcmp(x->id, id, id_len))
			break;
	if (!x) {
		x = symidx_build(mod, start, id, id_len);
		if (!x)
			return dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL);
		x->next = symidx_list;
		symidx_list = x;
	}
	if (addr < start || !(e = symidx_find(x, addr - start)))
		return NULL;
	if (sym) {
		memset(sym, 0, sizeof(*sym));
		sym->st_value = e->st_value;
		sym->st_size = e->size;
		sym->st_info = e->info;
	}
	if (off)
		*off = addr - (start + e->start);
	return x->names + e->name_off;
}

static unsigned int cache_hash(const unsigned char *id, int len, uint64_t rel)
{
	uint64_t h = rel * 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < len; i++)
		h = (h ^ id[i]) * 0x100000001b3ULL;
	return (unsigned int)(h >> 20) % CACHE_BUCKETS;
}

static void copy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= len)
		n = len - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Appends K bytes of *P to OUT (N used of LEN) and moves *P past them; false: no room. */
static bool put(char *out, size_t len, size_t *n, const char **p, size_t k)
{
	if (*n + k >= len)
		return false;
	memcpy(out + *n, *p, k);
	*n += k;
	*p += k;
	return true;
}

/*
 * A demangled C++ name without its template arguments, parameters, return
 * type and qualifiers: "std::vector::_M_realloc_insert", "ns::Foo::operator()".
 * The table cells hold 30 characters; file:line tells overloads apart.
 */
void symbolizer__simplify_cxx(const char *in, char *out, size_t len)
{
	size_t n = 0, cut = 0;
	int angle = 0;

	if (!len)
		return;
	for (const char *p = in; *p && n + 1 < len;) {
		if (!angle && !strncmp(p, "operator", 8) && (p == in || !isalnum((unsigned char)p[-1]) ||
							   p[-1] == ':') &&
		    !isalnum((unsigned char)p[8]) && p[8] != '_') {
			/* the operator's own symbol: "operator<<", "operator()", "operator new[]" */
			size_t k = 8;

			if (!strncmp(p + k, "()", 2) || !strncmp(p + k, "[]", 2))
				k += 2;
			else if (p[k] == ' ' && isalpha((unsigned char)p[k + 1]))
				for (k++; isalnum((unsigned char)p[k]) || p[k] == '_' || p[k] == '[' ||
					  p[k] == ']'; k++)
					;
			else
				while (k < 11 && p[k] && strchr("+-*/%^&|~!=<>,", p[k]))
					k++;
			if (!put(out, len, &n, &p, k))
				break;
			continue;
		}
		if (*p == '<') {
			angle++;
		} else if (*p == '>' && angle) {
			angle--;
		} else if (angle) {
			/* inside template arguments: dropped */
		} else if (*p == '{') {
			/* "{lambda(int)#1}": kept whole */
			const char *e = strchr(p, '}');

			if (!put(out, len, &n, &p, e ? (size_t)(e - p) + 1 : strlen(p)))
				break;
			continue;
		} else if (*p == '(') {
			const char *q = p;
			int depth = 0;

			if (!strncmp(p, "(anonymous namespace)", 21)) {
				if (!put(out, len, &n, &p, 21))
					break;
				continue;
			}
			/* the parameters: the end, unless a scope follows ("f()::Local") */
			do {
				if (*q == '(')
					depth++;
				else if (*q == ')')
					depth--;
				q++;
			} while (*q && depth);
			if (strncmp(q, "::", 2))
				break;
			p = q;
			continue;
		} else if (*p == ' ') {
			/* "operator<< <T>" has a space before its arguments; else a return type ends */
			if (p[1] != '<')
				cut = n;
		} else {
			out[n++] = *p;
		}
		p++;
	}
	out[n] = '\0';
	if (cut && cut < n)
		memmove(out, out + cut, n - cut + 1);
}

static char *(*cxa_demangle)(const char *, char *, size_t *, int *);

static void demangler_load(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	if (h)
		*(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
	if (!cxa_demangle)
		pr_debug("no C++ demangler (libstdc++.so.6): C++ names stay mangled");
}

/* NAME, demangled and simplified when it is a C++ (Itanium ABI) name, into OUT. */
void symbolizer__name(char *out, size_t len, const char *name)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	char *d = NULL;
	int st = -1;

	if (name && name[0] == '_' && name[1] == 'Z') {
		pthread_once(&once, demangler_load);
		if (cxa_demangle)
			d = cxa_demangle(name, NULL, NULL, &st);
	}
	if (d && !st) {
		symbolizer__simplify_cxx(d, out, len);
		if (!out[0])
			copy(out, len, d);
	} else {
		copy(out, len, name);
	}
	free(d);
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *n;

	n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return n;
}

/*
 * The callers of inlined instances already found: finding one walks the
 * CU's DIEs up to the instance, which in a CU of a million DIEs (an
 * amalgamated sqlite3.c) is milliseconds; a hot loop's IPs share one
 * instance.  Keyed by the debug info and the instance's offset, emptied
 * when a session ends (its Dwarf may be reused at the same address).
 */
#define CALLER_CACHE 128
static __thread struct {
	const Dwarf *dw;
	Dwarf_Off off;
	char name[128];
} callers[CALLER_CACHE];
static __thread unsigned int next_caller;

static void callers_clear(void)
{
	memset(callers, 0, sizeof(callers));
	next_caller = 0;
}

/*
 * The function INST (an inlined instance) was inlined into: from the CU's
 * scope index X when there is one (NODE is INST there), else by a walk.
 */
static void caller_of(Dwarf_Die *inst, const struct scopeidx *x, int node, char *out, size_t len)
{
	const Dwarf *dw = dwarf_cu_getdwarf(inst->cu);
	Dwarf_Off off = dwarf_dieoffset(inst);
	Dwarf_Die *outer = NULL, die;
	unsigned int k;
	int m;

	if (x) {
		out[0] = '\0';
		if (!scopeidx__die(x, dwarf_cu_getdwarf(inst->cu), scopeidx__outer(x, node), &die))
			symbolizer__name(out, len, die_name(&die));
		return;
	}
	for (k = 0; k < CALLER_CACHE; k++)
		if (callers[k].dw == dw && callers[k].off == off) {
			copy(out, len, callers[k].name);
			return;
		}
	/*
	 * Past an inlined instance, dwarf_getscopes goes on with the scopes of
	 * its abstract definition (the CU): the caller is the next function
	 * out of the instance's own DIE.
	 */
	m = dwarf_getscopes_die(inst, &outer);
	out[0] = '\0';
	for (int i = 1; i < m; i++) {
		int tag = dwarf_tag(&outer[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			symbolizer__name(out, len, die_name(&outer[i]));
			break;
		}
	}
	free(outer);
	k = next_caller++ % CALLER_CACHE;
	callers[k].dw = dw;
	callers[k].off = off;
	copy(callers[k].name, sizeof(callers[k].name), out);
}

/*
 * The subprogram or inlined instance enclosing CUR (NODE in X, when there is
 * an index) into NEXT and *NEXT_NODE: its tag, or 0.
 */
static int outer_func(Dwarf_Die *cur, const struct scopeidx *x, int node, Dwarf_Die *next,
		      int *next_node)
{
	Dwarf_Die *outer = NULL;
	int m, tag = 0;

	if (x) {
		*next_node = scopeidx__outer(x, node);
		if (scopeidx__die(x, dwarf_cu_getdwarf(cur->cu), *next_node, next))
			return 0;
		return scopeidx__tag(x, *next_node);
	}
	m = dwarf_getscopes_die(cur, &outer);
	for (int k = 1; k < m; k++) {
		tag = dwarf_tag(&outer[k]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			*next = outer[k];
			break;
		}
		tag = 0;
	}
	free(outer);
	return tag;
}

/* A header of the compiler or the system (intrinsics, libc inlines): not the user's code. */
static bool is_system_header(const char *path)
{
	static const char *const dirs[] = { "/usr/include/", "/usr/lib/gcc/", "/usr/lib/llvm-",
					    "/usr/local/include/" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

/*
 * Code inlined from a system header (an intrinsic, a libc inline) is where
 * the user's code called it: from the inlined instance INST out, the call
 * site (DW_AT_call_file, DW_AT_call_line) of each instance while the line
 * is still in such a header, and the function that call is in.
 */
static void leave_system_headers(Dwarf_Die *cu, Dwarf_Die *inst, const struct scopeidx *x,
				 int node, struct sampling_loc *loc)
{
	Dwarf_Die cur = *inst;
	Dwarf_Files *files;
	size_t nfiles;

	if (!is_system_header(loc->file) || dwarf_getsrcfiles(cu, &files, &nfiles))
		return;
	for (int depth = 0; depth < 16 && is_system_header(loc->file); depth++) {
		Dwarf_Die next;
		Dwarf_Attribute a;
		Dwarf_Word fi, ln;
		const char *f;
		int tag, next_node = -1;

		if (dwarf_formudata(dwarf_attr(&cur, DW_AT_call_file, &a), &fi) ||
		    dwarf_formudata(dwarf_attr(&cur, DW_AT_call_line, &a), &ln) ||
		    fi >= nfiles || !(f = dwarf_filesrc(files, fi, NULL, NULL)))
			return;
		copy(loc->file, sizeof(loc->file), f);
		loc->line = (int)ln;
		/* the function the call is in: the next instance or subprogram out of CUR */
		tag = outer_func(&cur, x, node, &next, &next_node);
		if (!tag)
			return;
		symbolizer__name(loc->function, sizeof(loc->function), die_name(&next));
		if (tag == DW_TAG_subprogram) {
			loc->inlined_from[0] = '\0';
			return;
		}
		caller_of(&next, x, next_node, loc->inlined_from, sizeof(loc->inlined_from));
		cur = next;
		node = next_node;
	}
}

/* CU's scope index (of module MOD), built on its first address; NULL when it cannot be. */
static const struct scopeidx *cu_scopes(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Die *cu)
{
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int len = dwfl_module_build_id(mod, &id, &id_vaddr);
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct cu_scopes *c, **b;

	if (len <= 0 || len > 20)
		return NULL;
	if (!s->scopes)
		s->scopes = xcalloc(SCOPES_BUCKETS, sizeof(*s->scopes));
	b = &s->scopes[off % SCOPES_BUCKETS];
	for (c = *b; c; c = c->next)
		if (c->cu_off == off && c->id_len == len && !memcmp(c->id, id, len))
			return c->idx;
	c = xcalloc(1, sizeof(*c));
	memcpy(c->id, id, len);
	c->id_len = len;
	c->cu_off = off;
	c->idx = scopeidx__build(cu);
	c->next = *b;
	*b = c;
	return c->idx;
}

/* Inlined frames: the innermost scope names the function, the next one the caller. */
static void resolve_inline(struct symbolizer *s, Dwfl_Module *mod, uint64_t addr,
			   struct sampling_loc *loc)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	const struct scopeidx *x;
	Dwarf_Die *scopes = NULL, inst;
	int n, inner = -1;

	if (!cu)
		return;
	x = cu_scopes(s, mod, cu);
	if (x) {
		inner = scopeidx__innermost(x, addr - bias);
		if (scopeidx__tag(x, inner) != DW_TAG_inlined_subroutine ||
		    scopeidx__die(x, dwarf_cu_getdwarf(cu->cu), inner, &inst))
			return;
		symbolizer__name(loc->function, sizeof(loc->function), die_name(&inst));
		caller_of(&inst, x, inner, loc->inlined_from, sizeof(loc->inlined_from));
		leave_system_headers(cu, &inst, x, inner, loc);
		return;
	}
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = 0; i < n && inner < 0; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram)
			break;
		if (tag == DW_TAG_inlined_subroutine)
			inner = i;
	}
	if (inner >= 0) {
		symbolizer__name(loc->function, sizeof(loc->function), die_name(&scopes[inner]));
		caller_of(&scopes[inner], NULL, -1, loc->inlined_from, sizeof(loc->inlined_from));
		leave_system_headers(cu, &scopes[inner], NULL, -1, loc);
	}
	free(scopes);
}

static bool is_system_path(const char *path)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

static bool dwarf_loaded(struct symbolizer *s, const unsigned char *id, int len, bool add)
{
	for (int i = 0; i < s->nr_loaded; i++)
		if (s->loaded[i].len == len && !memcmp(s->loaded[i].id, id, len))
			return true;
	if (add && len > 0) {
		s->loaded = xrealloc(s->loaded, (s->nr_loaded + 1) * sizeof(*s->loaded));
		memcpy(s->loaded[s->nr_loaded].id, id, len);
		s->loaded[s->nr_loaded++].len = len;
	}
	return false;
}

bool symbolizer__dwarf_wanted(struct symbolizer *s, Dwfl_Module *mod)
{
	const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int id_len = dwfl_module_build_id(mod, &id, &id_vaddr);

	if (id_len > 20)
		id_len = 20;
	if (name && is_system_path(name) && !(id_len > 0 && dwarf_loaded(s, id, id_len, false)))
		return false;
	if (id_len > 0)
		dwarf_loaded(s, id, id_len, true);
	return true;
}

/* A lookup answered from cache entry E. */
static int cache_hit(struct symbolizer *s, const struct cache_entry *e, uint64_t ip,
		     struct sampling_loc *loc)
{
	*loc = e->loc;
	loc->ip = ip;
	s->hits++;
	return 0;
}

/* The cache entry for (ID, REL), or NULL; with LINES, only one that has lines. */
static struct cache_entry *cache_find(struct symbolizer *s, const unsigned char *id, int id_len,
				      uint64_t rel, bool return_addr, bool lines)
{
	for (struct cache_entry *e = s->cache[cache_hash(id, id_len, rel)]; e; e = e->next)
		if (e->rel == rel && e->build_id_len == id_len && e->return_addr == return_addr &&
		    !memcmp(e->build_id, id, id_len) && (e->lines || !lines))
			return e;
	return NULL;
}

/*
 * Whether DETAIL asks for lines in module NAME: a system library's line is
 * seldom what the user changes (its caller is) and its DWARF costs 100 ms to
 * decompress, so not unless loaded.
 */
static bool lines_wanted(struct symbolizer *s, enum sym_detail detail, const char *name,
			 const unsigned char *id, int id_len)
{
	if (detail == SYM_LINES && name && is_system_path(name))
		detail = SYM_LINES_IF_LOADED;
	return detail == SYM_LINES || detail == SYM_LINES_ALWAYS ||
	       (detail == SYM_LINES_IF_LOADED && id_len > 0 && dwarf_loaded(s, id, id_len, false));
}

int symbolizer__resolve(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
			bool return_addr, enum sym_detail detail, struct sampling_loc *loc)
{
	bool lines;
	uint64_t addr = return_addr && ip ? ip - 1 : ip;
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	Dwfl_Module *mod;
	Dwfl_Line *line;
	const char *name, *file;
	Dwarf_Addr rel = addr, start, bias = 0;
	const struct procmap *pm;
	struct cache_entry *e;
	unsigned char fid[FILEID_MAX];
	uint64_t frel = 0;
	unsigned int h = 0;
	int id_len, fid_len = 0, lno = 0;
	Dwfl *dwfl;

	memset(loc, 0, sizeof(*loc));
	loc->ip = ip;
	copy(loc->module, sizeof(loc->module), "[unknown]");
	if (!maps || !ip)
		return -ENOENT;
	current_maps = maps;
	pm = procmaps__find(maps, addr);
	/* no file behind it: libdwfl would blame a neighbouring module */
	if (pm && !strcmp(pm->path, "[vdso]")) {
		copy(loc->module, sizeof(loc->module), "[vdso]");
		vdso__resolve(pm->start, pm->end, addr, loc->function, sizeof(loc->function));
		loc->rel = addr - pm->start;
		return 0;
	}
	/* by the file's build-id: no libdwfl session for this process (see fileid.c) */
	if (fileid__file_addr(maps, pm, addr, fid, &fid_len, &frel)) {
		e = cache_find(s, fid, fid_len, frel, return_addr,
			       lines_wanted(s, detail, pm->path, fid, fid_len));
		if (e)
			return cache_hit(s, e, ip, loc);
	} else {
		fid_len = 0;
	}
	dwfl = space_dwfl(s, maps);
	mod = dwfl ? dwfl_addrmodule(dwfl, addr) : NULL;
	if (!mod) {
		if (pm && pm->path[0])
			copy(loc->module, sizeof(loc->module), pm->path);
		return pm ? 0 : -ENOENT;
	}
	name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	if (name)
		copy(loc->module, sizeof(loc->module), path_basename(name));
	/* the address as in the ELF file (not dwfl_module_relocate_address: it loads DWARF) */
	if (dwfl_module_getelf(mod, &bias))
		rel = addr - bias;
	else
		rel = addr - start;
	loc->rel = rel;
	id_len = dwfl_module_build_id(mod, &id, &id_vaddr);
	if (id_len > 20)
		id_len = 20;
	/* the file's own reading must agree with libdwfl's, or it is not used */
	if (fid_len && (fid_len != id_len || frel != rel || memcmp(fid, id, (size_t)id_len)))
		fileid__distrust(pm);
	lines = lines_wanted(s, detail, name, id, id_len);
	if (id_len > 0) {
		h = cache_hash(id, id_len, rel);
		e = cache_find(s, id, id_len, rel, return_addr, lines);
		if (e)
			return cache_hit(s, e, ip, loc);
	}

	symbolizer__name(loc->function, sizeof(loc->function),
		  symbolizer__addrinfo(mod, addr, NULL, NULL));
	if (lines) {
		if (id_len > 0)
			dwarf_loaded(s, id, id_len, true);
		line = dwfl_module_getsrc(mod, addr);
		if (line) {
			file = dwfl_lineinfo(line, NULL, &lno, NULL, NULL, NULL);
			copy(loc->file, sizeof(loc->file), file);
			loc->line = lno;
		}
		resolve_inline(s, mod, addr, loc);
	}
	if (!loc->function[0]) {
		char buf[64];

		snprintf(buf, sizeof(buf), "+0x%llx", (unsigned long long)rel);
		copy(loc->function, sizeof(loc->function) - strlen(buf), loc->module);
		strcat(loc->function, buf);
	}

	if (id_len > 0) {
		e = xcalloc(1, sizeof(*e));
		memcpy(e->build_id, id, id_len);
		e->build_id_len = id_len;
		e->rel = rel;
		e->return_addr = return_addr;
		e->lines = lines;
		e->loc = *loc;
		e->next = s->cache[h];
		s->cache[h] = e;
	}
	return 0;
}

int symbolizer__site(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
		     bool lines, struct sym_site *site)
{
	Dwfl *dwfl = symbolizer__dwfl(s, maps);
	Dwfl_Module *mod = dwfl && ip ? dwfl_addrmodule(dwfl, ip) : NULL;
	struct sampling_loc loc;
	const char *name;
	Dwarf_Addr start, bias = 0;
	GElf_Off off;
	GElf_Sym sym;
	size_t n;

	memset(site, 0, sizeof(*site));
	if (!mod)
		return -ENOENT;
	name = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	if (name)
		copy(site->module, sizeof(site->module), path_basename(name));
	site->rel = dwfl_module_getelf(mod, &bias) ? ip - bias : ip - start;
	name = symbolizer__addrinfo(mod, ip, &off, &sym);
	if (name) {
		symbolizer__name(site->function, sizeof(site->function), name);
		site->func_start = ip - off;
		site->func_size = sym.st_size;
	}
	if (lines && !symbolizer__resolve(s, maps, ip, false, SYM_LINES, &loc) &&
	    loc.file[0]) {
		copy(site->file, sizeof(site->file), loc.file);
		site->line = loc.line;
		/* the symbol's name without a clone's suffix (.part.0, .isra.0) */
		n = strcspn(site->function, ".");
		if (loc.function[0] &&
		    (strncmp(loc.function, site->function, n) || loc.function[n]))
			copy(site->inlined, sizeof(site->inlined), loc.function);
	}
	return 0;
}

/* The bytes of the module's file at vaddr [A, A + LEN) from an executable section. */
static const unsigned char *code_bytes(Elf *elf, uint64_t a, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		if (a < sh.sh_addr || a + len > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || a - sh.sh_addr + len > d->d_size)
			return NULL;
		return (const unsigned char *)d->d_buf + (a - sh.sh_addr);
	}
	return NULL;
}

int symbolizer__code(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
		     uint8_t *buf, size_t max)
{
	/* from the file itself: no libdwfl session for this process (see fileid.c) */
	int got = maps && ip ? fileid__code(maps, procmaps__find(maps, ip), ip, buf, max) : -ENOENT;
	Dwfl *dwfl = got < 0 && maps && ip ? symbolizer__dwfl(s, maps) : NULL;
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, ip) : NULL;
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	Elf_Scn *scn = NULL;

	if (got > 0)
		return got;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		uint64_t a = ip - bias;
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || a < sh.sh_addr || a >= sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || a - sh.sh_addr >= d->d_size)
			return -ENOENT;
		n = d->d_size - (a - sh.sh_addr);
		if (n > max)
			n = max;
		memcpy(buf, (const uint8_t *)d->d_buf + (a - sh.sh_addr), n);
		return (int)n;
	}
	return -ENOENT;
}

/*
 * The sweeps of the functions decoded last, by the bytes they were decoded
 * from: a sweep is a function of the bytes alone, so a later address in the
 * same function whose bytes up to it match is answered from the boundaries
 * (the sampler decodes each distinct IP of a hot function from its start).
 * sqlite3's script has its 740 decoded IPs in about 100 functions,
 * interleaved: 8 sweeps kept were swept again 330 times, 64 about once each.
 */
#define SWEEP_CACHE 64
static __thread struct sweep {
	uint64_t start;		/* func_start */
	uint8_t *bytes;		/* [start, start + len) as decoded */
	size_t len;
	uint64_t *insn;		/* the instruction starts, then the end of the last decoded */
	size_t n;
} sweeps[SWEEP_CACHE];
static __thread unsigned int next_sweep;

static const struct sweep *sweep_find(const uint8_t *code, uint64_t code_addr,
				      uint64_t func_start, uint64_t ip)
{
	for (int k = 0; k < SWEEP_CACHE; k++) {
		const struct sweep *w = &sweeps[k];

		if (w->bytes && w->start == func_start && ip - func_start <= w->len &&
		    !memcmp(w->bytes, code + (func_start - code_addr), ip - func_start))
			return w;
	}
	return NULL;
}

int symbolizer__prev_insn_in(const uint8_t *code, uint64_t code_addr, uint64_t func_start,
			     uint64_t ip, uint64_t *prev)
{
	return ip > code_addr ? symbolizer__prev_insn_span(code, code_addr, ip - code_addr, func_start,
							   ip, prev) : -ENOENT;
}

int symbolizer__prev_insn_span(const uint8_t *code, uint64_t code_addr, size_t code_len,
			       uint64_t func_start, uint64_t ip, uint64_t *prev)
{
#if defined(__x86_64__)
	const struct sweep *w;
	struct sweep *nw;
	size_t lo, hi, cap = 0;

	if (func_start < code_addr || func_start >= ip || ip > code_addr + code_len)
		return -ENOENT;
	w = sweep_find(code, code_addr, func_start, ip);
	if (!w) {
		nw = &sweeps[next_sweep++ % SWEEP_CACHE];
		nw->start = func_start;
		/* all the bytes given: a later IP of the function finds its sweep here */
		nw->len = code_addr + code_len - func_start;
		nw->bytes = xrealloc(nw->bytes, nw->len);
		memcpy(nw->bytes, code + (func_start - code_addr), nw->len);
		nw->n = 0;
		/* the decoder's cache: the sampler sweeps the same function next */
		if (decode__insn_starts(nw->bytes, nw->len, func_start, &nw->insn, &nw->n, &cap)) {
			free(nw->bytes);	/* not a sweep */
			nw->bytes = NULL;
			nw->len = 0;
			return -ENOTSUP;
		}
		w = nw;
	}
	/* every byte decoded and the last instruction ends at ip: ip is a start past the first */
	lo = 1;
	hi = w->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->insn[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= w->n || w->insn[lo] != ip)
		return -ENOENT;
	*prev = w->insn[lo - 1];
	return 0;
#else
	(void)code; (void)code_addr; (void)code_len; (void)func_start; (void)ip; (void)prev;
	return -ENOTSUP;
#endif
}

/* Decodes LEN bytes of CODE (at file address START) into F's instruction starts. */
static int func_insns_decode(struct func_insns *f, const uint8_t *code, uint64_t start,
			     uint64_t len)
{
	size_t cap = 0;
	int err;

	/* the decoder's one handle and its lock: the symbolizer serves several threads */
	f->n = 0;
	err = decode__insn_starts(code, len, start, &f->insn, &f->n, &cap);
	if (err)
		return err;
	f->start = start;
	f->len = len;
	return 0;
}

/* The decoded function at file address A (LEN bytes at least), from the cache or decoded now. */
static const struct func_insns *func_insns(struct symbolizer *s, Dwfl_Module *mod, Elf *elf,
					   uint64_t a, uint64_t len, uint64_t size)
{
	const unsigned char *id = NULL, *code;
	GElf_Addr id_vaddr;
	int id_len = dwfl_module_build_id(mod, &id, &id_vaddr);
	struct func_insns *f, **b;

	if (id_len <= 0 || id_len > 20)
		return NULL;
	if (!s->funcs)
		s->funcs = xcalloc(SCOPES_BUCKETS, sizeof(*s->funcs));
	b = &s->funcs[(a >> 4) % SCOPES_BUCKETS];
	for (f = *b; f; f = f->next)
		if (f->start == a && f->id_len == id_len && !memcmp(f->id, id, id_len))
			break;
	if (f && f->len >= len)
		return f;
	/* the whole symbol when its bytes are at hand, else up to the address */
	if (size > len && size <= 65536 && (code = code_bytes(elf, a, size)))
		len = size;
	else if (!(code = code_bytes(elf, a, len)))
		return NULL;
	if (!f) {
		f = xcalloc(1, sizeof(*f));
		memcpy(f->id, id, id_len);
		f->id_len = id_len;
		f->next = *b;
		*b = f;
	}
	if (func_insns_decode(f, code, a, len)) {
		f->n = 0;
		f->len = 0;
		return NULL;
	}
	return f;
}

static int prev_insn_dwfl(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
			  uint64_t *prev, uint64_t *rel)
{
	const struct func_insns *f;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	GElf_Off off;
	GElf_Sym sym;
	uint64_t a;
	size_t lo, hi;
	Elf *elf;
	Dwfl *dwfl;

	dwfl = symbolizer__dwfl(s, maps);
	mod = dwfl ? dwfl_addrmodule(dwfl, ip) : NULL;
	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)))
		return -ENOENT;
	*rel = ip - bias;
	if (!symbolizer__addrinfo(mod, ip, &off, &sym) || !off || off > 65536)
		return -ENOENT;
	a = ip - off - bias;	/* the function's start, as in the file */
	f = func_insns(s, mod, elf, a, off, sym.st_size);
	if (!f)
		return -ENOENT;
	/* the instruction ending at ip: the one before the start equal to it */
	lo = 1;
	hi = f->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->insn[mid] < a + off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= f->n || f->insn[lo] != a + off)
		return -ENOENT;
	*prev = f->insn[lo - 1] + bias;
	return 0;
}

int symbolizer__prev_insn(struct symbolizer *s, const struct procmaps *maps, uint64_t ip,
			  uint64_t *prev)
{
	const struct procmap *pm;
	struct prev_entry *pe;
	unsigned char fid[FILEID_MAX];
	uint64_t frel = 0, rel = 0;
	unsigned int h = 0;
	int fid_len = 0, err;

	if (!maps || !ip)
		return -ENOENT;
	/* by the file's build-id: the same code in every process that maps it */
	pm = procmaps__find(maps, ip);
	if (fileid__file_addr(maps, pm, ip, fid, &fid_len, &frel)) {
		h = cache_hash(fid, fid_len, frel);
		for (pe = s->prevs[h]; pe; pe = pe->next)
			if (pe->rel == frel && pe->id_len == fid_len && !memcmp(pe->id, fid, fid_len)) {
				if (!pe->back)
					return -ENOENT;
				*prev = ip - pe->back;
				return 0;
			}
	} else {
		fid_len = 0;
	}
	err = prev_insn_dwfl(s, maps, ip, prev, &rel);
	if (!fid_len)
		return err;
	if (rel != frel) {
		/* libdwfl placed the file otherwise: ask it from now on */
		fileid__distrust(pm);
		return err;
	}
	pe = xcalloc(1, sizeof(*pe));
	memcpy(pe->id, fid, (size_t)fid_len);
	pe->id_len = fid_len;
	pe->rel = frel;
	pe->back = err ? 0 : ip - *prev;
	pe->next = s->prevs[h];
	s->prevs[h] = pe;
	return err;
}
