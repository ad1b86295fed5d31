// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event name resolution.  Each case runs in its own process, so each can
 * force a libpfm4 CPU model before pmu__init() (LIBPFM_FORCE_PMU picks the
 * PMU by name; LIBPFM_ENCODE_INACTIVE=1 lets it encode although this host
 * has another CPU).  Expected configs were read from libpfm4 4.13's tables
 * and agree with the kernel's generic mappings where those exist
 * (Zen dTLB-load-misses 0xf045, Zen L1-dcache-load-misses 0xc860,
 * Skylake L1-dcache-load-misses 0x151).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "machine/pmu.h"

static void force(const char *pmu)
{
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	ASSERT_OK(pmu__init(), "pmu__init");
}

struct expect {
	const char *name;
	__u64 config;
	const char *encoding;
};

/* The first candidate of each generic name is the model's own raw event. */
static void check_native(const struct expect *e, int n)
{
	struct pmu_event ev[8];

	for (int i = 0; i < n; i++) {
		int k = pmu__candidates(e[i].name, ev, 8);

		if (!ASSERT_TRUE(k >= 2, e[i].name))
			continue;
		ASSERT_EQ(ev[0].attr.type, PERF_TYPE_RAW, e[i].name);
		ASSERT_EQ(ev[0].attr.config, e[i].config, e[i].name);
		ASSERT_TRUE(ev[0].hardware, e[i].name);
		ASSERT_EQ(ev[0].tier, TIER_COUNTING, e[i].name);
		ASSERT_STREQ(ev[0].name, e[i].name, "name kept");
		if (e[i].encoding)
			ASSERT_STREQ(ev[0].encoding, e[i].encoding, e[i].name);
		/* and the perf generic event comes last */
		ASSERT_TRUE(ev[k - 1].attr.type == PERF_TYPE_HARDWARE ||
			    ev[k - 1].attr.type == PERF_TYPE_HW_CACHE, "generic fallback last");
	}
}

void test_pmu__intel_skylake(void)
{
	static const struct expect e[] = {
		{ "cycles", 0x3c, "skl::CPU_CLK_THREAD_UNHALTED:THREAD_P" },
		{ "instructions", 0xc0, "skl::INST_RETIRED:ANY_P" },
		{ "l1d_miss", 0x151, "skl::L1D:REPLACEMENT" },
		{ "dtlb_miss", 0xe08, "skl::DTLB_LOAD_MISSES:WALK_COMPLETED" },
		{ "llc_miss", 0x412e, "skl::LONGEST_LAT_CACHE:MISS" },
		{ "branch_miss", 0xc5, "skl::BR_MISP_RETIRED:ALL_BRANCHES" },
	};

	force("skl");
	ASSERT_STREQ(pmu__host_pmu_name(), "skl", "forced host PMU");
	check_native(e, sizeof(e) / sizeof(e[0]));
}

void test_pmu__intel_sapphire_rapids(void)
{
	struct pmu_event ev[8];

	/* one model per process: Sapphire Rapids moved DTLB_LOAD_MISSES to 0x12 */
	force("spr");
	ASSERT_TRUE(pmu__candidates("dtlb_miss", ev, 8) >= 2, "spr dtlb");
	ASSERT_EQ(ev[0].attr.config, 0xe12, "spr DTLB_LOAD_MISSES.WALK_COMPLETED");
	ASSERT_TRUE(pmu__candidates("l1d_miss", ev, 8) >= 2, "spr l1d");
	ASSERT_EQ(ev[0].attr.config, 0x151, "spr L1D.REPLACEMENT");
	ASSERT_TRUE(pmu__candidates("instructions", ev, 8) >= 2, "spr instructions");
	ASSERT_EQ(ev[0].attr.config, 0xc0, "spr INST_RETIRED.ANY_P");
}

void test_pmu__intel_sandybridge(void)
{
	struct pmu_event ev[8];

	force("snb");
	ASSERT_TRUE(pmu__candidates("dtlb_miss", ev, 8) >= 2, "snb dtlb");
	ASSERT_EQ(ev[0].attr.config, 0x208, "snb DTLB_LOAD_MISSES.WALK_COMPLETED");
	ASSERT_TRUE(pmu__candidates("branch_miss", ev, 8) >= 2, "snb branch");
	ASSERT_EQ(ev[0].attr.config, 0x4c5, "snb BR_MISP_RETIRED.ALL_BRANCHES");
	/* no LONGEST_LAT_CACHE on snb: the architectural LLC_MISSES */
	ASSERT_TRUE(pmu__candidates("llc_miss", ev, 8) >= 2, "snb llc");
	ASSERT_EQ(ev[0].attr.config, 0x412e, "snb LLC_MISSES");
	ASSERT_STREQ(ev[0].encoding, "snb::LAST_LEVEL_CACHE_MISSES", "snb llc encoding (libpfm4 canonical name)");
}

void test_pmu__amd_zen3(void)
{
	static const struct expect e[] = {
		{ "cycles", 0x76, "amd64_fam19h_zen3::CYCLES_NOT_IN_HALT" },
		{ "instructions", 0xc0, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS" },
		{ "l1d_miss", 0x5f44, "amd64_fam19h_zen3::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:0x5f" },
		{ "dtlb_miss", 0xf045, "amd64_fam19h_zen3::L1_DTLB_MISS:0xf0" },
		{ "llc_miss", 0x5c43, "amd64_fam19h_zen3::DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:0x5c" },
		{ "branch_miss", 0xc3, "amd64_fam19h_zen3::RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" },
	};
	struct pmu_event ev[8];
	int n;

	force("amd64_fam19h_zen3");
	ASSERT_STREQ(pmu__host_pmu_name(), "amd64_fam19h_zen3", "forced host PMU");
	check_native(e, sizeof(e) / sizeof(e[0]));
	/* on AMD, PERF_COUNT_HW_CACHE_MISSES counts L2 misses: never offered as llc_miss */
	n = pmu__candidates("llc_miss", ev, 8);
	for (int i = 0; i < n; i++)
		ASSERT_FALSE(ev[i].attr.type == PERF_TYPE_HARDWARE &&
			     ev[i].attr.config == PERF_COUNT_HW_CACHE_MISSES, "no cache-misses on AMD");
	/* the raw umasks in the table are the named ones */
	ASSERT_EQ(pmu__candidates("L1_DTLB_MISS:TLB_RELOAD_4K_L2_MISS:TLB_RELOAD_2M_L2_MISS:"
				  "TLB_RELOAD_1G_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS", ev, 8), 1, "named");
	ASSERT_EQ(ev[0].attr.config, 0xf045, "named L2 DTLB miss umasks");
	ASSERT_EQ(pmu__candidates("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:INT_CACHE:EXT_CACHE_LCL:"
				  "MEM_IO_LCL:EXT_CACHE_RMT:MEM_IO_RMT", ev, 8), 1, "named fills");
	ASSERT_EQ(ev[0].attr.config, 0x5f44, "every fill source");
	ASSERT_EQ(pmu__candidates("DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:EXT_CACHE_LCL:MEM_IO_LCL:"
				  "EXT_CACHE_RMT:MEM_IO_RMT", ev, 8), 1, "named demand fills");
	ASSERT_EQ(ev[0].attr.config, 0x5c43, "fills from beyond the CCX's L3");
	/* the second l1d_miss candidate is the kernel's L1-dcache-load-misses */
	n = pmu__candidates("l1d_miss", ev, 8);
	ASSERT_TRUE(n >= 3, "zen3 l1d candidates");
	ASSERT_EQ(ev[1].attr.config, 0xc860, "zen3 REQUESTS_TO_L2_GROUP1 from DC misses");
}

void test_pmu__amd_zen4(void)
{
	struct pmu_event ev[8];

	force("amd64_fam19h_zen4");
	ASSERT_TRUE(pmu__candidates("l1d_miss", ev, 8) >= 2, "zen4 l1d");
	ASSERT_EQ(ev[0].attr.config, 0xdf44, "zen4 ANY_DATA_CACHE_FILLS_FROM_SYSTEM all sources");
	ASSERT_TRUE(pmu__candidates("llc_miss", ev, 8) >= 2, "zen4 llc");
	ASSERT_EQ(ev[0].attr.config, 0xdc43, "zen4 demand fills from beyond the L3");
	ASSERT_TRUE(pmu__candidates("dtlb_miss", ev, 8) >= 2, "zen4 dtlb");
	ASSERT_EQ(ev[0].attr.config, 0xf045, "zen4 L1_DTLB_MISS, L2 DTLB misses");
	ASSERT_EQ(pmu__candidates("ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:LOCAL_CCX:NEAR_CACHE_NEAR_FAR:"
				  "DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR", ev, 8), 1,
		  "named zen4 fills");
	ASSERT_EQ(ev[0].attr.config, 0xdf44, "every zen4 fill source");
	ASSERT_EQ(pmu__candidates("DEMAND_DATA_CACHE_FILLS_FROM_SYSTEM:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:"
				  "FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR", ev, 8), 1,
		  "named zen4 demand fills");
	ASSERT_EQ(ev[0].attr.config, 0xdc43, "zen4 fills from beyond the L3");
}

void test_pmu__amd_zen2(void)
{
	struct pmu_event ev[8];

	force("amd64_fam17h_zen2");
	ASSERT_TRUE(pmu__candidates("l1d_miss", ev, 8) >= 2, "zen2 l1d");
	ASSERT_EQ(ev[0].attr.config, 0xc860, "zen2 L2 requests from DC misses");
	ASSERT_TRUE(pmu__candidates("llc_miss", ev, 8) >= 2, "zen2 llc");
	ASSERT_EQ(ev[0].attr.config, 0x5843, "zen2 refills from DRAM or remote cache");
	ASSERT_EQ(pmu__candidates("DATA_CACHE_REFILLS_FROM_SYSTEM:LS_MABRESP_LCL_DRAM:"
				  "LS_MABRESP_RMT_CACHE:LS_MABRESP_RMT_DRAM", ev, 8), 1, "named zen2 refills");
	ASSERT_EQ(ev[0].attr.config, 0x5843, "raw umask 0x58 is the named one");
}

void test_pmu__generic_fallbacks(void)
{
	static const struct { const char *name; __u32 type; __u64 config; } g[] = {
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ "l1d_miss", PERF_TYPE_HW_CACHE, 0x10000 },  /* L1D, READ, MISS */
		{ "dtlb_miss", PERF_TYPE_HW_CACHE, 0x10003 }, /* DTLB, READ, MISS */
		{ "branch_miss", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	};
	struct pmu_event ev[8];

	force("skl");
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		int n = pmu__candidates(g[i].name, ev, 8);

		if (!ASSERT_TRUE(n >= 2, g[i].name))
			continue;
		ASSERT_EQ(ev[n - 1].attr.type, g[i].type, g[i].name);
		ASSERT_EQ(ev[n - 1].attr.config, g[i].config, g[i].name);
		ASSERT_TRUE(ev[n - 1].hardware, g[i].name);
	}
	/* llc_miss on Intel: LL read miss, then cache-misses (= LONGEST_LAT_CACHE.MISS) */
	{
		int n = pmu__candidates("llc_miss", ev, 8);

		ASSERT_EQ(n, 3, "llc candidates on skl");
		ASSERT_EQ(ev[1].attr.type, PERF_TYPE_HW_CACHE, "LL");
		ASSERT_EQ(ev[1].attr.config, 0x10002, "LL read miss");
		ASSERT_EQ(ev[2].attr.config, PERF_COUNT_HW_CACHE_MISSES, "cache-misses");
	}
	/* max bounds the output */
	ASSERT_EQ(pmu__candidates("cycles", ev, 1), 1, "max = 1");
	ASSERT_EQ(ev[0].attr.type, PERF_TYPE_RAW, "best first");
}

void test_pmu__software(void)
{
	static const struct { const char *name; __u64 config; } s[] = {
		{ "task_clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "page_faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "minor_faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major_faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		{ "context_switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu_migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	};
	struct pmu_event ev[4];

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		ASSERT_EQ(pmu__candidates(s[i].name, ev, 4), 1, s[i].name);
		ASSERT_EQ(ev[0].attr.type, PERF_TYPE_SOFTWARE, s[i].name);
		ASSERT_EQ(ev[0].attr.config, s[i].config, s[i].name);
		ASSERT_FALSE(ev[0].hardware, s[i].name);
		ASSERT_EQ(ev[0].tier, TIER_SOFTWARE, s[i].name);
		ASSERT_TRUE(pmu__is_generic(s[i].name), s[i].name);
	}
	ASSERT_STREQ(ev[0].encoding, "perf::PERF_COUNT_SW_CPU_MIGRATIONS", "encoding");
}

void test_pmu__every_generic_resolves(void)
{
	struct pmu_event ev[8];
	int nr = 0;

	/* whatever this host is, with or without libpfm4 support for it */
	for (int i = 0; pmu__generic_names[i]; i++, nr++) {
		ASSERT_TRUE(pmu__candidates(pmu__generic_names[i], ev, 8) >= 1, pmu__generic_names[i]);
		ASSERT_NOT_NULL(pmu__describe(pmu__generic_names[i]), pmu__generic_names[i]);
	}
	ASSERT_EQ(nr, 12, "twelve generic names");
	ASSERT_FALSE(pmu__is_generic("L1D:REPLACEMENT"), "raw is not generic");
}

void test_pmu__raw_strings(void)
{
	struct pmu_event ev[4];

	force("skl");
	ASSERT_EQ(pmu__candidates("MEM_LOAD_RETIRED:L3_MISS", ev, 4), 1, "raw, unqualified");
	ASSERT_EQ(ev[0].attr.type, PERF_TYPE_RAW, "raw type");
	ASSERT_EQ(ev[0].attr.config, 0x20d1, "MEM_LOAD_RETIRED.L3_MISS");
	ASSERT_STREQ(ev[0].encoding, "skl::MEM_LOAD_RETIRED:L3_MISS", "canonical, no modifiers");
	ASSERT_STREQ(ev[0].name, "MEM_LOAD_RETIRED:L3_MISS", "name as asked");
	ASSERT_TRUE(ev[0].hardware, "hardware");
	ASSERT_EQ(ev[0].attr.exclude_kernel, 0, "privilege bits left to the caller");
	ASSERT_EQ(pmu__candidates("skl::L1D:REPLACEMENT", ev, 4), 1, "raw, qualified");
	ASSERT_EQ(ev[0].attr.config, 0x151, "skl L1D.REPLACEMENT");
	ASSERT_EQ(pmu__candidates("MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=3", ev, 4), 1, "ldlat");
	ASSERT_EQ(ev[0].attr.config, 0x1cd, "load latency event");
	ASSERT_EQ(ev[0].attr.config1, 3, "ldlat in config1");
}

void test_pmu__unknown_and_malformed(void)
{
	struct pmu_event ev[4];

	force("skl");
	ASSERT_EQ(pmu__candidates("no_such_event", ev, 4), -ENOENT, "unknown name");
	ASSERT_EQ(pmu__candidates("skl::NO_SUCH_EVENT", ev, 4), -ENOENT, "unknown event on the PMU");
	ASSERT_EQ(pmu__candidates("nopmu::L1D:REPLACEMENT", ev, 4), -ENOENT, "unknown PMU");
	ASSERT_EQ(pmu__candidates("L1D:NO_SUCH_UMASK", ev, 4), -EINVAL, "bad umask");
	ASSERT_EQ(pmu__candidates("L1D:k=2", ev, 4), -EINVAL, "bad modifier value");
	ASSERT_EQ(pmu__candidates("L1D,L1D", ev, 4), -EINVAL, "two events");
	ASSERT_EQ(pmu__candidates("L1D REPLACEMENT", ev, 4), -EINVAL, "blank inside");
	ASSERT_EQ(pmu__candidates("", ev, 4), -EINVAL, "empty");
	ASSERT_EQ(pmu__candidates(NULL, ev, 4), -EINVAL, "NULL");
}

void test_pmu__sampling_intel(void)
{
	struct pmu_event ev[4];
	int n;

	force("skl");
	n = pmu__sampling_candidates("l1d_miss", ev, 4);
	ASSERT_TRUE(n >= 1, "l1d_miss precise");
	ASSERT_EQ(ev[0].attr.config, 0x8d1, "MEM_LOAD_RETIRED.L1_MISS");
	ASSERT_EQ(ev[0].attr.precise_ip, 2, "PEBS");
	ASSERT_TRUE(ev[0].attr.sample_type & PERF_SAMPLE_ADDR, "data address");
	ASSERT_TRUE(ev[0].attr.sample_period > 0, "a period");
	ASSERT_EQ(ev[0].tier, TIER_PRECISE, "tier");

	n = pmu__sampling_candidates("llc_miss", ev, 4);
	ASSERT_EQ(n, 2, "L3_MISS then load latency");
	ASSERT_EQ(ev[0].attr.config, 0x20d1, "MEM_LOAD_RETIRED.L3_MISS");
	ASSERT_EQ(ev[1].attr.config, 0x1cd, "MEM_TRANS_RETIRED.LOAD_LATENCY");
	ASSERT_EQ(ev[1].attr.config1, 128, "ldlat 128");
	ASSERT_TRUE(ev[1].attr.sample_type & PERF_SAMPLE_DATA_SRC, "data source");
	ASSERT_TRUE(ev[1].attr.sample_type & PERF_SAMPLE_WEIGHT, "latency weight");

	ASSERT_TRUE(pmu__sampling_candidates("dtlb_miss", ev, 4) >= 1, "dtlb precise");
	ASSERT_EQ(ev[0].attr.config, 0x11d0, "MEM_INST_RETIRED.STLB_MISS_LOADS");
	ASSERT_TRUE(pmu__sampling_candidates("stores", ev, 4) >= 1, "stores precise");
	ASSERT_EQ(ev[0].attr.config, 0x82d0, "MEM_INST_RETIRED.ALL_STORES");
	ASSERT_EQ(pmu__sampling_candidates("page_faults", ev, 4), -ENOENT, "not a precise name");
}

static char *fake_sysfs(const char *const *files)
{
	static char dir[] = "/tmp/ma-u-pmu.XXXXXX";
	char path[512];

	if (!mkdtemp(dir))
		return NULL;
	for (int i = 0; files[i]; i += 2) {
		FILE *f;
		char *slash;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = 0;
			mkdir(path, 0755);
			*slash = '/';
		}
		f = fopen(path, "w");
		if (!f)
			return NULL;
		fprintf(f, "%s\n", files[i + 1]);
		fclose(f);
	}
	return dir;
}

static void rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		test__fail(__FILE__, __LINE__, "cannot remove %s", dir);
}

void test_pmu__sampling_amd_ibs(void)
{
	static const char *const files[] = {
		"ibs_op/type", "11",
		"ibs_op/format/cnt_ctl", "config:19",
		"ibs_op/format/l3missonly", "config:16",
		"software/type", "1",
		NULL,
	};
	struct pmu_event ev[4];
	char *dir;

	force("amd64_fam19h_zen4");
	pmu__set_sysfs_root("/nonexistent");
	ASSERT_EQ(pmu__sampling_candidates("llc_miss", ev, 4), -EOPNOTSUPP, "no ibs_op PMU");
	dir = fake_sysfs(files);
	if (!ASSERT_NOT_NULL(dir, "fake sysfs"))
		return;
	pmu__set_sysfs_root(dir);
	ASSERT_EQ(pmu__sampling_candidates("llc_miss", ev, 4), 1, "IBS op");
	ASSERT_EQ(ev[0].attr.type, 11, "ibs_op type from sysfs");
	ASSERT_EQ(ev[0].attr.config, (1ULL << 19) | (1ULL << 16), "cnt_ctl + l3missonly");
	ASSERT_TRUE(ev[0].attr.sample_type & PERF_SAMPLE_DATA_SRC, "data source");
	ASSERT_EQ(ev[0].attr.sample_period % 16, 0, "IBS period multiple of 16");
	ASSERT_EQ(pmu__sampling_candidates("loads", ev, 4), 1, "IBS op for loads");
	ASSERT_EQ(ev[0].attr.config, 1ULL << 19, "cnt_ctl only");
	ASSERT_FALSE(pmu__hw_exposed(), "no cpu PMU in the fake sysfs");
	ASSERT_EQ(pmu__sysfs_type("software"), 1, "sysfs type");
	ASSERT_EQ(pmu__sysfs_type("nope"), -ENOENT, "missing sysfs PMU");
	pmu__set_sysfs_root(NULL);
	rm_tree(dir);
}

void test_pmu__strerror_open(void)
{
	static const char *const files[] = { "software/type", "1", NULL };
	struct perf_event_attr hw = { .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES };
	struct perf_event_attr sw = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS };
	struct perf_event_attr bp = { .type = PERF_TYPE_BREAKPOINT, .bp_type = 1, .bp_len = 3 };
	char buf[256], *dir = fake_sysfs(files);

	if (!ASSERT_NOT_NULL(dir, "fake sysfs"))
		return;
	pmu__set_sysfs_root(dir);
	pmu__strerror_open(ENOENT, &hw, buf, sizeof(buf));
	ASSERT_TRUE(!strncmp(buf, "no hardware PMU", 15), buf);
	pmu__strerror_open(-EOPNOTSUPP, &hw, buf, sizeof(buf));
	ASSERT_TRUE(!strncmp(buf, "no hardware PMU", 15), buf);
	pmu__strerror_open(ENOENT, &sw, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "not supported by this kernel") != NULL, buf);
	pmu__strerror_open(EACCES, &hw, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "CAP_PERFMON") != NULL, buf);
	pmu__strerror_open(EPERM, &hw, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "perf_event_paranoid") != NULL, buf);
	pmu__strerror_open(EMFILE, &sw, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "ulimit -n") != NULL, buf);
	pmu__strerror_open(EBUSY, &hw, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "busy") != NULL, buf);
	pmu__strerror_open(EINVAL, &bp, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "watchpoint") != NULL, buf);
	pmu__strerror_open(EINVAL, &sw, buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "invalid event attributes") != NULL, buf);
	pmu__strerror_open(ENOENT, NULL, buf, sizeof(buf));
	ASSERT_TRUE(buf[0] != 0, "no attr");
	/* one line, lowercase start, no trailing period */
	pmu__strerror_open(EACCES, &hw, buf, sizeof(buf));
	ASSERT_TRUE(strchr(buf, '\n') == NULL, "one line");
	ASSERT_TRUE(buf[strlen(buf) - 1] != '.', "no trailing period");
	pmu__set_sysfs_root(NULL);
	rm_tree(dir);
}
