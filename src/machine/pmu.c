// SPDX-License-Identifier: GPL-2.0-only
/*
 * Generic event names -> perf_event_attr.
 *
 * A generic hardware name maps to the host PMU's own event through libpfm4
 * (per CPU model: the tables below list, for each libpfm4 PMU, the events in
 * preference order), then to perf's generic PERF_TYPE_HARDWARE/HW_CACHE event
 * as fallback.  Software names are PERF_TYPE_SOFTWARE, built here without
 * libpfm4.  Anything else is a raw libpfm4 string.
 *
 * Every native encoding below was checked against libpfm4 4.13's tables
 * (LIBPFM_FORCE_PMU=<pmu> LIBPFM_ENCODE_INACTIVE=1); tests/unit/u-pmu.c
 * asserts the resulting config values.
 */
#include "machine/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "base/log.h"
#include "machine/sysinfo.h"
#include "base/util.h"

const char *const pmu__generic_names[] = {
	"cycles", "instructions", "l1d_miss", "dtlb_miss", "llc_miss", "branch_miss",
	"task_clock", "page_faults", "minor_faults", "major_faults",
	"context_switches", "cpu_migrations", NULL,
};

#define NR_HW_GENERIC 6

struct generic_info {
	const char *name;
	const char *desc;
};

static const struct generic_info generic_desc[] = {
	{ "cycles", "core clock cycles while not halted (paper: CPU_CLK_UNHALTED)" },
	{ "instructions", "retired instructions (paper: INST_RETIRED)" },
	{ "l1d_miss", "L1 data cache lines brought in (paper: L1D_REPL)" },
	{ "dtlb_miss", "data TLB misses that needed a page walk (paper: DTLB_MISSES)" },
	{ "llc_miss", "last-level cache misses (demand data on AMD)" },
	{ "branch_miss", "mispredicted retired branches" },
	{ "task_clock", "CPU time of the task in ns (software)" },
	{ "page_faults", "page faults, minor and major (software)" },
	{ "minor_faults", "page faults served without I/O (software)" },
	{ "major_faults", "page faults that needed I/O (software)" },
	{ "context_switches", "context switches (software)" },
	{ "cpu_migrations", "moves of the task to another CPU (software)" },
};

/*
 * Native events per libpfm4 PMU.  'pmu' is an exact libpfm4 PMU name, or
 * "intel"/"amd" for every PMU of that vendor; rows are tried in order and
 * the first that encodes on the host PMU wins, so model-specific rows come
 * before the vendor rows.
 */
struct native {
	const char *pmu;
	const char *generic;
	const char *event;
};

static const struct native natives[] = {
	/* AMD Zen 4: fills from every source = L1D refills; demand fills from beyond the CCX's L3 */
	{ "amd64_fam19h_zen4", "l1d_miss", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:0xdf" },	/* 0xdf44 */
	{ "amd64_fam19h_zen4", "llc_miss", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:0xdc" }, /* 0xdc43 */
	/* AMD Zen 3: same events, Zen 3 umasks (no ALT_MEM) */
	{ "amd64_fam19h_zen3", "l1d_miss", "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:0x5f" },	/* 0x5f44 */
	{ "amd64_fam19h_zen3", "llc_miss", "DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:0x5c" }, /* 0x5c43 */
	/* AMD Zen 2: demand refills from DRAM or a remote cache */
	{ "amd64_fam17h_zen2", "llc_miss", "DATA_CACHE_REFILLS_FROM_SYSTEM:0x58" },	/* 0x5843 */
	/* AMD Zen 1/2 (and 3/4 as a last resort): L2 requests from L1D misses, the kernel's L1-dcache-load-misses */
	{ "amd", "l1d_miss", "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:CHANGE_TO_X" },	/* 0xc860 */
	{ "amd", "cycles", "CYCLES_NOT_IN_HALT" },					/* 0x76 */
	{ "amd", "instructions", "RETIRED_INSTRUCTIONS" },				/* 0xc0 */
	/*
	 * L1 DTLB misses that also missed the L2 DTLB = page walks: umasks
	 * TLB_RELOAD_{4K,2M,1G,COALESCED_PAGE}_L2_MISS, written raw so that the
	 * encoding stays readable (same 0xf045 as the named form)
	 */
	{ "amd", "dtlb_miss", "L1_DTLB_MISS:0xf0" },					/* 0xf045 */
	{ "amd", "branch_miss", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },		/* 0xc3 */

	/* Intel, Sandy Bridge to Sapphire Rapids (architectural events last) */
	{ "intel", "cycles", "CPU_CLK_UNHALTED:THREAD_P" },	  /* 0x3c */
	{ "intel", "cycles", "UNHALTED_CORE_CYCLES" },		  /* 0x3c */
	{ "intel", "instructions", "INST_RETIRED:ANY_P" },	  /* 0xc0 */
	{ "intel", "instructions", "INSTRUCTION_RETIRED" },	  /* 0xc0 */
	{ "intel", "l1d_miss", "L1D:REPLACEMENT" },		  /* 0x151 */
	{ "intel", "dtlb_miss", "DTLB_LOAD_MISSES:WALK_COMPLETED" }, /* skl/icl 0xe08, spr 0xe12, snb 0x208 */
	{ "intel", "llc_miss", "LONGEST_LAT_CACHE:MISS" },	  /* 0x412e */
	{ "intel", "llc_miss", "LLC_MISSES" },			  /* 0x412e (snb, ix86arch) */
	{ "intel", "branch_miss", "BR_MISP_RETIRED:ALL_BRANCHES" }, /* 0xc5 (snb 0x4c5) */
	{ "intel", "branch_miss", "MISPREDICTED_BRANCH_RETIRED" },  /* 0xc5 (ix86arch) */
};

struct perf_generic {
	const char *generic;
	__u32 type;
	__u64 config;
	const char *encoding;
	bool not_amd; /* CACHE_MISSES counts L2 misses on AMD, not LLC misses */
};

#define HW_CACHE(id, op, res) ((id) | ((op) << 8) | ((res) << 16))

static const struct perf_generic perf_generics[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "perf::PERF_COUNT_HW_CPU_CYCLES", false },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "perf::PERF_COUNT_HW_INSTRUCTIONS", false },
	{ "l1d_miss", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS", false },
	{ "dtlb_miss", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "perf::PERF_COUNT_HW_CACHE_DTLB:READ:MISS", false },
	{ "llc_miss", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
	  "perf::PERF_COUNT_HW_CACHE_LL:READ:MISS", false },
	{ "llc_miss", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "perf::PERF_COUNT_HW_CACHE_MISSES", true },
	{ "branch_miss", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "perf::PERF_COUNT_HW_BRANCH_MISSES", false },
	{ "task_clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "perf::PERF_COUNT_SW_TASK_CLOCK", false },
	{ "page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "perf::PERF_COUNT_SW_PAGE_FAULTS", false },
	{ "minor_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN", false },
	{ "major_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ", false },
	{ "context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	  "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", false },
	{ "cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "perf::PERF_COUNT_SW_CPU_MIGRATIONS", false },
};

/* Precise sampling on Intel (PEBS); AMD uses IBS op, built from sysfs. */
struct precise {
	const char *generic;
	const char *event;
	__u64 sample_type; /* beyond IP|TID */
	__u64 period;
};

#define S_ADDR PERF_SAMPLE_ADDR
#define S_LAT (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT)

static const struct precise intel_precise[] = {
	{ "l1d_miss", "MEM_LOAD_RETIRED:L1_MISS", S_ADDR, 10007 },	      /* skl+ 0x8d1 */
	{ "l1d_miss", "MEM_LOAD_UOPS_RETIRED:L1_MISS", S_ADDR, 10007 },	      /* hsw/bdw */
	{ "llc_miss", "MEM_LOAD_RETIRED:L3_MISS", S_ADDR, 1009 },	      /* skl+ 0x20d1 */
	{ "llc_miss", "MEM_LOAD_UOPS_RETIRED:L3_MISS", S_ADDR, 1009 },
	{ "llc_miss", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=128", S_LAT, 1009 },
	{ "dtlb_miss", "MEM_INST_RETIRED:STLB_MISS_LOADS", S_ADDR, 1009 },    /* skl+ 0x11d0 */
	{ "dtlb_miss", "MEM_UOPS_RETIRED:STLB_MISS_LOADS", S_ADDR, 1009 },
	{ "branch_miss", "BR_MISP_RETIRED:ALL_BRANCHES", 0, 10007 },
	{ "loads", "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3", S_LAT, 10007 }, /* 0x1cd, config1 = 3 */
	{ "stores", "MEM_INST_RETIRED:ALL_STORES", S_ADDR, 10007 },	      /* skl+ 0x82d0 */
	{ "stores", "MEM_UOPS_RETIRED:ALL_STORES", S_ADDR, 10007 },
};

static const char *const precise_names[] = {
	"l1d_miss", "llc_miss", "dtlb_miss", "branch_miss", "loads", "stores", NULL,
};

static struct {
	bool done;
	int err;
	char host[64]; /* libpfm4 name of the core PMU, "" when none */
} pfm;

static char sysfs_root[256] = "/sys/bus/event_source/devices";

void pmu__set_sysfs_root(const char *dir)
{
	snprintf(sysfs_root, sizeof(sysfs_root), "%s", dir ? dir : "/sys/bus/event_source/devices");
}

static int pfm_to_errno(int ret)
{
	switch (ret) {
	case PFM_SUCCESS: return 0;
	case PFM_ERR_NOTFOUND: return -ENOENT;
	case PFM_ERR_NOMEM: return -ENOMEM;
	case PFM_ERR_NOTSUPP:
	case PFM_ERR_NOINIT: return -EOPNOTSUPP;
	default: return -EINVAL; /* bad umask, attribute, value, syntax */
	}
}

static void find_host_pmu(void)
{
	pfm_pmu_info_t info;
	char fallback[64] = "";
	int i;

	pfm_for_all_pmus(i) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(i, &info) != PFM_SUCCESS || !info.is_present)
			continue;
		if (info.type != PFM_PMU_TYPE_CORE || !strcmp(info.name, "perf") ||
		    !strcmp(info.name, "perf_raw"))
			continue;
		if (!strcmp(info.name, "ix86arch")) {
			snprintf(fallback, sizeof(fallback), "%s", info.name);
			continue;
		}
		snprintf(pfm.host, sizeof(pfm.host), "%s", info.name);
		return;
	}
	snprintf(pfm.host, sizeof(pfm.host), "%s", fallback);
}

int pmu__init(void)
{
	int ret;

	if (pfm.done)
		return pfm.err;
	pfm.done = true;
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		pr_debug("libpfm4: %s", pfm_strerror(ret));
		pfm.err = pfm_to_errno(ret);
		return pfm.err;
	}
	find_host_pmu();
	pr_debug("libpfm4 host PMU: %s", pfm.host[0] ? pfm.host : "(none)");
	return 0;
}

const char *pmu__host_pmu_name(void)
{
	pmu__init();
	return pfm.host[0] ? pfm.host : NULL;
}

static bool host_is_amd(void)
{
	char vendor[32] = "";
	int fam, model;

	if (pfm.host[0])
		return !strncmp(pfm.host, "amd64", 5);
	if (sysinfo__cpu(vendor, sizeof(vendor), &fam, &model, NULL, 0))
		return false;
	return !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
}

bool pmu__is_generic(const char *name)
{
	for (int i = 0; pmu__generic_names[i]; i++)
		if (!strcmp(name, pmu__generic_names[i]))
			return true;
	return false;
}

const char *pmu__describe(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(generic_desc); i++)
		if (!strcmp(generic_desc[i].name, name))
			return generic_desc[i].desc;
	return NULL;
}

static bool is_hw_generic(const char *name)
{
	for (int i = 0; i < NR_HW_GENERIC; i++)
		if (!strcmp(name, pmu__generic_names[i]))
			return true;
	return false;
}

static bool type_is_hardware(__u32 type)
{
	return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT &&
	       type != PERF_TYPE_BREAKPOINT;
}

/* "skl::L1D:REPLACEMENT:e=0:i=0:..." -> "skl::L1D:REPLACEMENT" (modifiers dropped) */
static void canonical(const char *fstr, char *buf, size_t len)
{
	const char *ev = strstr(fstr, "::");
	size_t n = 0;

	ev = ev ? ev + 2 : fstr;
	snprintf(buf, len, "%.*s", (int)(ev - fstr), fstr);
	n = strlen(buf);
	for (const char *p = ev; *p && n + 1 < len;) {
		const char *end = strchr(p, ':');
		size_t l = end ? (size_t)(end - p) : strlen(p);

		if (!memchr(p, '=', l)) {
			if (p != ev && n + 1 < len)
				buf[n++] = ':';
			if (n + l >= len)
				l = len - n - 1;
			memcpy(buf + n, p, l);
			n += l;
			buf[n] = 0;
		}
		if (!end)
			break;
		p = end + 1;
	}
}

/* Encodes STR through libpfm4 into EV (type/config/config1/config2 only). */
static int encode(const char *str, struct pmu_event *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	if (pmu__init())
		return -EOPNOTSUPP;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	attr.size = sizeof(attr);
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(str, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		pr_debug("event '%s': %s", str, pfm_strerror(ret));
		return pfm_to_errno(ret);
	}
	memset(&ev->attr, 0, sizeof(ev->attr));
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = attr.type;
	ev->attr.config = attr.config;
	ev->attr.config1 = attr.config1;
	ev->attr.config2 = attr.config2;
	canonical(fstr ? fstr : str, ev->encoding, sizeof(ev->encoding));
	free(fstr);
	ev->hardware = type_is_hardware(attr.type);
	ev->tier = ev->hardware ? TIER_COUNTING : TIER_SOFTWARE;
	return 0;
}

static bool row_applies(const char *row_pmu, const char *host, bool amd)
{
	if (!strcmp(row_pmu, "amd"))
		return amd;
	if (!strcmp(row_pmu, "intel"))
		return !amd;
	return !strcmp(row_pmu, host);
}

static bool seen(const struct pmu_event *out, int n, const struct pmu_event *ev)
{
	for (int i = 0; i < n; i++)
		if (out[i].attr.type == ev->attr.type && out[i].attr.config == ev->attr.config &&
		    out[i].attr.config1 == ev->attr.config1)
			return true;
	return false;
}

static void set_name(struct pmu_event *ev, const char *name)
{
	snprintf(ev->name, sizeof(ev->name), "%s", name);
}

int pmu__candidates(const char *name, struct pmu_event *out, int max)
{
	bool amd;
	int n = 0;

	if (!name || !*name || max <= 0)
		return -EINVAL;

	if (pmu__is_generic(name)) {
		pmu__init();
		amd = host_is_amd();
		if (is_hw_generic(name) && pfm.host[0]) {
			for (size_t i = 0; i < ARRAY_SIZE(natives) && n < max; i++) {
				char str[192];

				if (strcmp(natives[i].generic, name) ||
				    !row_applies(natives[i].pmu, pfm.host, amd))
					continue;
				snprintf(str, sizeof(str), "%s::%s", pfm.host, natives[i].event);
				if (encode(str, &out[n]))
					continue;
				if (seen(out, n, &out[n]))
					continue;
				set_name(&out[n], name);
				n++;
			}
		}
		for (size_t i = 0; i < ARRAY_SIZE(perf_generics) && n < max; i++) {
			const struct perf_generic *g = &perf_generics[i];
			struct pmu_event *ev = &out[n];

			if (strcmp(g->generic, name) || (g->not_amd && amd))
				continue;
			memset(ev, 0, sizeof(*ev));
			set_name(ev, name);
			snprintf(ev->encoding, sizeof(ev->encoding), "%s", g->encoding);
			ev->attr.size = sizeof(ev->attr);
			ev->attr.type = g->type;
			ev->attr.config = g->config;
			ev->hardware = g->type != PERF_TYPE_SOFTWARE;
			ev->tier = ev->hardware ? TIER_COUNTING : TIER_SOFTWARE;
			n++;
		}
		return n;
	}

	/* a raw libpfm4 string */
	if (strpbrk(name, ", \t\n"))
		return -EINVAL;
	memset(&out[0], 0, sizeof(out[0]));
	{
		int err = encode(name, &out[0]);

		if (err)
			return err == -EOPNOTSUPP ? -ENOENT : err;
	}
	set_name(&out[0], name);
	return 1;
}

/* Reads a sysfs PMU's dynamic type (/sys/bus/event_source/devices/NAME/type). */
int pmu__sysfs_type(const char *pmu_name)
{
	char path[512];
	uint64_t v;
	int err;

	snprintf(path, sizeof(path), "%s/%s/type", sysfs_root, pmu_name);
	err = read_u64_file(path, &v);
	if (err)
		return err < 0 ? err : -ENOENT;
	return (int)v;
}

/* Bit of a sysfs PMU format field ("config:19" -> 19), or -ENOENT. */
static int sysfs_format_bit(const char *pmu_name, const char *field)
{
	char path[512], buf[64];
	int bit;

	snprintf(path, sizeof(path), "%s/%s/format/%s", sysfs_root, pmu_name, field);
	if (read_line(path, buf, sizeof(buf)))
		return -ENOENT;
	if (sscanf(buf, "config:%d", &bit) != 1 || bit < 0 || bit > 63)
		return -EINVAL;
	return bit;
}

bool pmu__hw_exposed(void)
{
	DIR *d = opendir(sysfs_root);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		/* cpu, cpu_core/cpu_atom (hybrid), armv8_pmuv3_0 */
		if (!strncmp(de->d_name, "cpu", 3) || !strncmp(de->d_name, "armv", 4)) {
			found = true;
			break;
		}
	}
	closedir(d);
	return found;
}

static bool is_precise_name(const char *name)
{
	for (int i = 0; precise_names[i]; i++)
		if (!strcmp(name, precise_names[i]))
			return true;
	return false;
}

static int ibs_candidate(const char *name, struct pmu_event *ev)
{
	int type = pmu__sysfs_type("ibs_op"), bit;

	if (type < 0)
		return -EOPNOTSUPP;
	memset(ev, 0, sizeof(*ev));
	set_name(ev, name);
	ev->attr.size = sizeof(ev->attr);
	ev->attr.type = type;
	bit = sysfs_format_bit("ibs_op", "cnt_ctl"); /* count dispatched ops, not cycles */
	if (bit >= 0)
		ev->attr.config |= 1ULL << bit;
	snprintf(ev->encoding, sizeof(ev->encoding), "ibs_op/cnt_ctl=1/");
	if (!strcmp(name, "llc_miss")) {
		bit = sysfs_format_bit("ibs_op", "l3missonly"); /* Zen 4+ */
		if (bit >= 0) {
			ev->attr.config |= 1ULL << bit;
			snprintf(ev->encoding, sizeof(ev->encoding), "ibs_op/cnt_ctl=1,l3missonly=1/");
		}
	}
	ev->attr.sample_period = 65536; /* IBS wants a multiple of 16 */
	ev->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
			       PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_RAW;
	ev->hardware = true;
	ev->tier = TIER_PRECISE;
	return 0;
}

int pmu__sampling_candidates(const char *name, struct pmu_event *out, int max)
{
	int n = 0;

	if (!name || max <= 0)
		return -EINVAL;
	if (!is_precise_name(name))
		return -ENOENT;
	pmu__init();
	if (!pfm.host[0])
		return -EOPNOTSUPP;
	if (host_is_amd()) {
		if (ibs_candidate(name, &out[0]))
			return -EOPNOTSUPP;
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(intel_precise) && n < max; i++) {
		const struct precise *p = &intel_precise[i];
		char str[192];

		if (strcmp(p->generic, name))
			continue;
		snprintf(str, sizeof(str), "%s::%s", pfm.host, p->event);
		if (encode(str, &out[n]) || seen(out, n, &out[n]))
			continue;
		set_name(&out[n], name);
		out[n].attr.precise_ip = 2;
		out[n].attr.sample_period = p->period;
		out[n].attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | p->sample_type;
		out[n].tier = TIER_PRECISE;
		n++;
	}
	return n ? n : -EOPNOTSUPP;
}

static const char *why_no_pmu(void)
{
	return sysinfo__hypervisor() > 0 ? "no hardware PMU: virtualized guest"
					 : "no hardware PMU exposed by the kernel";
}

void pmu__strerror_open(int err, const struct perf_event_attr *attr, char *buf, size_t len)
{
	bool hw = attr && type_is_hardware(attr->type);
	int paranoid = 0;
	struct rlimit rl;

	if (err < 0)
		err = -err;
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (hw && !pmu__hw_exposed()) {
			snprintf(buf, len, "%s", why_no_pmu());
		} else if (err == EOPNOTSUPP && attr && attr->precise_ip) {
			snprintf(buf, len, "precise sampling (precise_ip=%u) is not supported by this PMU",
				 attr->precise_ip);
		} else if (err == EOPNOTSUPP && attr && attr->sample_period) {
			snprintf(buf, len, "this PMU cannot sample (no overflow interrupt); count instead");
		} else if (hw) {
			snprintf(buf, len, "event not supported by this CPU's PMU (type %u, config %#llx); "
				 "see 'memadvise probe'", attr->type, (unsigned long long)attr->config);
		} else {
			snprintf(buf, len, "event not supported by this kernel (%s)", strerror(err));
		}
		break;
	case EACCES:
	case EPERM:
		if (sysinfo__perf_paranoid(&paranoid))
			snprintf(buf, len, "permission denied; run as root or grant CAP_PERFMON "
				 "(setcap cap_perfmon+ep)");
		else
			snprintf(buf, len, "permission denied: kernel.perf_event_paranoid is %d; run as root, "
				 "grant CAP_PERFMON, or lower the sysctl", paranoid);
		break;
	case EMFILE:
		if (!getrlimit(RLIMIT_NOFILE, &rl))
			snprintf(buf, len, "too many open files (ulimit -n is %llu); raise 'ulimit -n'",
				 (unsigned long long)rl.rlim_cur);
		else
			snprintf(buf, len, "too many open files; raise 'ulimit -n'");
		break;
	case EBUSY:
		snprintf(buf, len, "the PMU is busy (another profiler or the NMI watchdog holds it; "
			 "try sysctl kernel.nmi_watchdog=0)");
		break;
	case ENOSPC:
		snprintf(buf, len, "no free counter or debug register (4 watchpoints per thread)");
		break;
	case EINVAL:
		if (!attr)
			snprintf(buf, len, "invalid event attributes");
		else if (attr->precise_ip)
			snprintf(buf, len, "invalid event attributes (precise_ip=%u, type %u, config %#llx)",
				 attr->precise_ip, attr->type, (unsigned long long)attr->config);
		else if (attr->type == PERF_TYPE_BREAKPOINT)
			snprintf(buf, len, "invalid watchpoint (bp_type %u, bp_len %llu; x86 has no "
				 "read-only watchpoint, lengths are 1, 2, 4, 8)", attr->bp_type,
				 (unsigned long long)attr->bp_len);
		else
			snprintf(buf, len, "invalid event attributes (type %u, config %#llx%s%s)",
				 attr->type, (unsigned long long)attr->config,
				 attr->sample_period ? ", sampling" : "", attr->inherit ? ", inherit" : "");
		break;
	case ESRCH:
		snprintf(buf, len, "no such process");
		break;
	case E2BIG:
		snprintf(buf, len, "perf_event_attr size not accepted by this kernel");
		break;
	default:
		snprintf(buf, len, "%s", strerror(err));
		break;
	}
}
