// SPDX-License-Identifier: GPL-2.0-only
/*
 * memadvise probe: what this machine can measure, and why not.
 * Every check tries the real thing (caps.h); every "no" says why and what
 * would help.  Text for people, -j JSON for scripts and tests.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json-c/json.h>

#include "collect/addr/addrsample.h"
#include "machine/caps.h"
#include "cli/common.h"
#include "base/log.h"
#include "machine/pmu.h"
#include "collect/sampling/sampler.h"
#include "model/report.h"
#include "machine/sysinfo.h"
#include "base/json.h"
#include "base/util.h"

#define PROBE_SCHEMA_VERSION 1
#define NR_EVENTS 12
#define MAX_CACHES 8
#define COL 24 /* where the status column starts */

struct tp_check {
	const char *sys, *name; /* name NULL: the whole group */
	const char *key;	/* JSON key */
	struct cap cap;
};

struct probe {
	struct utsname uts;
	char vendor[32], cpu_name[128];
	int family, model, nr_cpus, hypervisor;
	const char *libpfm_pmu;
	char sysfs_pmus[256];

	struct cap hw_pmu, precise;
	struct cap events[NR_EVENTS];
	struct cap bpf, btf, uprobes, watchpoints, kprobes, fentry;
	struct cap tick;	/* the scheduler tick samples 'run' (sampler__tick_plan) */
	unsigned int tick_hz;
	struct tp_check *tps;
	int nr_tps;

	int paranoid; /* INT_MIN when unreadable */
	bool paranoid_ok;
	uint64_t cap_eff;
	bool cap_ok;
	uid_t euid;
	const char *sudo_user;

	char thp[32], thp_defrag[32];
	int thp_err;
	struct cache_level caches[MAX_CACHES];
	int nr_caches;

	struct cap valgrind, pahole;
};

static struct tp_check tracepoints[] = {
	{ "exceptions", "page_fault_user", "exceptions_page_fault_user", { 0 } },
	{ "exceptions", "page_fault_kernel", "exceptions_page_fault_kernel", { 0 } },
	{ "huge_memory", NULL, "huge_memory", { 0 } },
	{ "filemap", "mm_filemap_fault", "filemap_mm_filemap_fault", { 0 } },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: memadvise probe [OPTIONS]\n"
		"\n"
		"Reports what this machine can measure and, for everything it cannot, why\n"
		"and what would help: hardware PMU and the generic events, precise sampling\n"
		"(PEBS/IBS), BPF and BTF, uprobes, tracepoints, watchpoints, privileges,\n"
		"transparent huge pages, cache geometry and helper tools.  Each check opens\n"
		"the real thing on this process.  Exit status 0 when probing worked, even\n"
		"when capabilities are missing.\n"
		"\n"
		"Options:\n"
		"  -j, --json     JSON output (schema_version, a top-level \"pmu\" object)\n"
		"      --pretty   indented JSON (implies --json)\n"
		"  -h, --help     show this help\n"
		"\n"
		"Examples:\n"
		"  memadvise probe\n"
		"  memadvise probe -j | jq .pmu\n"
		"  memadvise probe -j | jq -e .bpf.available   # exit 0 when BPF works\n");
}

static void list_sysfs_pmus(char *buf, size_t len)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	char *names[64];
	int n = 0;

	buf[0] = 0;
	if (!d)
		return;
	while ((de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.')
			names[n++] = xstrdup(de->d_name);
	closedir(d);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) > 0) {
				char *t = names[i];

				names[i] = names[j];
				names[j] = t;
			}
	for (int i = 0; i < n; i++) {
		size_t l = strlen(buf);

		snprintf(buf + l, len - l, "%s%s", l ? " " : "", names[i]);
		free(names[i]);
	}
}

/*
 * Whether 'run' samples on the scheduler tick here, as it decides without
 * -F (the BPF object is loaded for it; the tick program itself is not).
 */
static void probe_tick(struct probe *p)
{
	struct run_ctx ctx = { .sample = true };
	char why[160] = "";

	p->tick_hz = sampler__tick_plan(&ctx, why, sizeof(why));
	p->tick.ok = p->tick_hz > 0;
	if (p->tick.ok) {
		snprintf(p->tick.detail, sizeof(p->tick.detail),
			 "%u Hz (CONFIG_HZ): 'run' samples on the tick, a cpu-clock sample would "
			 "be a timer interrupt with exits to the hypervisor", p->tick_hz);
	} else if (!p->hypervisor) {
		snprintf(p->tick.reason, sizeof(p->tick.reason),
			 "not a virtual machine: cpu-clock samples (a timer interrupt costs 1-2 us)");
	} else if (pmu__hw_exposed()) {
		snprintf(p->tick.reason, sizeof(p->tick.reason), "the hardware events sample");
	} else {
		snprintf(p->tick.reason, sizeof(p->tick.reason), "%s: cpu-clock samples at %u Hz",
			 why[0] ? why : "unknown", addrsample__default_hz());
	}
	sampler__preload_discard();
}

static void collect(struct probe *p)
{
	int err;

	uname(&p->uts);
	if (sysinfo__cpu(p->vendor, sizeof(p->vendor), &p->family, &p->model, p->cpu_name,
			 sizeof(p->cpu_name)))
		snprintf(p->vendor, sizeof(p->vendor), "unknown");
	p->nr_cpus = sysinfo__nr_cpus();
	p->hypervisor = sysinfo__hypervisor() > 0;
	pmu__init();
	p->libpfm_pmu = pmu__host_pmu_name();
	list_sysfs_pmus(p->sysfs_pmus, sizeof(p->sysfs_pmus));

	caps__hw_pmu(&p->hw_pmu);
	for (int i = 0; i < NR_EVENTS && pmu__generic_names[i]; i++)
		caps__event(pmu__generic_names[i], &p->events[i]);
	caps__precise(&p->precise);

	caps__bpf(&p->bpf);
	caps__btf(&p->btf);
	caps__uprobes(&p->uprobes);
	p->tps = tracepoints;
	p->nr_tps = ARRAY_SIZE(tracepoints);
	for (int i = 0; i < p->nr_tps; i++)
		caps__tracepoint(p->tps[i].sys, p->tps[i].name, &p->tps[i].cap);
	caps__watchpoint(&p->watchpoints);
	caps__kprobes(&p->kprobes);
	caps__fentry(&p->fentry);
	probe_tick(p);

	p->paranoid_ok = !sysinfo__perf_paranoid(&p->paranoid);
	p->cap_ok = !caps__effective(&p->cap_eff);
	p->euid = geteuid();
	p->sudo_user = getenv("SUDO_USER");
	if (p->sudo_user && !*p->sudo_user)
		p->sudo_user = NULL;

	p->thp_err = sysinfo__thp_mode(p->thp, sizeof(p->thp));
	if (sysinfo__thp_defrag(p->thp_defrag, sizeof(p->thp_defrag)))
		p->thp_defrag[0] = 0;
	err = sysinfo__caches(p->caches, MAX_CACHES);
	p->nr_caches = err > 0 ? err : 0;

	caps__tool("valgrind", &p->valgrind);
	caps__tool("pahole", &p->pahole);
}

static bool has_cap(const struct probe *p, int cap)
{
	return p->cap_ok && (p->cap_eff >> cap) & 1;
}

static bool event_is_hw(int i)
{
	return i < 6; /* pmu__generic_names lists hardware first */
}

/* Tiers of the capability ladder (report.h) this machine supports. */
static bool tier_ok(const struct probe *p, enum tier t)
{
	switch (t) {
	case TIER_PRECISE: return p->precise.ok;
	case TIER_COUNTING: return p->hw_pmu.ok;
	case TIER_SOFTWARE: return p->events[7].ok; /* page_faults */
	case TIER_SW_ADDR: return p->events[6].ok;  /* task_clock sampling + decode */
	case TIER_UPROBE_STREAM: return p->events[6].ok && p->bpf.ok && p->uprobes.ok;
	case TIER_WATCHPOINT: return p->watchpoints.ok;
	case TIER_SIMULATION: return p->valgrind.ok;
	case TIER_STATIC: return true;
	default: return false;
	}
}

static const char *const tier_keys[TIER__COUNT] = {
	[TIER_PRECISE] = "precise", [TIER_COUNTING] = "counting", [TIER_SOFTWARE] = "software",
	[TIER_SW_ADDR] = "sw_addr", [TIER_UPROBE_STREAM] = "uprobe_stream",
	[TIER_WATCHPOINT] = "watchpoint",
	[TIER_SIMULATION] = "simulation", [TIER_STATIC] = "static",
};

/* ---- JSON ---------------------------------------------------------------- */

/* The fields of a check: available (unless WITH_AVAILABLE is false), reason, errno, hint, detail. */
static struct json_object *cap_fill(struct json_object *o, const struct cap *c, bool with_available)
{
	if (with_available)
		json_add(o, "available", json_object_new_boolean(c->ok));
	if (!c->ok) {
		json_add(o, "reason", json_str_or_null(c->reason[0] ? c->reason : "unknown"));
		if (c->err) {
			const char *n = strerrorname_np(c->err);

			json_add(o, "errno", json_str_or_null(n ? n : "unknown"));
		}
		if (c->hint[0])
			json_add(o, "hint", json_str_or_null(c->hint));
	}
	if (c->detail[0])
		json_add(o, "detail", json_str_or_null(c->detail));
	return o;
}

static struct json_object *cap_json(const struct cap *c)
{
	return cap_fill(json_object_new_object(), c, true);
}

static struct json_object *probe_json(const struct probe *p)
{
	struct json_object *root = json_object_new_object(), *o, *e, *a;

	json_add(root, "schema_version", json_object_new_int(PROBE_SCHEMA_VERSION));
	json_add(root, "memadvise_version", json_str_or_null(MA_VERSION));

	o = json_object_new_object();
	json_add(o, "kernel", json_str_or_null(p->uts.release));
	json_add(o, "arch", json_str_or_null(p->uts.machine));
	json_add(o, "cpu_vendor", json_str_or_null(p->vendor));
	json_add(o, "cpu_family", json_object_new_int(p->family));
	json_add(o, "cpu_model", json_object_new_int(p->model));
	json_add(o, "cpu_name", json_str_or_null(p->cpu_name));
	json_add(o, "nr_cpus", json_object_new_int(p->nr_cpus));
	json_add(o, "hypervisor", json_object_new_boolean(p->hypervisor));
	json_add(root, "host", o);

	o = json_object_new_object();
	json_add(o, "hardware", json_object_new_boolean(p->hw_pmu.ok));
	cap_fill(o, &p->hw_pmu, false);
	json_add(o, "libpfm_pmu", p->libpfm_pmu ? json_str_or_null(p->libpfm_pmu) : NULL);
	json_add(o, "sysfs_cpu_pmu", json_object_new_boolean(pmu__hw_exposed()));
	a = json_object_new_array();
	{
		char buf[256], *save = NULL, *tok;

		snprintf(buf, sizeof(buf), "%s", p->sysfs_pmus);
		for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			json_object_array_add(a, json_str_or_null(tok));
	}
	json_add(o, "sysfs_pmus", a);
	json_add(root, "pmu", o);

	e = json_object_new_object();
	for (int i = 0; i < NR_EVENTS && pmu__generic_names[i]; i++) {
		const struct cap *c = &p->events[i];

		o = cap_json(c);
		json_add(o, "kind", json_str_or_null(event_is_hw(i) ? "hardware" : "software"));
		if (c->ok) {
			json_object_object_del(o, "detail");
			json_add(o, "encoding", json_str_or_null(c->detail));
		}
		json_add(o, "description", json_str_or_null(pmu__describe(pmu__generic_names[i])));
		json_add(e, pmu__generic_names[i], o);
	}
	json_add(root, "events", e);

	o = cap_json(&p->precise);
	json_add(o, "kind", p->precise.ok ? json_str_or_null(!strncmp(p->precise.detail, "ibs", 3) ? "ibs" : "pebs")
				     : NULL);
	json_add(root, "precise_sampling", o);
	json_add(root, "bpf", cap_json(&p->bpf));
	json_add(root, "btf", cap_json(&p->btf));
	json_add(root, "uprobes", cap_json(&p->uprobes));
	e = json_object_new_object();
	for (int i = 0; i < p->nr_tps; i++) {
		char name[128];

		snprintf(name, sizeof(name), "%s:%s", p->tps[i].sys, p->tps[i].name ? p->tps[i].name : "*");
		o = cap_json(&p->tps[i].cap);
		json_add(o, "name", json_str_or_null(name));
		json_add(e, p->tps[i].key, o);
	}
	json_add(root, "tracepoints", e);
	json_add(root, "tracefs", caps__tracefs() ? json_str_or_null(caps__tracefs()) : NULL);
	json_add(root, "watchpoints", cap_json(&p->watchpoints));
	json_add(root, "kprobes", cap_json(&p->kprobes));
	json_add(root, "fentry", cap_json(&p->fentry));
	o = cap_json(&p->tick);
	json_add(o, "hz", p->tick.ok ? json_object_new_int((int)p->tick_hz) : NULL);
	json_add(root, "tick_sampling", o);

	o = json_object_new_object();
	json_add(o, "root", json_object_new_boolean(p->euid == 0));
	json_add(o, "euid", json_object_new_int((int)p->euid));
	json_add(o, "sudo_user", json_str_or_null(p->sudo_user));
	json_add(o, "perf_event_paranoid", p->paranoid_ok ? json_object_new_int(p->paranoid) : NULL);
	e = json_object_new_object();
	if (p->cap_ok) {
		json_add(e, "cap_perfmon", json_object_new_boolean(has_cap(p, MA_CAP_PERFMON)));
		json_add(e, "cap_bpf", json_object_new_boolean(has_cap(p, MA_CAP_BPF)));
		json_add(e, "cap_sys_admin", json_object_new_boolean(has_cap(p, MA_CAP_SYS_ADMIN)));
		json_add(e, "cap_sys_ptrace", json_object_new_boolean(has_cap(p, MA_CAP_SYS_PTRACE)));
		json_add(e, "cap_sys_resource", json_object_new_boolean(has_cap(p, MA_CAP_SYS_RESOURCE)));
	}
	json_add(o, "capabilities", e);
	json_add(root, "privileges", o);

	o = json_object_new_object();
	json_add(o, "enabled", p->thp_err ? NULL : json_str_or_null(p->thp));
	json_add(o, "defrag", p->thp_defrag[0] ? json_str_or_null(p->thp_defrag) : NULL);
	if (p->thp_err)
		json_add(o, "reason", json_str_or_null("cannot read /sys/kernel/mm/transparent_hugepage/enabled"));
	json_add(root, "thp", o);

	a = json_object_new_array();
	for (int i = 0; i < p->nr_caches; i++) {
		const struct cache_level *c = &p->caches[i];

		o = json_object_new_object();
		json_add(o, "level", json_object_new_int(c->level));
		json_add(o, "type", json_str_or_null(c->type));
		json_add(o, "size", json_object_new_int64((int64_t)c->size));
		json_add(o, "line", json_object_new_int(c->line));
		json_add(o, "ways", c->ways ? json_object_new_int(c->ways) : NULL);
		json_add(o, "sets", c->sets ? json_object_new_int(c->sets) : NULL);
		json_add(o, "shared_cpus", json_str_or_null(c->shared_cpus));
		json_object_array_add(a, o);
	}
	json_add(root, "caches", a);

	o = json_object_new_object();
	e = cap_json(&p->valgrind);
	if (p->valgrind.ok) {
		json_object_object_del(e, "detail");
		json_add(e, "version", json_str_or_null(p->valgrind.detail));
	}
	json_add(o, "valgrind", e);
	e = cap_json(&p->pahole);
	if (p->pahole.ok) {
		json_object_object_del(e, "detail");
		json_add(e, "version", json_str_or_null(p->pahole.detail));
	}
	json_add(o, "pahole", e);
	json_add(root, "tools", o);

	o = json_object_new_object();
	for (int t = 0; t < TIER__COUNT; t++)
		json_add(o, tier_keys[t], json_object_new_boolean(tier_ok(p, t)));
	json_add(root, "tiers", o);
	return root;
}

/* ---- text ---------------------------------------------------------------- */

/*
 * Prints TEXT, the cursor being at column POS, wrapping at 80 columns and
 * continuing at column CONT.
 */
static void wrap(FILE *f, int pos, int cont, const char *text)
{
	char buf[512], *save = NULL, *w;
	bool first = true;

	snprintf(buf, sizeof(buf), "%s", text);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int l = (int)strlen(w);

		if (!first && pos + 1 + l > 80) {
			fprintf(f, "\n%*s", cont, "");
			pos = cont;
			first = true;
		}
		fprintf(f, "%s%s", first ? "" : " ", w);
		pos += l + !first;
		first = false;
	}
	fputc('\n', f);
}

#define TXT (COL + 5) /* where the text after yes/no starts */

/* "label  yes  detail" or "label  no   ERRNO: reason" + "hint: ..." */
static void row(FILE *f, const char *label, const struct cap *c, bool verbose, const char **last_hint)
{
	char text[400];

	fprintf(f, "  %-*s", COL - 2, label);
	if ((int)strlen(label) > COL - 3)
		fprintf(f, "\n%*s", COL, "");
	if (c->ok) {
		fprintf(f, "%-5s", "yes");
		wrap(f, TXT, TXT, c->detail);
		return;
	}
	fprintf(f, "%-5s", "no");
	if (c->err && strerrorname_np(c->err))
		snprintf(text, sizeof(text), "%s: %s", strerrorname_np(c->err),
			 c->reason[0] ? c->reason : "unknown reason");
	else
		snprintf(text, sizeof(text), "%s", c->reason[0] ? c->reason : "unknown reason");
	wrap(f, TXT, TXT, text);
	/* a hint shared by consecutive rows is said once */
	if (c->hint[0] && (!last_hint || !*last_hint || strcmp(*last_hint, c->hint))) {
		fprintf(f, "%*shint: ", TXT, "");
		wrap(f, TXT + 6, TXT + 6, c->hint);
	}
	if (last_hint)
		*last_hint = c->hint[0] ? c->hint : NULL;
	if (verbose && c->detail[0]) {
		fprintf(f, "%*s", TXT, "");
		wrap(f, TXT, TXT, c->detail);
	}
}

static void line(FILE *f, const char *label, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(FILE *f, const char *label, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "  %-*s", COL - 2, label);
	if ((int)strlen(label) > COL - 3)
		fprintf(f, "\n%*s", COL, "");
	wrap(f, COL, COL, buf);
}

static void probe_text(const struct probe *p, FILE *f)
{
	bool v = gopts.verbose > 0;
	const char *last = NULL;
	char sz[32], buf[256];

	fprintf(f, "host\n");
	line(f, "kernel", "Linux %s %s", p->uts.release, p->uts.machine);
	line(f, "cpu", "%s (%s family %d model %d), %d CPUs%s", p->cpu_name, p->vendor, p->family,
	     p->model, p->nr_cpus, p->hypervisor ? ", virtual machine" : "");

	fprintf(f, "\nhardware counters\n");
	row(f, "hardware PMU", &p->hw_pmu, v, &last);
	line(f, "libpfm4 model", "%s", p->libpfm_pmu ? p->libpfm_pmu : "none (no model for this CPU)");
	line(f, "kernel PMUs", "%s", p->sysfs_pmus[0] ? p->sysfs_pmus : "none");
	for (int i = 0; i < NR_EVENTS && pmu__generic_names[i]; i++)
		if (event_is_hw(i))
			row(f, pmu__generic_names[i], &p->events[i], v, &last);
	row(f, "precise sampling", &p->precise, v, &last);

	fprintf(f, "\nsoftware events\n");
	for (int i = 0; i < NR_EVENTS && pmu__generic_names[i]; i++)
		if (!event_is_hw(i))
			row(f, pmu__generic_names[i], &p->events[i], v, &last);

	fprintf(f, "\nkernel tracing\n");
	row(f, "bpf", &p->bpf, v, &last);
	row(f, "btf", &p->btf, v, &last);
	row(f, "uprobes", &p->uprobes, v, &last);
	for (int i = 0; i < p->nr_tps; i++) {
		snprintf(buf, sizeof(buf), "%s:%s", p->tps[i].sys, p->tps[i].name ? p->tps[i].name : "*");
		row(f, buf, &p->tps[i].cap, v, &last);
	}
	row(f, "watchpoints", &p->watchpoints, v, &last);
	row(f, "kprobes", &p->kprobes, v, &last);
	row(f, "fentry", &p->fentry, v, &last);
	row(f, "tick sampling", &p->tick, v, &last);

	fprintf(f, "\nprivileges\n");
	if (p->euid == 0)
		line(f, "user", "root%s%s%s", p->sudo_user ? " through sudo (invoking user " : "",
		     p->sudo_user ? p->sudo_user : "", p->sudo_user ? ")" : "");
	else
		line(f, "user", "uid %d (not root)", (int)p->euid);
	if (p->paranoid_ok)
		line(f, "perf_event_paranoid", "%d", p->paranoid);
	else
		line(f, "perf_event_paranoid", "unreadable");
	if (p->cap_ok)
		line(f, "capabilities", "CAP_PERFMON %s, CAP_BPF %s, CAP_SYS_ADMIN %s, CAP_SYS_PTRACE %s",
		     has_cap(p, MA_CAP_PERFMON) ? "yes" : "no", has_cap(p, MA_CAP_BPF) ? "yes" : "no",
		     has_cap(p, MA_CAP_SYS_ADMIN) ? "yes" : "no",
		     has_cap(p, MA_CAP_SYS_PTRACE) ? "yes" : "no");
	else
		line(f, "capabilities", "unknown (cannot read /proc/self/status)");

	fprintf(f, "\nmemory\n");
	if (p->thp_err)
		line(f, "transparent hugepages", "unknown (cannot read sysfs)");
	else
		line(f, "transparent hugepages", "%s (defrag %s)", p->thp,
		     p->thp_defrag[0] ? p->thp_defrag : "unknown");
	if (!p->nr_caches)
		line(f, "caches", "unknown (no /sys/devices/system/cpu/cpu0/cache)");
	for (int i = 0; i < p->nr_caches; i++) {
		const struct cache_level *c = &p->caches[i];
		char label[32], ways[24] = "ways unknown";

		snprintf(label, sizeof(label), "L%d%s", c->level,
			 !strcmp(c->type, "Data") ? "d" : !strcmp(c->type, "Instruction") ? "i" : "");
		if (c->ways)
			snprintf(ways, sizeof(ways), "%d-way", c->ways);
		line(f, label, "%s, %d B lines, %s, %d sets, shared by CPUs %s",
		     fmt_bytes((double)c->size, sz, sizeof(sz)), c->line, ways, c->sets,
		     c->shared_cpus[0] ? c->shared_cpus : "?");
	}

	fprintf(f, "\ntools\n");
	row(f, "valgrind", &p->valgrind, v, &last);
	row(f, "pahole", &p->pahole, v, &last);

	fprintf(f, "\ntiers\n");
	buf[0] = 0;
	for (int t = 0; t < TIER__COUNT; t++)
		if (tier_ok(p, t))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? ", " : "",
				 tier_keys[t]);
	line(f, "available", "%s", buf[0] ? buf : "none");
	buf[0] = 0;
	for (int t = 0; t < TIER__COUNT; t++)
		if (!tier_ok(p, t))
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", buf[0] ? ", " : "",
				 tier_keys[t]);
	if (buf[0])
		line(f, "not available", "%s", buf);
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = gopts.json, pretty = gopts.pretty;
	struct probe *p;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = gopts.json = true; break;
		case 'P': json = pretty = gopts.json = gopts.pretty = true; break;
		case 'h': usage(stdout); return MA_EXIT_OK;
		default:
			cli__opt_error(c, argv, "probe");
			return MA_EXIT_ERROR;
		}
	}
	if (optind < argc) {
		pr_err("unexpected argument '%s'", argv[optind]);
		pr_hint("'memadvise probe' takes no arguments");
		return MA_EXIT_ERROR;
	}

	p = xcalloc(1, sizeof(*p));
	collect(p);
	if (json) {
		struct json_object *o = probe_json(p);

		puts(json_object_to_json_string_ext(o, pretty ? JSON_C_TO_STRING_PRETTY |
									JSON_C_TO_STRING_NOSLASHESCAPE
							      : JSON_C_TO_STRING_PLAIN |
									JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		probe_text(p, stdout);
	}
	free(p);
	return fflush(stdout) ? MA_EXIT_ERROR : MA_EXIT_OK;
}
