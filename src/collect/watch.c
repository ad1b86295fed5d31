// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardware watchpoints on members of globals: placement (symbol + DWARF
 * member offset + the PIE load bias), per-thread and per-IP hit counts, and
 * the cache-line view that shows false sharing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "collect/collector.h"
#include "collect/evring.h"
#include "base/log.h"
#include "symbols/procmaps.h"
#include "machine/sysinfo.h"
#include "base/util.h"
#include "collect/watch.h"

/* --- resolving SYMBOL.member ---------------------------------------------- */

static int fit_len(uint64_t addr, uint64_t size)
{
	int len = 8;

	while (len > 1 && ((uint64_t)len > size || addr % len))
		len /= 2;
	return len;
}

static int find_symbol(Elf *elf, const char *name, GElf_Sym *out)
{
	Elf_Scn *scn = NULL;
	int found = -ENOENT;

	for (int pass = 0; pass < 2 && found; pass++) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *n;

				if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
					continue;
				n = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (n && !strcmp(n, name) && GELF_ST_TYPE(sym.st_info) == STT_OBJECT) {
					*out = sym;
					found = 0;
					break;
				}
			}
		}
	}
	return found;
}

static void fill(struct watch_spec *s, const char *name, uint64_t addr, uint64_t size,
		 bool link_time, bool rw, int member_off)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%.127s", name);
	s->addr = addr;
	s->link_time = link_time;
	s->rw = rw;
	s->len = fit_len(addr, size ? size : 8);
	s->member_off = member_off;
	s->member_size = (int)size;
}

int watch__resolve(const char *exe, const char *expr, struct watch_spec *out, int max,
		   char *err, size_t err_len)
{
	char buf[256], *colon, *dot, *path[8];
	int npath = 0, fd = -1, rc = 0, n = 0;
	bool rw = false, link_time;
	Elf *elf = NULL;
	Dwarf *dw = NULL;
	GElf_Ehdr eh;
	GElf_Sym sym = { 0 };
	Dwarf_Die type;
	uint64_t off = 0, size = 0;

	snprintf(buf, sizeof(buf), "%s", expr);
	colon = strrchr(buf, ':');
	if (colon) {
		if (strcmp(colon, ":rw") && strcmp(colon, ":w")) {
			snprintf(err, err_len, "unknown access '%s' (use :w or :rw)", colon + 1);
			return -EINVAL;
		}
		rw = !strcmp(colon, ":rw");
		*colon = '\0';
	}
	if (!strncmp(buf, "0x", 2)) {
		char *slash = strchr(buf, '/');
		uint64_t addr, len = 8;

		if (slash)
			*slash = '\0';
		if (parse_u64(buf, &addr) || (slash && (parse_u64(slash + 1, &len) ||
							 (len != 1 && len != 2 && len != 4 && len != 8))) ||
		    addr % len) {
			snprintf(err, err_len, "bad address '%s' (0xADDR[/1|2|4|8], aligned)", expr);
			return -EINVAL;
		}
		fill(&out[0], buf, addr, len, false, rw, -1);
		return 1;
	}
	for (char *p = buf; p && npath < 8; p = dot) {
		dot = strchr(p, '.');
		if (dot)
			*dot++ = '\0';
		if (!*p) {
			snprintf(err, err_len, "bad name '%s' (SYMBOL[.member...][:rw])", expr);
			return -EINVAL;
		}
		path[npath++] = p;
	}
	if (!exe) {
		snprintf(err, err_len, "the executable is unknown");
		return -ENOENT;
	}
	elf_version(EV_CURRENT);
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)) || !gelf_getehdr(elf, &eh)) {
		snprintf(err, err_len, "cannot read '%s' as ELF", exe);
		rc = -ENOEXEC;
		goto out;
	}
	link_time = eh.e_type == ET_DYN;
	if (find_symbol(elf, path[0], &sym)) {
		snprintf(err, err_len, "no global variable '%s' in %s", path[0], exe);
		rc = -ENOENT;
		goto out;
	}
	size = sym.st_size;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (npath > 1 || (dw && addrsym__var_type(dw, path[0], &type))) {
		if (!dw || !addrsym__var_type(dw, path[0], &type)) {
			snprintf(err, err_len, "no debug information for '%s' in %s (build with -g)",
				 path[0], exe);
			rc = -ENOENT;
			goto out;
		}
		for (int i = 1; i < npath; i++) {
			uint64_t moff;
			Dwarf_Die mt;
			int tag = dwarf_tag(&type);

			if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
			     tag != DW_TAG_class_type) ||
			    !addrsym__find_member(&type, path[i], &moff, &mt)) {
				snprintf(err, err_len, "'%s' has no member '%s'", path[i - 1], path[i]);
				rc = -ENOENT;
				goto out;
			}
			off += moff;
			type = mt;
		}
		Dwarf_Word sz;

		if (dwarf_aggregate_size(&type, &sz) == 0)
			size = sz;
	}
	if (npath == 1 && dw && addrsym__var_type(dw, path[0], &type) &&
	    (dwarf_tag(&type) == DW_TAG_structure_type || dwarf_tag(&type) == DW_TAG_class_type)) {
		Dwarf_Die child;

		/* a whole struct: each member (up to max) */
		if (dwarf_child(&type, &child) == 0) {
			do {
				const char *mn = dwarf_diename(&child);
				uint64_t moff;
				Dwarf_Die mt;
				Dwarf_Word sz;
				char name[128];

				if (dwarf_tag(&child) != DW_TAG_member || !mn ||
				    !addrsym__member_offset(&child, &moff) || !addrsym__die_type(&child, &mt) ||
				    dwarf_aggregate_size(&mt, &sz))
					continue;
				if (n == max)
					break;
				snprintf(name, sizeof(name), "%.60s.%.60s", path[0], mn);
				fill(&out[n++], name, sym.st_value + moff, sz, link_time, rw, (int)moff);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		if (n)
			goto out;
	}
	{
		char name[128];

		snprintf(name, sizeof(name), "%s", expr);
		if (colon)
			name[colon - buf] = '\0';
		fill(&out[n++], name, sym.st_value + off, size, link_time, rw,
		     npath > 1 ? (int)off : -1);
	}
out:
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc ? rc : n;
}

int watch__load_bias(pid_t pid, const char *exe, uint64_t *bias)
{
	char real[PATH_MAX];
	struct procmaps *m;
	uint64_t lowest = UINT64_MAX, first_vaddr = UINT64_MAX;
	int fd, rc = -ENOENT;
	Elf *elf;
	GElf_Ehdr eh;
	size_t nph;

	if (!realpath(exe, real))
		return -errno;
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph)) {
		rc = -ENOEXEC;
		goto out;
	}
	if (eh.e_type == ET_EXEC) {
		*bias = 0;
		rc = 0;
		goto out;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < first_vaddr)
			first_vaddr = ph.p_vaddr;
	}
	m = procmaps__capture(pid, false);
	for (int i = 0; m && i < m->n; i++)
		if (!strcmp(m->v[i].path, real) && m->v[i].start < lowest)
			lowest = m->v[i].start;
	procmaps__free(m);
	if (lowest != UINT64_MAX && first_vaddr != UINT64_MAX) {
		*bias = lowest - (first_vaddr & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1));
		rc = 0;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

/* --- the collector ---------------------------------------------------------- */

struct watch;

struct point_state {
	struct watch *w;
	int idx;
	struct evring *ring;
	struct perf_event_attr attr;
	uint64_t link_addr;
};

struct watch {
	pid_t pid;
	char exe[PATH_MAX];
	bool pending_bias;
	uint64_t t_open, limit;
	struct point_state ps[WATCH_MAX];
	struct watch_report rep;
	bool resolved;
	bool auto_mode;		/* fill free slots with what sampling proposes */
	struct run_shared *shared;	/* where it proposes them, with auto_mode */
	int next_proposal;
};

static void note_hit(struct watch_point *p, int tid, uint64_t ip)
{
	int k;

	p->hits++;
	for (k = 0; k < p->nr_threads && p->threads[k].tid != tid; k++)
		;
	if (k == p->nr_threads) {
		if (k < WATCH_MAX_THREADS) {
			p->threads[k].tid = tid;
			p->nr_threads++;
		} else {
			p->more_threads = true;
		}
	}
	if (k < WATCH_MAX_THREADS)
		p->threads[k].hits++;
	for (k = 0; k < p->nr_ips && p->ips[k].ip != ip; k++)
		;
	if (k == p->nr_ips && k < WATCH_MAX_IPS) {
		p->ips[k].ip = ip;
		p->nr_ips++;
	}
	if (k < WATCH_MAX_IPS)
		p->ips[k].hits++;
}

static void on_hit(void *ctx, const struct perf_event_header *h)
{
	struct point_state *ps = ctx;
	const uint64_t *p = (const void *)(h + 1);
	struct watch_point *pt = &ps->w->rep.pts[ps->idx];

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + 3 * sizeof(uint64_t))
		return;
	ps->w->rep.total_hits++;
	note_hit(pt, (int)(p[1] >> 32), p[0]);
}

/* Opens watchpoint i on pid (and, attached, on its running threads). 0 or -errno. */
static int arm_point(struct watch *w, int i, const struct watch_spec *spec, pid_t pid,
		     bool launched, uint64_t bias)
{
	struct point_state *ps = &w->ps[i];
	struct watch_point *pt = &w->rep.pts[i];
	char err[160] = "";

	pt->spec = *spec;
	pt->pid = pid;
	ps->w = w;
	ps->idx = i;
	ps->link_addr = spec->addr;
	if (spec->link_time && !w->pending_bias)
		pt->spec.addr = spec->addr + bias;
	ps->attr = (struct perf_event_attr){
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(struct perf_event_attr),
		.bp_type = spec->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W,
		/* until the PIE base is known: the link-time address, unmapped */
		.bp_addr = pt->spec.addr,
		.bp_len = spec->len,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = launched,
		.enable_on_exec = launched,
	};
	ps->ring = evring__open(&ps->attr, pid, 4, err, sizeof(err));
	if (!ps->ring) {
		snprintf(pt->why, sizeof(pt->why), "%s", err);
		return -ENOSPC;
	}
	if (!launched)
		evring__add_threads(ps->ring, &ps->attr, pid);
	pt->armed = !(spec->link_time && w->pending_bias);
	if (pt->armed)
		pt->armed_after_ns = now_ns() - w->t_open;
	return 0;
}

/* --- automatic placement: lines that sampling saw written by two threads --- */

bool watch__auto(const struct run_shared *sh)
{
	return sh && sh->watch_auto;
}

void watch__propose(struct run_shared *sh, pid_t pid, uint64_t addr, int len, const char *name)
{
	struct watch_spec *sp;

	if (!watch__auto(sh) || sh->nr_watch_proposals == WATCH_MAX)
		return;
	for (int i = 0; i < sh->nr_watch_proposals; i++)
		if (sh->watch_proposals[i].pid == pid && sh->watch_proposals[i].spec.addr == addr)
			return;
	sp = &sh->watch_proposals[sh->nr_watch_proposals].spec;
	memset(sp, 0, sizeof(*sp));
	if (name && *name)
		snprintf(sp->name, sizeof(sp->name), "%.127s", name);
	else
		snprintf(sp->name, sizeof(sp->name), "0x%" PRIx64, addr);
	sp->addr = addr;
	sp->len = fit_len(addr, len > 0 ? (uint64_t)len : 8);
	sp->member_off = -1;
	sp->member_size = len;
	sp->automatic = true;
	sh->watch_proposals[sh->nr_watch_proposals++].pid = pid;
}

/* Arms what sampling proposed, in the slots left. */
static void arm_proposals(struct watch *w)
{
	while (w->auto_mode && w->next_proposal < w->shared->nr_watch_proposals &&
	       w->rep.nr < WATCH_MAX) {
		const struct watch_proposal *p = &w->shared->watch_proposals[w->next_proposal];
		int i = w->rep.nr++;

		arm_point(w, i, &p->spec, p->pid, false, 0);
		w->next_proposal++;
	}
}

struct watch *watch__open(pid_t pid, const char *exe, const struct watch_spec *specs, int n,
			  bool launched, char *why, size_t why_len)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	uint64_t bias = 0;
	int armed = 0;

	w->pid = pid;
	w->t_open = now_ns();
	w->limit = WATCH_HIT_LIMIT;
	w->rep.tier = TIER_WATCHPOINT;
	w->rep.hit_limit = w->limit;
	if (exe)
		snprintf(w->exe, sizeof(w->exe), "%s", exe);
	if (n > WATCH_MAX)
		n = WATCH_MAX;
	for (int i = 0; i < n; i++)
		if (specs[i].link_time)
			w->pending_bias = true;
	/* Attached: the process runs already, its load bias is known now. */
	if (w->pending_bias && !launched) {
		if (!exe || watch__load_bias(pid, exe, &bias)) {
			snprintf(why, why_len, "cannot find the load address of %s",
				 exe ? exe : "the executable");
			free(w);
			errno = ENOENT;
			return NULL;
		}
		w->pending_bias = false;
	}
	w->rep.nr = n;
	for (int i = 0; i < n; i++)
		armed += !arm_point(w, i, &specs[i], pid, launched, bias);
	if (n && !armed) {
		snprintf(why, why_len, "no watchpoint could be placed: %s", w->rep.pts[0].why);
		watch__close(w);
		errno = ENOSPC;
		return NULL;
	}
	if (!w->pending_bias)
		w->rep.armed_after_ns = 0;
	return w;
}

/* After exec: move the watchpoints to the run-time addresses (children follow). */
static void place(struct watch *w)
{
	uint64_t bias;

	if (!w->pending_bias || !w->exe[0] || watch__load_bias(w->pid, w->exe, &bias))
		return;
	w->pending_bias = false;
	w->rep.armed_after_ns = now_ns() - w->t_open;
	for (int i = 0; i < w->rep.nr; i++) {
		struct point_state *ps = &w->ps[i];
		struct watch_point *pt = &w->rep.pts[i];
		int rc;

		if (!ps->ring || !pt->spec.link_time)
			continue;
		pt->spec.addr = ps->link_addr + bias;
		ps->attr.bp_addr = pt->spec.addr;
		/*
		 * The kernel cleared enable_on_exec at the exec, and a modified
		 * breakpoint takes 'disabled' from the new attr: enabled now.
		 */
		ps->attr.enable_on_exec = 0;
		ps->attr.disabled = 0;
		rc = evring__ioctl(ps->ring, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &ps->attr);
		if (rc)
			snprintf(pt->why, sizeof(pt->why), "cannot move the watchpoint: %s",
				 strerror(-rc));
		else
			pt->armed = true;
		pt->armed_after_ns = w->rep.armed_after_ns;
	}
}

static void drain(struct watch *w)
{
	for (int i = 0; i < w->rep.nr; i++) {
		struct watch_point *pt = &w->rep.pts[i];

		evring__drain(w->ps[i].ring, on_hit, &w->ps[i]);
		if (pt->stopped || pt->hits < w->limit)
			continue;
		evring__enable(w->ps[i].ring, false);
		pt->stopped = true;
		w->rep.limited = true;
		evring__drain(w->ps[i].ring, on_hit, &w->ps[i]);
	}
}

int watch__poll(struct watch *w)
{
	place(w);
	arm_proposals(w);
	drain(w);
	return 0;
}

static void resolve_ips(struct watch *w)
{
	struct procmaps *maps;
	struct symbolizer *sym;

	if (w->resolved)
		return;
	maps = procmaps__capture(w->pid, false);
	if (!maps)
		return;
	sym = symbolizer__new();
	w->resolved = true;
	for (int i = 0; i < w->rep.nr; i++)
		for (int k = 0; k < w->rep.pts[i].nr_ips && w->rep.pts[i].pid == w->pid; k++)
			/* the IP is after the access: ip - 1 is inside the accessing instruction */
			symbolizer__site(sym, maps, w->rep.pts[i].ips[k].ip - 1, true,
					 &w->rep.pts[i].ips[k].loc);
	symbolizer__free(sym);
	procmaps__free(maps);
}

void watch__at_exit(struct watch *w)
{
	drain(w);
	resolve_ips(w);
}

static int cmp_thread_hits(const void *a, const void *b)
{
	const uint64_t x = ((const uint64_t *)a)[1], y = ((const uint64_t *)b)[1];

	return x < y ? 1 : x > y ? -1 : 0;
}

void watch_report__lines(struct watch_report *w, int line_size)
{
	w->nr_lines = 0;
	for (int i = 0; i < w->nr; i++) {
		uint64_t line = w->pts[i].spec.addr & ~(uint64_t)(line_size - 1);
		int l;

		if (!w->pts[i].armed)
			continue;
		for (l = 0; l < w->nr_lines && w->lines[l].line != line; l++)
			;
		if (l == w->nr_lines) {
			memset(&w->lines[l], 0, sizeof(w->lines[l]));
			w->lines[l].line = line;
			w->nr_lines++;
		}
		w->lines[l].points[w->lines[l].nr_points++] = i;
	}
	for (int l = 0; l < w->nr_lines; l++) {
		struct watch_line *wl = &w->lines[l];
		int tids[WATCH_MAX * WATCH_MAX_THREADS], nt = 0;

		for (int a = 0; a < wl->nr_points; a++) {
			const struct watch_point *pa = &w->pts[wl->points[a]];

			if (pa->nr_threads >= 2)
				wl->true_sharing = true;
			for (int k = 0; k < pa->nr_threads; k++) {
				int j;

				for (j = 0; j < nt && tids[j] != pa->threads[k].tid; j++)
					;
				if (j == nt)
					tids[nt++] = pa->threads[k].tid;
				/* another point of the line written by another thread */
				for (int b = 0; b < wl->nr_points; b++) {
					const struct watch_point *pb = &w->pts[wl->points[b]];

					if (b == a)
						continue;
					for (int q = 0; q < pb->nr_threads; q++)
						if (pb->threads[q].tid != pa->threads[k].tid)
							wl->false_sharing = true;
				}
			}
		}
		wl->writer_threads = nt;
	}
}

struct watch_report *watch__finish(struct watch *w)
{
	struct watch_report *r = xcalloc(1, sizeof(*r));
	int line = sysinfo__cacheline();

	drain(w);
	for (int i = 0; i < w->rep.nr; i++)
		evring__enable(w->ps[i].ring, false);
	resolve_ips(w);
	for (int i = 0; i < w->rep.nr; i++) {
		w->rep.lost += evring__lost(w->ps[i].ring);
		qsort(w->rep.pts[i].threads, w->rep.pts[i].nr_threads,
		      sizeof(w->rep.pts[i].threads[0]), cmp_thread_hits);
		qsort(w->rep.pts[i].ips, w->rep.pts[i].nr_ips, sizeof(w->rep.pts[i].ips[0]),
		      cmp_thread_hits);
		if (w->pending_bias && w->rep.pts[i].spec.link_time)
			snprintf(w->rep.pts[i].why, sizeof(w->rep.pts[i].why),
				 "the program's load address was never seen");
	}
	*r = w->rep;
	watch_report__lines(r, line > 0 && line <= 4096 ? line : 64);
	return r;
}

void watch__close(struct watch *w)
{
	if (!w)
		return;
	for (int i = 0; i < WATCH_MAX; i++)
		evring__close(w->ps[i].ring);
	free(w);
}

/* --- output ---------------------------------------------------------------- */

/* --- collector ops --------------------------------------------------------- */

bool watch__wants_auto(const char *const *exprs, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(exprs[i], "auto"))
			return true;
	return false;
}

int watch__check(const char *exe, const char *const *exprs, int n)
{
	struct watch_spec specs[WATCH_MAX];

	for (int i = 0; i < n; i++) {
		char err[200] = "";
		int rc;

		if (!strcmp(exprs[i], "auto"))
			continue;
		rc = watch__resolve(exe, exprs[i], specs, WATCH_MAX, err, sizeof(err));

		if (rc < 0) {
			pr_err("cannot watch '%s': %s", exprs[i], err);
			pr_hint(rc == -EINVAL ? "use VAR, VAR.member, VAR.member:rw or 0xADDR/LEN"
					      : "name a global variable of the program (built with -g "
						"for members), e.g. --watch counters.hits");
			return rc;
		}
	}
	return 0;
}

static bool w_wanted(const struct run_ctx *ctx)
{
	return ctx->nr_watch > 0 && ctx->sample;
}

static int w_open(void **state, const struct run_ctx *ctx, struct report *r)
{
	struct watch_spec specs[WATCH_MAX];
	char err[200] = "";
	int n = 0;
	struct watch *w;

	for (int i = 0; i < ctx->nr_watch; i++) {
		if (!strcmp(ctx->watch[i], "auto"))
			continue;
		int got = n < WATCH_MAX ? watch__resolve(ctx->exe, ctx->watch[i], specs + n,
							 WATCH_MAX - n, err, sizeof(err))
					: 0;

		if (got < 0) {
			report__add_provenance(r, "watchpoints", "'%s' not watched: %s",
					       ctx->watch[i], err);
			continue;
		}
		if (n + got > WATCH_MAX || (got == 0 && n == WATCH_MAX))
			report__add_provenance(r, "watchpoints", "only %d addresses can be "
					       "watched (x86 debug registers); '%s' dropped",
					       WATCH_MAX, ctx->watch[i]);
		n += got;
	}
	if (!n && !watch__auto(ctx->shared))
		return -EINVAL;
	w = watch__open(ctx->pid, ctx->exe, specs, n, !ctx->attached, err, sizeof(err));
	if (!w) {
		int e = errno;

		report__add_provenance(r, "watchpoints", "%s", err);
		return -e;
	}
	w->auto_mode = watch__auto(ctx->shared);
	w->shared = ctx->shared;
	*state = w;
	return 0;
}

/*
 * At the program's exec-stop (see run.c: a named --watch holds it there):
 * a PIE's globals move by its load address, and the watchpoints move with
 * them before the program runs.
 */
static void w_started(void *state)
{
	place(state);
}

static int w_poll(void *state)
{
	return watch__poll(state);
}

static void w_at_exit(void *state, pid_t pid)
{
	watch__at_exit(state);
}

static int w_finish(void *state, struct report *r)
{
	struct watch_report *wr = watch__finish(state);

	if (wr->limited)
		report__add_provenance(r, "watchpoints", "a point stops after %" PRIu64 " hits (each "
				       "traps, about 30 us): a stopped point's counts cover the "
				       "start of the run", wr->hit_limit);
	if (wr->lost)
		report__add_provenance(r, "watchpoints", "%" PRIu64 " hit records lost", wr->lost);
	watch_report__free(r->watch);
	r->watch = wr;
	return 0;
}

static void w_destroy(void *state)
{
	watch__close(state);
}

const struct collector collector_watch = {
	.name = "watch",
	.wanted = w_wanted,
	.open = w_open,
	.started = w_started,
	.poll = w_poll,
	.at_exit = w_at_exit,
	.finish = w_finish,
	.destroy = w_destroy,
};
