/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine profile written by 'memadvise calibrate' and read by the
 * rules engine for impact estimates: load-to-use latency per cache level,
 * cache sizes, TLB-miss penalty, bandwidth and sharing costs measured on
 * this machine. Stored as JSON (json-c) in
 *	$MEMADVISE_PROFILE, else $XDG_CACHE_HOME/memadvise/machine.json,
 *	else ~/.cache/memadvise/machine.json.
 * A value that was not measured is NAN (absent in the JSON), never 0.
 */
#ifndef __MA_MACHINE_PROFILE_H
#define __MA_MACHINE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MACHINE_PROFILE_SCHEMA 1

enum mp_level_id { MP_L1D, MP_L2, MP_L3, MP_DRAM, MP__LEVELS };

struct mp_level {
	uint64_t sysfs_size;	/* bytes, 0 when sysfs has no such cache */
	uint64_t detected_size; /* bytes at the latency knee, 0 when none was found */
	double latency_ns;	/* load-to-use latency, best of the repetitions; NAN: not measured */
	double median_ns;	/* the same from the medians of the repetitions */
	double latency_cycles;	/* latency_ns * ghz */
	double spread_ns;	/* max - min over the repetitions */
	uint64_t at_ws;		/* working set the latency was taken at */
};

struct machine_profile {
	int schema_version;
	char created[32];	/* ISO 8601 UTC */
	char cpu_model[128];
	int nr_cpus;
	bool hypervisor;
	bool quick;		/* produced by 'calibrate --quick' */
	double ghz;		/* clock used to turn ns into cycles */
	char ghz_source[96];
	struct mp_level level[MP__LEVELS];
	int l1d_ways, l1d_ways_sysfs; /* 0 when unknown */
	int dtlb_entries, stlb_entries; /* knees of the one-entry-per-page walk */
	double tlb_miss_ns;	/* page-per-entry minus packed at the largest size */
	double seq_ns, rand_ns; /* NPAD=0 list walk per element at walk_ws */
	uint64_t walk_ws;
	double bw_read_gbs, bw_write_gbs, bw_copy_gbs, bw_nt_write_gbs;
	double false_sharing_ns, no_sharing_ns; /* per locked add, 2 threads */
	double line_handoff_ns;	/* one line moved between two cores (ping-pong) */
	double atomic_add_ns, atomic_fetch_add_ns, atomic_cas_ns, atomic_local_ns;
	double page_fault_ns;	/* per minor fault (first touch) */
};

/* Fills mp with NANs and zeroes (nothing measured). */
void machine_profile__init(struct machine_profile *mp);
/* The profile's default path; 0 or -ENOENT when neither $HOME nor $XDG_CACHE_HOME is set. */
int machine_profile__default_path(char *buf, size_t len);
/* Loads from the default path; 0, -ENOENT (no profile yet), -EINVAL (bad file). */
int machine_profile__load(struct machine_profile *mp);
int machine_profile__load_file(struct machine_profile *mp, const char *path);
/* Writes path (NULL: the default path, creating its directory); 0 or -errno. */
int machine_profile__save(const struct machine_profile *mp, const char *path);

/* mkdir -p of the directory part of path (the part before the last '/'); 0 or -errno. */
int machine_profile__make_dirs(const char *path);

struct json_object;
struct json_object *machine_profile__to_json(const struct machine_profile *mp);
int machine_profile__from_json(struct machine_profile *mp, struct json_object *o);

/* Latency of a level in ns, or the nearest slower measured level; NAN when none. */
double machine_profile__latency_ns(const struct machine_profile *mp, enum mp_level_id lvl);
const char *machine_profile__level_name(enum mp_level_id lvl);

#endif
