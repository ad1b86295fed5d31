// SPDX-License-Identifier: GPL-2.0-only
#include "machine/machine_profile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/json.h"

static const char *level_names[MP__LEVELS] = { "L1d", "L2", "L3", "DRAM" };

const char *machine_profile__level_name(enum mp_level_id lvl)
{
	return lvl < MP__LEVELS ? level_names[lvl] : "?";
}

void machine_profile__init(struct machine_profile *mp)
{
	memset(mp, 0, sizeof(*mp));
	mp->schema_version = MACHINE_PROFILE_SCHEMA;
	mp->ghz = NAN;
	for (int i = 0; i < MP__LEVELS; i++) {
		mp->level[i].latency_ns = NAN;
		mp->level[i].median_ns = NAN;
		mp->level[i].latency_cycles = NAN;
		mp->level[i].spread_ns = NAN;
	}
	mp->tlb_miss_ns = mp->seq_ns = mp->rand_ns = NAN;
	mp->bw_read_gbs = mp->bw_write_gbs = mp->bw_copy_gbs = mp->bw_nt_write_gbs = NAN;
	mp->false_sharing_ns = mp->no_sharing_ns = mp->line_handoff_ns = NAN;
	mp->atomic_add_ns = mp->atomic_fetch_add_ns = mp->atomic_cas_ns = mp->atomic_local_ns = NAN;
	mp->page_fault_ns = NAN;
}

int machine_profile__default_path(char *buf, size_t len)
{
	const char *env = getenv("MEMADVISE_PROFILE"), *dir = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if (dir && *dir)
		n = snprintf(buf, len, "%s/memadvise/machine.json", dir);
	else if (home && *home)
		n = snprintf(buf, len, "%s/.cache/memadvise/machine.json", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Table of the plain double fields, so to_json and from_json cannot disagree. */
struct dfield {
	const char *name;
	size_t off;
};
#define DF(f) { #f, offsetof(struct machine_profile, f) }
static const struct dfield dfields[] = {
	DF(ghz),	     DF(tlb_miss_ns),	      DF(seq_ns),	       DF(rand_ns),
	DF(bw_read_gbs),     DF(bw_write_gbs),	      DF(bw_copy_gbs),	       DF(bw_nt_write_gbs),
	DF(false_sharing_ns), DF(no_sharing_ns),      DF(atomic_add_ns),       DF(atomic_fetch_add_ns),
	DF(atomic_cas_ns),   DF(atomic_local_ns),     DF(page_fault_ns),       DF(line_handoff_ns),
};
#undef DF

static double *dfield_ptr(struct machine_profile *mp, size_t i)
{
	return (double *)((char *)mp + dfields[i].off);
}

static void add_double(struct json_object *o, const char *k, double v)
{
	if (!isnan(v))
		json_object_object_add(o, k, json_object_new_double(v));
}

static void add_size(struct json_object *o, const char *k, uint64_t v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

struct json_object *machine_profile__to_json(const struct machine_profile *mp)
{
	struct json_object *o = json_object_new_object(), *lv = json_object_new_array();

	json_object_object_add(o, "schema_version", json_object_new_int(mp->schema_version));
	json_object_object_add(o, "created", json_str(mp->created));
	json_object_object_add(o, "cpu_model", json_str(mp->cpu_model));
	json_object_object_add(o, "nr_cpus", json_object_new_int(mp->nr_cpus));
	json_object_object_add(o, "hypervisor", json_object_new_boolean(mp->hypervisor));
	json_object_object_add(o, "quick", json_object_new_boolean(mp->quick));
	json_object_object_add(o, "tier", json_str("software"));
	json_object_object_add(o, "ghz_source", json_str(mp->ghz_source));
	for (size_t i = 0; i < sizeof(dfields) / sizeof(dfields[0]); i++)
		add_double(o, dfields[i].name, *dfield_ptr((struct machine_profile *)mp, i));
	for (int i = 0; i < MP__LEVELS; i++) {
		const struct mp_level *l = &mp->level[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "name", json_str(level_names[i]));
		add_size(e, "sysfs_size", l->sysfs_size);
		add_size(e, "detected_size", l->detected_size);
		add_double(e, "latency_ns", l->latency_ns);
		add_double(e, "median_ns", l->median_ns);
		add_double(e, "latency_cycles", l->latency_cycles);
		add_double(e, "spread_ns", l->spread_ns);
		add_size(e, "at_ws", l->at_ws);
		json_object_array_add(lv, e);
	}
	json_object_object_add(o, "levels", lv);
	if (mp->l1d_ways)
		json_object_object_add(o, "l1d_ways", json_object_new_int(mp->l1d_ways));
	if (mp->l1d_ways_sysfs)
		json_object_object_add(o, "l1d_ways_sysfs", json_object_new_int(mp->l1d_ways_sysfs));
	if (mp->dtlb_entries)
		json_object_object_add(o, "dtlb_entries", json_object_new_int(mp->dtlb_entries));
	if (mp->stlb_entries)
		json_object_object_add(o, "stlb_entries", json_object_new_int(mp->stlb_entries));
	add_size(o, "walk_ws", mp->walk_ws);
	return o;
}

static double get_double(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v))
		return NAN;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return NAN;
	return json_object_get_double(v);
}

static uint64_t get_u64(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int))
		return 0;
	return (uint64_t)json_object_get_int64(v);
}

static void get_string(struct json_object *o, const char *k, char *buf, size_t len)
{
	struct json_object *v;

	if (json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string))
		snprintf(buf, len, "%s", json_object_get_string(v));
}

int machine_profile__from_json(struct machine_profile *mp, struct json_object *o)
{
	struct json_object *lv, *v;

	machine_profile__init(mp);
	if (!json_object_is_type(o, json_type_object))
		return -EINVAL;
	mp->schema_version = (int)get_u64(o, "schema_version");
	if (mp->schema_version != MACHINE_PROFILE_SCHEMA)
		return -EINVAL;
	get_string(o, "created", mp->created, sizeof(mp->created));
	get_string(o, "cpu_model", mp->cpu_model, sizeof(mp->cpu_model));
	get_string(o, "ghz_source", mp->ghz_source, sizeof(mp->ghz_source));
	mp->nr_cpus = (int)get_u64(o, "nr_cpus");
	if (json_object_object_get_ex(o, "hypervisor", &v))
		mp->hypervisor = json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "quick", &v))
		mp->quick = json_object_get_boolean(v);
	for (size_t i = 0; i < sizeof(dfields) / sizeof(dfields[0]); i++)
		*dfield_ptr(mp, i) = get_double(o, dfields[i].name);
	if (json_object_object_get_ex(o, "levels", &lv) && json_object_is_type(lv, json_type_array)) {
		size_t n = json_object_array_length(lv);

		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(lv, i);
			char name[16] = "";

			get_string(e, "name", name, sizeof(name));
			for (int k = 0; k < MP__LEVELS; k++) {
				struct mp_level *l = &mp->level[k];

				if (strcmp(name, level_names[k]))
					continue;
				l->sysfs_size = get_u64(e, "sysfs_size");
				l->detected_size = get_u64(e, "detected_size");
				l->latency_ns = get_double(e, "latency_ns");
				l->median_ns = get_double(e, "median_ns");
				l->latency_cycles = get_double(e, "latency_cycles");
				l->spread_ns = get_double(e, "spread_ns");
				l->at_ws = get_u64(e, "at_ws");
			}
		}
	}
	mp->l1d_ways = (int)get_u64(o, "l1d_ways");
	mp->l1d_ways_sysfs = (int)get_u64(o, "l1d_ways_sysfs");
	mp->dtlb_entries = (int)get_u64(o, "dtlb_entries");
	mp->stlb_entries = (int)get_u64(o, "stlb_entries");
	mp->walk_ws = get_u64(o, "walk_ws");
	return 0;
}

int machine_profile__load_file(struct machine_profile *mp, const char *path)
{
	struct json_object *o;
	int err;

	machine_profile__init(mp);
	if (access(path, R_OK))
		return -errno;
	o = json_object_from_file(path);
	if (!o)
		return -EINVAL;
	err = machine_profile__from_json(mp, o);
	json_object_put(o);
	return err;
}

int machine_profile__load(struct machine_profile *mp)
{
	char path[4096];
	int err = machine_profile__default_path(path, sizeof(path));

	if (err) {
		machine_profile__init(mp);
		return err;
	}
	return machine_profile__load_file(mp, path);
}

int machine_profile__make_dirs(const char *path)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int machine_profile__save(const struct machine_profile *mp, const char *path)
{
	char def[4096], tmp[4200];
	struct json_object *o;
	int err;

	if (!path) {
		err = machine_profile__default_path(def, sizeof(def));
		if (err)
			return err;
		path = def;
	}
	err = machine_profile__make_dirs(path);
	if (err)
		return err;
	o = machine_profile__to_json(mp);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (json_object_to_file_ext(tmp, o, JSON_C_TO_STRING_PRETTY) < 0) {
		err = errno ? -errno : -EIO;
		json_object_put(o);
		return err;
	}
	json_object_put(o);
	if (rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

double machine_profile__latency_ns(const struct machine_profile *mp, enum mp_level_id lvl)
{
	for (int i = lvl; i < MP__LEVELS; i++)
		if (!isnan(mp->level[i].latency_ns))
			return mp->level[i].latency_ns;
	return NAN;
}
