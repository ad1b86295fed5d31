// SPDX-License-Identifier: GPL-2.0-only
/*
 * Binds a finished run's snapshot into the fact base the rules read: the
 * run, counters and derived metrics, the machine (sysfs, and the machine
 * profile of 'memadvise calibrate' the options name), and the sections
 * other modules attach with the layouts the caller read (bind_int.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "rules/bind.h"
#include "rules/facts.h"
#include "rules/rules.h"
#include "base/log.h"
#include "machine/sysinfo.h"
#include "base/util.h"

static void bind_counters(const struct report *r, struct factbase *fb)
{
	char name[96];

	for (int i = 0; i < r->nr_counters; i++) {
		const struct counter *c = &r->counters[i];

		if (fb->nr_counters < (int)(sizeof(fb->counters) / sizeof(fb->counters[0]))) {
			snprintf(fb->counters[fb->nr_counters].name, sizeof(fb->counters[0].name), "%s",
				 c->name);
			fb->counters[fb->nr_counters].counted = c->counted;
			snprintf(fb->counters[fb->nr_counters].reason, sizeof(fb->counters[0].reason),
				 "%s", c->counted ? "" : c->reason[0] ? c->reason : "did not count");
			fb->nr_counters++;
		}
		if (!c->counted)
			continue;
		fb->have[EV_COUNTERS] = true;
		snprintf(name, sizeof(name), "counter.%s", c->name);
		if (metric__find(name))
			factbase__set(fb, -1, name, c->scaled, c->tier);
	}
	for (int i = 0; i < r->nr_metrics; i++) {
		snprintf(name, sizeof(name), "metric.%s", r->metrics[i].name);
		if (metric__find(name))
			factbase__set(fb, -1, name, r->metrics[i].value, r->metrics[i].tier);
	}
}

static void bind_machine(struct factbase *fb)
{
	struct cache_level c[8];
	const struct cache_level *l;
	char mode[32];
	int n = sysinfo__caches(c, 8);
	long page = sysconf(_SC_PAGESIZE);

	factbase__set(fb, -1, "machine.line_size", sysinfo__cacheline(), TIER_STATIC);
	if (page > 0)
		factbase__set(fb, -1, "machine.page_size", (double)page, TIER_STATIC);
	factbase__set(fb, -1, "machine.cpus", sysinfo__nr_cpus(), TIER_STATIC);
	if (n > 0) {
		if ((l = sysinfo__cache(c, n, 1))) {
			factbase__set(fb, -1, "machine.l1d_size", (double)l->size, TIER_STATIC);
			if (l->ways)
				factbase__set(fb, -1, "machine.l1d_ways", l->ways, TIER_STATIC);
		}
		if ((l = sysinfo__cache(c, n, 2)))
			factbase__set(fb, -1, "machine.l2_size", (double)l->size, TIER_STATIC);
		for (int lv = 3; lv >= 1; lv--) {
			if ((l = sysinfo__cache(c, n, lv))) {
				factbase__set(fb, -1, "machine.llc_size", (double)l->size, TIER_STATIC);
				break;
			}
		}
	}
	if (!sysinfo__thp_mode(mode, sizeof(mode)))
		factbase__set(fb, -1, "machine.thp_mode",
			      !strcmp(mode, "always") ? 2 : !strcmp(mode, "madvise") ? 1 : 0, TIER_STATIC);
}

/*
 * The machine profile 'memadvise calibrate' writes (machine_profile.h: the
 * same file and keys): latencies per level and the costs of a TLB miss, a
 * page fault, a contended line and the atomic variants, for gain estimates.
 */
static void bind_machine_profile(struct factbase *fb, const char *path)
{
	static const struct {
		const char *key, *name;
	} keys[] = {
		{ "tlb_miss_ns", "machine.tlb_miss_ns" },
		{ "page_fault_ns", "machine.fault_ns" },
		{ "false_sharing_ns", "machine.false_sharing_ns" },
		{ "no_sharing_ns", "machine.no_sharing_ns" },
		{ "atomic_add_ns", "machine.atomic_ns" },
		{ "atomic_cas_ns", "machine.cas_ns" },
		{ "branch_miss_ns", "machine.branch_miss_ns" },
		{ "stlb_entries", "machine.tlb_entries" },
	};
	static const struct {
		const char *level, *name;
	} levels[] = {
		{ "L1d", "machine.lat_l1_ns" },
		{ "L2", "machine.lat_l2_ns" },
		{ "L3", "machine.lat_llc_ns" },
		{ "DRAM", "machine.lat_mem_ns" },
	};
	struct json_object *o, *v, *lv;
	int found = 0;

	if (!path || !path[0])
		return;
	o = json_object_from_file(path);
	if (!o) {
		char why[600];
		int err = access(path, R_OK) ? errno : EINVAL;

		snprintf(why, sizeof(why), "the machine profile %.400s could not be read (%s)", path,
			 err == EINVAL ? "not a JSON profile" : strerror(err));
		pr_warn("%s", why);
		factbase__mark(fb, EV_MACHINE, false, why);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (json_object_object_get_ex(o, keys[i].key, &v) &&
		    (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) &&
		    json_object_get_double(v) > 0) {
			factbase__set(fb, -1, keys[i].name, json_object_get_double(v), TIER_SOFTWARE);
			found++;
		}
	}
	if (json_object_object_get_ex(o, "levels", &lv) && json_object_is_type(lv, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(lv); i++) {
			struct json_object *e = json_object_array_get_idx(lv, i), *n, *lat;

			if (!json_object_object_get_ex(e, "name", &n) ||
			    !json_object_object_get_ex(e, "latency_ns", &lat) ||
			    json_object_get_double(lat) <= 0)
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(levels); k++) {
				if (strcmp(json_object_get_string(n), levels[k].level))
					continue;
				factbase__set(fb, -1, levels[k].name, json_object_get_double(lat),
					      TIER_SOFTWARE);
				found++;
			}
		}
	}
	json_object_put(o);
	factbase__mark(fb, EV_MACHINE, found > 0, "the machine profile has no latencies");
}

int bind__machine_profile_path(char *buf, size_t len)
{
	const char *env = getenv("MEMADVISE_PROFILE");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (env && *env) {
		/* asked for by name: an unreadable file is said, not passed over */
		snprintf(buf, len, "%s", env);
		return 0;
	} else if (xdg && *xdg)
		snprintf(buf, len, "%s/memadvise/machine.json", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.cache/memadvise/machine.json", home);
	else
		return -ENOENT;
	return access(buf, R_OK) ? -ENOENT : 0;
}

void eval_opts__from_env(struct eval_opts *o)
{
	const char *dump = getenv("MEMADVISE_RECORD_FACTS");

	memset(o, 0, sizeof(*o));
	if (bind__machine_profile_path(o->machine_profile, sizeof(o->machine_profile)))
		o->machine_profile[0] = '\0';
	o->record_facts = dump && *dump ? dump : NULL;
	o->min_gain = EVAL_MIN_GAIN_DEFAULT;
}

int factbase__from_input(const struct rules_input *in, struct factbase **out)
{
	const struct report *r = in->snapshot;
	struct factbase *fb = factbase__new();

	if (!fb)
		return -ENOMEM;
	factbase__mark(fb, EV_LAYOUT, false, "no DWARF debug info read for the target");
	factbase__mark(fb, EV_HOTSPOTS, false, "no code samples (sampling was off)");
	factbase__mark(fb, EV_FAULTS, false, "page faults were not traced");
	factbase__mark(fb, EV_REGIONS, false, "memory regions were not captured");
	factbase__mark(fb, EV_ADDR, false, "no data addresses were sampled");
	factbase__mark(fb, EV_WATCH, false, "no hardware watchpoints were set");
	factbase__mark(fb, EV_SYSCALLS, false, "system calls were not traced");
	factbase__mark(fb, EV_SIM, false, "no cache simulation (run with --sim)");
	factbase__mark(fb, EV_MACHINE, false,
		       "no machine profile (run 'memadvise calibrate' for latency-based estimates)");

	if (r->target.wall_ns)
		factbase__set(fb, -1, "run.wall_s", r->target.wall_ns / 1e9, TIER_SOFTWARE);
	bind_counters(r, fb);
	bind_machine(fb);
	bind_machine_profile(fb, in->opts ? in->opts->machine_profile : NULL);
	bind__sections(in, fb);
	*out = fb;
	return 0;
}
