// SPDX-License-Identifier: GPL-2.0-only
/* The sampling section (hot code, faults, regions, huge pages) as JSON and text. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/sampling.h"
#include "report/output.h"
#include "base/json.h"
#include "base/util.h"

#define TOP_TEXT 10 /* rows of each table in the text output */

static void loc_json(struct json_object *o, const struct sampling_loc *l)
{
	json_add(o, "ip", json_hex(l->ip));
	json_add(o, "module", json_str(l->module));
	json_add(o, "function", json_str(l->function));
	if (l->inlined_from[0])
		json_add(o, "inlined_from", json_str(l->inlined_from));
	json_add(o, "file", json_str(l->file));
	json_add(o, "line", json_object_new_int(l->line));
}

static struct json_object *sum_json(const struct sampling_hotsum *s, int n, bool lines)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		if (s[i].tid)
			json_add(o, "tid", json_object_new_int(s[i].tid));
		json_add(o, "event", json_object_new_int(s[i].ev));
		json_add(o, "module", json_str(s[i].module));
		json_add(o, "function", json_str(s[i].function));
		if (lines && s[i].inlined_from[0])
			json_add(o, "inlined_from", json_str(s[i].inlined_from));
		json_add(o, "file", json_str(s[i].file));
		json_add(o, "line", json_object_new_int(s[i].line));
		json_add(o, "samples", json_u64(s[i].samples));
		json_add(o, "kernel_samples", json_u64(s[i].kernel_samples));
		json_add(o, "est_events", json_object_new_double(s[i].est_events));
		json_add(o, "share", json_object_new_double(s[i].share));
		json_object_array_add(a, o);
	}
	return a;
}

/* The sampled events: what was counted, how often, at which tier. */
static struct json_object *events_json(const struct sampling *p)
{
	struct json_object *a = json_object_new_array(), *x;

	for (int i = 0; i < p->nr_events; i++) {
		const struct sampling_event *e = &p->events[i];

		x = json_object_new_object();
		json_add(x, "name", json_str(e->name));
		json_add(x, "encoding", json_str(e->encoding));
		json_add(x, "unit", json_str(e->unit));
		json_add(x, "tier", json_str(tier__name(e->tier)));
		json_add(x, "precise", json_object_new_boolean(e->precise));
		json_add(x, "freq_hz", json_u64(e->freq_hz));
		if (!e->freq)
			json_add(x, "period", json_u64(e->period));
		json_add(x, "cpus", json_object_new_int(e->nr_cpus));
		json_add(x, "samples", json_u64(e->samples));
		json_add(x, "kernel_samples", json_u64(e->kernel_samples));
		json_add(x, "est_events", json_object_new_double(e->est_events));
		json_object_array_add(a, x);
	}
	return a;
}

/* The code locations the samples fell on, per process, thread and event. */
static struct json_object *hotspots_json(const struct sampling *p)
{
	struct json_object *a = json_object_new_array(), *x;

	for (int i = 0; i < p->nr_hot; i++) {
		const struct sampling_hotspot *h = &p->hot[i];

		x = json_object_new_object();
		json_add(x, "pid", json_object_new_int(h->pid));
		json_add(x, "tid", json_object_new_int(h->tid));
		json_add(x, "event", json_object_new_int(h->ev));
		loc_json(x, &h->loc);
		json_add(x, "charged_ip", json_hex(h->charged_ip));
		json_add(x, "samples", json_u64(h->samples));
		json_add(x, "kernel_samples", json_u64(h->kernel_samples));
		json_add(x, "est_events", json_object_new_double(h->est_events));
		json_object_array_add(a, x);
	}
	return a;
}

/* The sampled call stacks. */
static struct json_object *stacks_json(const struct sampling *p)
{
	struct json_object *a = json_object_new_array(), *x;

	for (int i = 0; i < p->nr_stacks; i++) {
		const struct sampling_stack *s = &p->stacks[i];
		struct json_object *fr = json_object_new_array();

		x = json_object_new_object();
		json_add(x, "pid", json_object_new_int(s->pid));
		json_add(x, "event", json_object_new_int(s->ev));
		json_add(x, "samples", json_u64(s->samples));
		json_add(x, "est_events", json_object_new_double(s->est_events));
		for (int f = 0; f < s->nr_frames; f++) {
			struct json_object *y = json_object_new_object();

			loc_json(y, &s->frames[f]);
			json_object_array_add(fr, y);
		}
		json_add(x, "frames", fr);
		json_object_array_add(a, x);
	}
	return a;
}

/*
 * The index of each region in JSON's profile.regions, -1 when not listed:
 * every region of the main process, and of the others those with something
 * measured in them or a fault site in them.  A shell loop of 300 short
 * commands maps 13000 regions, of which a handful fault: listing all of
 * them took 280 ms and 4 MB of JSON (regions_unlisted counts the rest).
 * *LISTED: how many are.
 */
static int *regions_json_index(const struct sampling *p, int *listed)
{
	int *idx = xcalloc(p->nr_regions ? p->nr_regions : 1, sizeof(*idx));

	for (int i = 0; i < p->nr_sites; i++)
		if (p->sites[i].region >= 0 && p->sites[i].region < p->nr_regions)
			idx[p->sites[i].region] = 1;
	*listed = 0;
	for (int i = 0; i < p->nr_regions; i++) {
		const struct sampling_region *r = &p->regions[i];

		if (idx[i] || !p->nr_procs || r->pid == p->procs[0].pid || r->faults || r->fault_samples || r->writes ||
		    r->major || r->rss || r->anon_huge)
			idx[i] = (*listed)++;
		else
			idx[i] = -1;
	}
	return idx;
}

/* The code locations that raised page faults. */
static struct json_object *fault_sites_json(const struct sampling *p, const int *idx)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < p->nr_sites; i++) {
		const struct sampling_fault_site *s = &p->sites[i];
		struct json_object *y = json_object_new_object();

		json_add(y, "pid", json_object_new_int(s->pid));
		json_add(y, "processes", json_object_new_int(s->nr_procs));
		json_add(y, "kernel_mode", json_object_new_boolean(s->kernel_mode));
		loc_json(y, &s->loc);
		json_add(y, "count", json_u64(s->count));
		json_add(y, "samples", json_u64(s->samples));
		json_add(y, "reads", json_u64(s->reads));
		json_add(y, "writes", json_u64(s->writes));
		json_add(y, "rw_unknown", json_u64(s->rw_unknown));
		json_add(y, "instr", json_u64(s->instr));
		if (p->major_measured) {
			json_add(y, "minor", json_u64(s->minor));
			json_add(y, "major", json_u64(s->major));
		}
		/* its index in profile.regions, which lists it */
		json_add(y, "region", json_object_new_int(s->region >= 0 && s->region < p->nr_regions
								  ? idx[s->region] : -1));
		json_object_array_add(a, y);
	}
	return a;
}

/* Page faults: totals, how they were sampled, the sites and the timeline. */
static struct json_object *faults_json(const struct sampling *p, const int *region_idx)
{
	struct json_object *x = json_object_new_object(), *a;

	json_add(x, "measured", json_object_new_boolean(p->faults_measured));
	json_add(x, "tier", json_str(tier__name(TIER_SOFTWARE)));
	if (p->faults_measured) {
		json_add(x, "total", json_u64(p->faults));
		json_add(x, "exact", json_object_new_boolean(p->faults_exact));
		json_add(x, "sample_hz", json_object_new_int((int)p->fault_hz));
		json_add(x, "samples", json_u64(p->fault_samples));
		json_add(x, "max_period", json_u64(p->fault_max_period));
		json_add(x, "estimated", json_u64(p->fault_est));
		json_add(x, "sampled_periods", json_u64(p->fault_periods));
		/* the event's windows: one for the whole run unless faults stormed */
		json_add(x, "windows", json_object_new_int(p->fault_windows));
		json_add(x, "open_ms", json_object_new_double(p->fault_open_ns / 1e6));
		json_add(x, "between_windows", json_u64(p->fault_gap_faults));
		json_add(x, "processes_unread", json_object_new_int(p->fault_gap_lost));
		json_add(x, "user_mode", json_u64(p->faults_user));
		json_add(x, "kernel_mode", json_u64(p->faults_kernel));
		json_add(x, "reads", json_u64(p->reads));
		json_add(x, "writes", json_u64(p->writes));
		json_add(x, "rw_unknown", json_u64(p->rw_unknown));
		if (p->major_measured) {
			json_add(x, "minor", json_u64(p->minor));
			json_add(x, "major", json_u64(p->major));
		}
		json_add(x, "sites", fault_sites_json(p, region_idx));
		json_add(x, "bucket_ns", json_u64(p->bucket_ns));
		a = json_object_new_array();
		for (int i = 0; i < p->nr_buckets; i++)
			json_object_array_add(a, json_u64(p->timeline[i].faults));
		json_add(x, "timeline", a);
		if (p->major_measured) {
			a = json_object_new_array();
			for (int i = 0; i < p->nr_buckets; i++)
				json_object_array_add(a, json_u64(p->timeline[i].major));
			json_add(x, "timeline_major", a);
		}
	}
	return x;
}

/* The mapped regions, with their faults and huge-page state. */
static struct json_object *regions_json(const struct sampling *p, const int *idx)
{
	struct json_object *a = json_object_new_array(), *x;

	for (int i = 0; i < p->nr_regions; i++) {
		const struct sampling_region *r = &p->regions[i];

		if (idx[i] < 0)
			continue;
		x = json_object_new_object();
		json_add(x, "pid", json_object_new_int(r->pid));
		json_add(x, "start", json_hex(r->start));
		json_add(x, "end", json_hex(r->end));
		json_add(x, "size", json_u64(r->size));
		json_add(x, "kind", json_str(sampling__region_kind_name(r->kind)));
		json_add(x, "allocation", json_str(sampling__region_alloc_name(r->alloc)));
		json_add(x, "perms", json_str(r->perms));
		json_add(x, "path", json_str(r->path));
		json_add(x, "at_exit", json_object_new_boolean(r->at_exit));
		if (p->faults_measured) {
			json_add(x, "faults", json_u64(r->faults));
			json_add(x, "writes", json_u64(r->writes));
			if (p->major_measured)
				json_add(x, "major", json_u64(r->major));
			json_add(x, "pages_faulted", json_u64(r->pages_faulted));
			json_add(x, "fault_samples", json_u64(r->fault_samples));
			if (r->pages_faulted)
				json_add(x, "faults_per_page",
					 json_object_new_double(sampling__faults_per_page(
						 r->fault_samples, r->pages_faulted,
						 r->fault_sampled, false)));
		}
		json_add(x, "aligned_2m", json_object_new_boolean(r->aligned_2m));
		json_add(x, "large", json_object_new_boolean(r->large));
		if (r->has_smaps) {
			json_add(x, "rss", json_u64(r->rss));
			json_add(x, "anon_huge", json_u64(r->anon_huge));
			if (r->thp_eligible >= 0)
				json_add(x, "thp_eligible",
					 json_object_new_boolean(r->thp_eligible));
			json_add(x, "madv_hugepage", json_object_new_boolean(r->madv_hugepage));
			json_add(x, "madv_nohugepage", json_object_new_boolean(r->madv_nohugepage));
		}
		json_object_array_add(a, x);
	}
	return a;
}

/* Transparent huge pages: the mode and khugepaged's work during the run. */
static struct json_object *thp_json(const struct sampling *p)
{
	struct json_object *x = json_object_new_object();

	json_add(x, "mode", json_str(p->thp_mode));
	json_add(x, "defrag", json_str(p->thp_defrag));
	if (p->thp_measured) {
		json_add(x, "khugepaged_scan_pmd", json_u64(p->thp.scan_pmd));
		json_add(x, "collapse_ok", json_u64(p->thp.collapse_ok));
		json_add(x, "collapse_failed", json_u64(p->thp.collapse_fail));
		json_add(x, "watched_from_s", json_object_new_double(p->thp_watch_from_ns / 1e9));
	}
	if (p->thp_unwatched_known) {
		/* anywhere on the system, while the programs were not attached */
		json_add(x, "unwatched_collapse_ok_system", json_u64(p->thp_unwatched.collapse_ok));
		json_add(x, "unwatched_collapse_failed_system",
			 json_u64(p->thp_unwatched.collapse_fail));
	}
	return x;
}

/* Every process of the run. */
static struct json_object *procs_json(const struct sampling *p)
{
	struct json_object *a = json_object_new_array(), *x;

	for (int i = 0; i < p->nr_procs; i++) {
		const struct sampler_proc *pr = &p->procs[i];

		x = json_object_new_object();
		json_add(x, "pid", json_object_new_int(pr->pid));
		json_add(x, "parent", json_object_new_int(pr->parent));
		json_add(x, "comm", json_str(pr->comm));
		json_add(x, "exe", pr->exe[0] ? json_str(pr->exe) : NULL);
		json_add(x, "execed", json_object_new_boolean(pr->execed));
		json_add(x, "exited", json_object_new_boolean(pr->exited));
		json_add(x, "maps", json_object_new_boolean(pr->maps));
		json_object_array_add(a, x);
	}
	return a;
}

/* What was lost, per cause. */
static struct json_object *loss_json(const struct sampling *p)
{
	struct json_object *x = json_object_new_object();

	/* null, not 0, where the collector that would count the loss did not run */
	json_add(x, "samples_hot_map_full", p->nr_events ? json_u64(p->loss.hot_full) : NULL);
	json_add(x, "samples_no_stack", p->nr_events ? json_u64(p->loss.stack_err) : NULL);
	json_add(x, "samples_stack_map_full", p->nr_events ? json_u64(p->loss.stack_full) : NULL);
	json_add(x, "samples_unresolved", p->nr_events ? json_u64(p->loss.unresolved) : NULL);
	json_add(x, "samples_register_ring_full",
		 p->loss.regs_known ? json_u64(p->loss.regs_lost) : NULL);
	json_add(x, "faults_site_map_full",
		 p->faults_measured ? json_u64(p->loss.site_full) : NULL);
	json_add(x, "faults_address_map_full",
		 p->faults_measured ? json_u64(p->loss.page_full) : NULL);
	json_add(x, "faults_after_timeline",
		 p->faults_measured ? json_u64(p->loss.timeline_late) : NULL);
	json_add(x, "process_events_lost",
		 p->loss.proc_events_known ? json_u64(p->loss.proc_events) : NULL);
	json_add(x, "processes_not_followed", json_u64(p->loss.procs_full));
	json_add(x, "attach_failures", json_object_new_int(p->loss.attach_failed));
	return x;
}

/* Lock waits per lock word, longest first. */
static struct json_object *locks_json(const struct sampling *p)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < p->nr_locks; i++) {
		const struct sampling_lock *l = &p->locks[i];
		struct json_object *o = json_object_new_object();

		json_add(o, "pid", json_object_new_int(l->pid));
		json_add(o, "address", json_hex(l->uaddr));
		json_add(o, "variable", json_str_or_null(l->name[0] ? l->name : NULL));
		json_add(o, "mapping", json_str_or_null(l->mapping[0] ? l->mapping : NULL));
		json_add(o, "decl_file", json_str_or_null(l->decl_file[0] ? l->decl_file : NULL));
		json_add(o, "decl_line", l->decl_line ? json_object_new_int(l->decl_line) : NULL);
		json_add(o, "waits", json_u64(l->waits));
		json_add(o, "wait_time_ns", json_u64(l->wait_ns));
		json_add(o, "waiting_threads_min", json_object_new_int(l->threads));
		json_object_array_add(a, o);
	}
	return a;
}

static void print_locks(const struct sampling *p, FILE *f)
{
	if (!p->nr_locks)
		return;
	fprintf(f, "  lock waits by lock word (longest first):\n");
	for (int i = 0; i < p->nr_locks && i < 5; i++) {
		const struct sampling_lock *l = &p->locks[i];
		const char *base = strrchr(l->mapping, '/');

		fprintf(f, "    %-24s %8.1f ms %7" PRIu64 " waits, >= %d thread%s  %s",
			l->name[0] ? l->name : "?", l->wait_ns / 1e6, l->waits, l->threads,
			l->threads == 1 ? " " : "s", base ? base + 1 : l->mapping);
		if (l->decl_file[0])
			fprintf(f, " (%s:%d)", path_basename(l->decl_file), l->decl_line);
		fprintf(f, " 0x%" PRIx64 "\n", l->uaddr);
	}
	if (p->nr_locks > 5 || p->locks_dropped)
		fprintf(f, "    ... %d more\n", p->nr_locks - 5 > 0 ? p->nr_locks - 5 + p->locks_dropped
						      : p->locks_dropped);
}

/* Time in system calls (tracepoint tier); null when not traced. */
static struct json_object *syscalls_json(const struct sampling *p)
{
	struct json_object *x;

	if (!p->sys_measured)
		return NULL;
	x = json_object_new_object();
	json_add(x, "tier", json_str(tier__name(TIER_SOFTWARE)));
	json_add(x, "calls", json_u64(p->sys_calls));
	json_add(x, "time_ns", json_u64(p->sys_ns));
	json_add(x, "futex_calls", json_u64(p->futex_calls));
	json_add(x, "futex_time_ns", json_u64(p->futex_ns));
	json_add(x, "futex_long_calls", json_u64(p->futex_long_calls));
	json_add(x, "futex_long_time_ns", json_u64(p->futex_long_ns));
	json_add(x, "futex_long_min_ns", json_u64(p->futex_long_min_ns));
	json_add(x, "offcpu_sleep_ns", json_u64(p->sleep_ns));
	json_add(x, "offcpu_runnable_ns", json_u64(p->runq_ns));
	json_add(x, "offcpu_sleep_long_ns", json_u64(p->sleep_long_ns));
	json_add(x, "futex_lock_calls", json_u64(p->futex_lock_calls));
	json_add(x, "futex_lock_time_ns", json_u64(p->futex_lock_ns));
	json_add(x, "locks", locks_json(p));
	json_add(x, "locks_dropped", json_object_new_int(p->locks_dropped));
	return x;
}

struct json_object *sampling__to_json(const struct sampling *p)
{
	struct json_object *o = json_object_new_object();
	int listed, *region_idx;

	if (!p)
		return o;
	json_add(o, "events", events_json(p));
	json_add(o, "duration_ns", json_u64(p->duration_ns));
	json_add(o, "threads", json_object_new_int(p->nr_threads));
	json_add(o, "hotspots", hotspots_json(p));
	json_add(o, "functions", sum_json(p->funcs, p->nr_funcs, false));
	json_add(o, "lines", sum_json(p->lines, p->nr_lines, true));
	if (p->nr_thread_funcs)
		json_add(o, "thread_functions",
			 sum_json(p->thread_funcs, p->nr_thread_funcs, false));
	json_add(o, "stacks", stacks_json(p));
	region_idx = regions_json_index(p, &listed);
	json_add(o, "page_faults", faults_json(p, region_idx));
	json_add(o, "regions", regions_json(p, region_idx));
	free(region_idx);
	json_add(o, "regions_unlisted", json_object_new_int(p->nr_regions - listed));
	json_add(o, "regions_unread_processes", json_object_new_int(p->regions_unread_procs));
	json_add(o, "thp", thp_json(p));
	json_add(o, "syscalls", syscalls_json(p));
	json_add(o, "processes", procs_json(p));
	json_add(o, "lost", loss_json(p));
	return o;
}

/* "file.c:42" or "[module]" into buf, cut to WIDTH from the left. */
static const char *where(char *buf, size_t len, const char *file, int line, const char *module,
			 bool wide)
{
	if (line)
		snprintf(buf, len, "%s:%d", wide ? file : path_basename(file), line);
	else if (module[0] == '[')
		snprintf(buf, len, "%s", module);
	else
		snprintf(buf, len, "[%s]", module);
	return buf;
}

/* S cut to WIDTH columns (at most the buffer's SIZE - 1), "~" marking a cut. */
static const char *cut_to(char *buf, size_t size, size_t width, const char *s)
{
	size_t n = strlen(s);

	if (width >= size)
		width = size - 1;
	if (n <= width) {
		snprintf(buf, width + 1, "%s", s);
		return buf;
	}
	snprintf(buf, width + 1, "%.*s~", (int)width - 1, s);
	return buf;
}

/* BUF: an array */
#define cut(buf, width, s) cut_to(buf, sizeof(buf), width, s)

static const char *est_str(const struct sampling_event *e, double v, char *buf, size_t len)
{
	if (!strcmp(e->unit, "ns")) {
		if (v >= 1e9)
			snprintf(buf, len, "%.2f s", v / 1e9);
		else
			snprintf(buf, len, "%.1f ms", v / 1e6);
		return buf;
	}
	return fmt_count(v, buf, len);
}

static void print_sums(FILE *f, const struct sampling *p, const struct sampling_hotsum *s, int n,
		       bool lines, bool wide, int ev)
{
	/* 30 columns of numbers, then 50: function + module, or line + function */
	int w = wide ? 60 : lines ? 48 : 33, shown = 0;

	for (int i = 0; i < n && shown < (wide ? 25 : TOP_TEXT); i++) {
		char name[512], nbuf[80], lbuf[300], est[32];

		if (s[i].ev != ev)
			continue;
		shown++;
		if (lines) {
			where(lbuf, sizeof(lbuf), s[i].file, s[i].line, s[i].module, wide);
			snprintf(name, sizeof(name), "%s %s", lbuf, s[i].function);
		} else {
			snprintf(name, sizeof(name), "%s", s[i].function);
		}
		/* --wide pads to W columns but never cuts: a long source path keeps its function */
		fprintf(f, "  %5.1f%% %8" PRIu64 " %10s  %-*s", 100.0 * s[i].share, s[i].samples,
			est_str(&p->events[ev], s[i].est_events, est, sizeof(est)), w,
			wide ? name : cut(nbuf, w, name));
		if (!lines) {
			char mb[32];

			fprintf(f, " %s", cut(mb, wide ? 30 : 16, s[i].module));
		}
		fputc('\n', f);
	}
}

static void print_hot(const struct sampling *p, FILE *f, bool wide)
{
	for (int ev = 0; ev < p->nr_events; ev++) {
		const struct sampling_event *e = &p->events[ev];
		char est[32];

		fprintf(f, "\nHot code: %s, %" PRIu64 " Hz (%s tier)%s\n", e->name, e->freq_hz,
			tier__name(e->tier), e->precise ? ", precise" : "");
		fprintf(f, "  %" PRIu64 " samples (%" PRIu64 " in kernel mode), est. %s%s, %d thread%s\n",
			e->samples, e->kernel_samples, est_str(e, e->est_events, est, sizeof(est)),
			strcmp(e->unit, "ns") ? " events" : " CPU", p->nr_threads,
			p->nr_threads == 1 ? "" : "s");
		if (!e->samples)
			continue;
		fprintf(f, "  %6s %8s %10s  %s\n", "share", "samples", "est.", "function / module");
		print_sums(f, p, p->funcs, p->nr_funcs, false, wide, ev);
		fprintf(f, "  %6s %8s %10s  %s\n", "share", "samples", "est.", "source line");
		print_sums(f, p, p->lines, p->nr_lines, true, wide, ev);
		if (p->nr_thread_funcs) {
			pid_t done[64];
			int nd = 0;

			fprintf(f, "  Threads differ: hottest functions per thread\n");
			int max = wide ? (int)ARRAY_SIZE(done) : 8;

			for (int i = 0; i < p->nr_thread_funcs && nd < max; i++) {
				const struct sampling_hotsum *t = &p->thread_funcs[i];
				bool seen = false;
				const char *fn;
				char nb[64];

				if (t->ev != ev)
					continue;
				for (int j = 0; j < nd; j++)
					seen |= done[j] == t->tid;
				if (seen)
					continue;
				done[nd++] = t->tid;
				fn = t->function[0] ? t->function : t->module[0] ? t->module : "[unknown]";
				fprintf(f, "  tid %-7d %5.1f%% %8" PRIu64 "  %s\n", (int)t->tid,
					100.0 * t->share, t->samples, wide ? fn : cut(nb, 48, fn));
			}
		}
	}
}

/*
 * Region I and the regions of other processes that are the same thing (the
 * same kind, file and size; for the THP table, in the same huge-page state
 * too): one row of the text tables.  Marks them used, sums their faults
 * into *FAULTS, returns how many.
 */
static int region_group(const struct sampling *p, int i, bool *used, bool thp, uint64_t *faults)
{
	const struct sampling_region *r = &p->regions[i];
	int n = 0;

	*faults = 0;
	for (int k = i; k < p->nr_regions; k++) {
		const struct sampling_region *o = &p->regions[k];

		if (used[k] || (k != i && (o->pid == r->pid || o->kind != r->kind ||
					    o->size != r->size || strcmp(o->path, r->path))))
			continue;
		if (k != i && thp &&
		    (o->large != r->large || o->has_smaps != r->has_smaps ||
		     o->anon_huge != r->anon_huge || o->thp_eligible != r->thp_eligible ||
		     o->aligned_2m != r->aligned_2m || o->madv_hugepage != r->madv_hugepage ||
		     o->madv_nohugepage != r->madv_nohugepage || o->at_exit != r->at_exit))
			continue;
		if (k != i && !thp && !o->faults)
			continue;
		used[k] = true;
		*faults += o->faults;
		n++;
	}
	return n;
}

static void print_faults(const struct sampling *p, FILE *f, bool wide)
{
	char b1[32], b2[32];
	int shown = 0;

	fprintf(f, "\nPage faults (page-faults event; software tier)\n");
	if (!p->faults_measured) {
		fprintf(f, "  not measured (the page-faults event could not be opened)\n");
		return;
	}
	fprintf(f, "  %" PRIu64 " faults", p->faults);
	if (p->major_measured)
		fprintf(f, ": %" PRIu64 " minor, %" PRIu64 " major", p->minor, p->major);
	if (p->faults_exact)
		fprintf(f, "; every fault sampled");
	else
		fprintf(f, "; below, %" PRIu64 " samples' shares of them", p->fault_samples);
	fprintf(f, "\n  %s%" PRIu64 " reads, %" PRIu64 " writes, %" PRIu64 " other (%" PRIu64
		" in kernel-mode copies)\n", p->faults_exact ? "" : "~", p->reads, p->writes,
		p->rw_unknown, p->faults_kernel);
	if (p->fault_gap_faults)
		fprintf(f, "  %s of them counted between the sampler's %d windows (%.0f ms of %.0f)\n",
			fmt_count((double)p->fault_gap_faults, b1, sizeof(b1)), p->fault_windows,
			p->fault_open_ns / 1e6, p->duration_ns / 1e6);
	if (p->duration_ns && p->faults)
		fprintf(f, "  %s faults/s on average over %.2f s\n",
			fmt_count(p->faults / (p->duration_ns / 1e9), b1, sizeof(b1)),
			p->duration_ns / 1e9);
	if (p->nr_sites) {
		fprintf(f, "  %8s %8s %8s  %s\n", "faults", "writes", "major", "faulting code");
		for (int i = 0; i < p->nr_sites && i < (wide ? 25 : TOP_TEXT); i++) {
			const struct sampling_fault_site *s = &p->sites[i];
			char lb[300], nm[512], cb[64], sfx[24] = "";

			where(lb, sizeof(lb), s->loc.file, s->loc.line, s->loc.module, wide);
			snprintf(nm, sizeof(nm), "%s %s%s", lb, s->loc.function,
				 s->kernel_mode ? " (syscall)" : "");
			/* the name is cut, never the count of processes */
			if (s->nr_procs > 1)
				snprintf(sfx, sizeof(sfx), " (%d procs)", s->nr_procs);
			fprintf(f, "  %8" PRIu64 " %8" PRIu64 " %8s  %s%s\n", s->count, s->writes,
				p->major_measured ? fmt_count(s->major, b2, sizeof(b2)) : "-",
				wide ? nm : cut(cb, 50 - strlen(sfx), nm), sfx);
		}
	}
	for (int i = 0; i < p->nr_regions; i++)
		if (p->regions[i].faults)
			shown++;
	if (shown) {
		bool *used = xcalloc((size_t)p->nr_regions, sizeof(*used));

		fprintf(f, "  %8s %9s %6s  %s\n", "faults", "size", "kind", "region");
		shown = 0;
		for (int i = 0; i < p->nr_regions && shown < (wide ? 25 : 8); i++) {
			const struct sampling_region *r = &p->regions[i];
			char nm[320], cb[80], sfx[24] = "";
			uint64_t faults = 0;
			int n;

			if (!r->faults || used[i])
				continue;
			shown++;
			n = region_group(p, i, used, false, &faults);
			snprintf(nm, sizeof(nm), "%" PRIx64 "-%" PRIx64 " %s", r->start, r->end,
				 r->kind == REGION_FILE && !wide ? path_basename(r->path) : r->path);
			if (n > 1 && r->path[0]) {
				snprintf(nm, sizeof(nm), "%s",
					 r->kind == REGION_FILE && !wide ? path_basename(r->path) : r->path);
				snprintf(sfx, sizeof(sfx), " (%d procs)", n);
			} else if (n > 1) {
				snprintf(nm, sizeof(nm), "%d procs, one each", n);
			}
			fprintf(f, "  %8" PRIu64 " %9s %6s  %s%s\n", faults,
				fmt_bytes(r->size, b1, sizeof(b1)), sampling__region_kind_name(r->kind),
				wide ? nm : cut(cb, 50 - strlen(sfx), nm), sfx);
		}
		free(used);
	}
	if (p->nr_buckets) {
		/* fold the 10 ms buckets into at most 10 rows */
		int rows = p->nr_buckets < 10 ? p->nr_buckets : 10;
		int per = (p->nr_buckets + rows - 1) / rows;
		uint64_t max = 0;

		for (int r = 0; r * per < p->nr_buckets; r++) {
			uint64_t sum = 0;

			for (int i = r * per; i < (r + 1) * per && i < p->nr_buckets; i++)
				sum += p->timeline[i].faults;
			if (sum > max)
				max = sum;
		}
		fprintf(f, "  faults over time (%.2f s per row)\n", per * p->bucket_ns / 1e9);
		for (int r = 0; r * per < p->nr_buckets; r++) {
			uint64_t sum = 0;
			int bar;

			for (int i = r * per; i < (r + 1) * per && i < p->nr_buckets; i++)
				sum += p->timeline[i].faults;
			bar = max ? (int)(40.0 * sum / max + 0.5) : 0;
			fprintf(f, "  %7.2fs %9s/s |%.*s\n", r * per * p->bucket_ns / 1e9,
				fmt_count(sum / (per * p->bucket_ns / 1e9), b1, sizeof(b1)), bar,
				"########################################");
		}
	}
}

static void print_thp(const struct sampling *p, FILE *f, bool wide)
{
	int n = 0, shown = 0;
	char b1[32], b2[32];
	bool *used;

	for (int i = 0; i < p->nr_regions; i++)
		n += p->regions[i].large;
	fprintf(f, "\nHuge pages: THP mode %s, defrag %s\n  khugepaged: ",
		p->thp_mode[0] ? p->thp_mode : "unknown", p->thp_defrag[0] ? p->thp_defrag : "unknown");
	if (p->thp_measured)
		fprintf(f, "%" PRIu64 " collapses (%" PRIu64 " failed)",
			p->thp.collapse_ok, p->thp.collapse_fail);
	else if (p->thp_unwatched_known && p->thp_delay_ns)
		fprintf(f, "not watched (run < %.1f s)", p->thp_delay_ns / 1e9);
	else
		fprintf(f, "not observed");
	if (p->thp_measured && p->thp_watch_from_ns >= 100000000ULL)
		fprintf(f, " from %.1f s", p->thp_watch_from_ns / 1e9);
	if (p->thp_unwatched_known && (!p->thp_measured || p->thp_watch_from_ns >= 100000000ULL))
		fprintf(f, "; collapses system-wide %s: %" PRIu64, p->thp_measured ? "before" : "meanwhile",
			p->thp_unwatched.collapse_ok + p->thp_unwatched.collapse_fail);
	fputc('\n', f);
	if (!n) {
		fprintf(f, "  no anonymous region of 2 MiB or more\n");
		return;
	}
	fprintf(f, "  %-25s %9s %9s %5s %5s %5s\n", "large anon region", "size", "THP", "elig",
		"2M-al", "madv");
	used = xcalloc((size_t)p->nr_regions, sizeof(*used));
	for (int i = 0; i < p->nr_regions; i++) {
		const struct sampling_region *r = &p->regions[i];
		char rng[64], th[32];
		uint64_t faults;
		int k;

		if (!r->large || used[i])
			continue;
		if (shown == (wide ? 25 : 10)) {
			for (n = 0, k = i; k < p->nr_regions; k++)
				n += p->regions[k].large && !used[k];
			fprintf(f, "  ... and %d more (JSON: profile.regions, where measured)\n", n);
			break;
		}
		shown++;
		k = region_group(p, i, used, true, &faults);
		if (k > 1)
			snprintf(rng, sizeof(rng), "%d procs, one each", k);
		else
			snprintf(rng, sizeof(rng), "%" PRIx64 "-%" PRIx64, r->start, r->end);
		if (r->has_smaps)
			fmt_bytes(r->anon_huge, th, sizeof(th));
		else
			snprintf(th, sizeof(th), "?");
		fprintf(f, "  %-25s %9s %9s %5s %5s %5s%s\n", rng, fmt_bytes(r->size, b1, sizeof(b1)),
			th, r->thp_eligible < 0 ? "?" : r->thp_eligible ? "yes" : "no",
			r->aligned_2m ? "yes" : "no",
			r->madv_hugepage ? "hg" : r->madv_nohugepage ? "nh" : "-",
			r->kind == REGION_HEAP ? " heap" : r->at_exit ? "" : " gone");
	}
	free(used);
	(void)b2;
	(void)wide;
}

void sampling__print_text(const struct sampling *p, FILE *f, bool wide)
{
	const struct sampling_loss *l;

	if (!p)
		return;
	l = &p->loss;
	if (p->nr_events)
		print_hot(p, f, wide);
	print_faults(p, f, wide);
	print_thp(p, f, wide);
	if (p->sys_measured)
		fprintf(f, "\nSystem calls and time off the CPU (tracepoints; software tier)\n"
			"  %" PRIu64 " calls, %.1f ms in them over all threads (on the CPU or blocked);\n"
			"  futex: %" PRIu64 " calls, %.1f ms (lock and condition waits), of which\n"
			"  %" PRIu64 " of %.0f ms or more, %.1f ms (threads parked: joins, idle workers);\n"
			"  lock waits (FUTEX_WAIT, FUTEX_LOCK_PI) under that: %" PRIu64 " calls, %.1f ms\n"
			"  off the CPU (sched_switch): %.1f ms blocked or sleeping (%.1f ms in long\n"
			"  sleeps), %.1f ms runnable\n"
			"  (waiting for a CPU that other processes used)\n",
			p->sys_calls, p->sys_ns / 1e6, p->futex_calls, p->futex_ns / 1e6,
			p->futex_long_calls, p->futex_long_min_ns / 1e6, p->futex_long_ns / 1e6,
			p->futex_lock_calls, p->futex_lock_ns / 1e6, p->sleep_ns / 1e6, p->sleep_long_ns / 1e6, p->runq_ns / 1e6);
	if (p->sys_measured)
		print_locks(p, f);
	if (p->nr_procs > 1) {
		fprintf(f, "\nProcesses: %d (", p->nr_procs);
		for (int i = 0; i < p->nr_procs && i < 8; i++)
			fprintf(f, "%s%d %s", i ? ", " : "", (int)p->procs[i].pid,
				p->procs[i].comm[0] ? p->procs[i].comm : "?");
		fprintf(f, "%s)\n", p->nr_procs > 8 ? ", ..." : "");
	}
	fprintf(f, "\nLost: %" PRIu64 " samples (map full), %" PRIu64 " without stack, %" PRIu64
		" unresolved;\n  %" PRIu64 " faults not by address, %" PRIu64 " not by site; %d attach failure%s\n",
		l->hot_full, l->stack_err, l->unresolved, l->page_full, l->site_full, l->attach_failed,
		l->attach_failed == 1 ? "" : "s");
}
