// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "machine/calibrate.h"
#include "harness.h"
#include "machine/machine_profile.h"
#include "base/util.h"

void test_calibrate__parse_results(void)
{
	struct calib_run r = { 0 };

	calib__parse("noise\nresult ws=1024 ns_per_elem=2.5 order=random\nresult ws=2048 bad "
		     "ns_per_elem=3\nchecksum 42\n",
		     &r);
	ASSERT_EQ(r.nr, 2, "two result lines");
	ASSERT_STREQ(calib_rec__get(&r.recs[0], "order"), "random", "string value");
	ASSERT_NEAR(calib_rec__num(&r.recs[1], "ns_per_elem"), 3, 1e-9, "number");
	ASSERT_TRUE(isnan(calib_rec__num(&r.recs[1], "bad")), "token without '=' is skipped");
	ASSERT_TRUE(isnan(calib_rec__num(&r.recs[0], "missing")), "absent key is NAN, not 0");
	ASSERT_STREQ(r.checksum, "42", "checksum");
	calib_run__free(&r);
}

void test_calibrate__median(void)
{
	double a[] = { 5, 1, 3 }, b[] = { 4, 1, 3, 2 };

	ASSERT_NEAR(calib__median(a, 3), 3, 0, "odd");
	ASSERT_NEAR(calib__median(b, 4), 2.5, 0, "even");
	ASSERT_TRUE(isnan(calib__median(a, 0)), "empty");
}

void test_calibrate__knee_needs_two_points(void)
{
	struct calib_point p[] = {
		{ 1024, 2, 0, 0 },   { 2048, 2, 0, 0 },	  { 4096, 9, 0, 0 }, /* one outlier */
		{ 8192, 2.1, 0, 0 }, { 16384, 2, 0, 0 },  { 32768, 6, 0, 0 },
		{ 65536, 7, 0, 0 },  { 131072, 7, 0, 0 },
	};
	int n = sizeof(p) / sizeof(p[0]);

	ASSERT_EQ(calib__first_above(p, n, 0, 2, 1.5), 5, "the knee, not the outlier");
	ASSERT_EQ(calib__first_above(p, n, 0, 100, 1.5), -1, "no knee");
	ASSERT_NEAR(calib__plateau(p, n, 1024, 16384), 2.05, 1e-9, "plateau over (1K, 16K]");
	ASSERT_TRUE(isnan(calib__plateau(p, n, 1e9, 2e9)), "empty plateau");
}

void test_calibrate__svg_files(void)
{
	struct calib_point p[] = { { 1024, 2, 1.9, 2.2 },
				   { 65536, 7, 6.5, 8 },
				   { 1 << 24, 180, 150, 200 } };
	struct calib_mark m[] = { { 49152, "L1d <sysfs>" } };
	const char *labels[] = { "a", "b" };
	double paper[] = { 100, 23.4 }, here[] = { 100, NAN };
	char path[] = "/tmp/ma-svg-XXXXXX";
	int fd = mkstemp(path);
	char *text;

	ASSERT_TRUE(fd >= 0, "temp file");
	close(fd);
	ASSERT_OK(calib__svg_latency(path, "t & t", p, 3, m, 1), "latency chart");
	text = read_file(path, NULL);
	ASSERT_NOT_NULL(text, "read back");
	ASSERT_TRUE(strstr(text, "<svg") && strstr(text, "</svg>"), "complete svg");
	ASSERT_TRUE(strstr(text, "t &amp; t") && strstr(text, "L1d &lt;sysfs&gt;"), "text escaped");
	free(text);
	ASSERT_OK(calib__svg_bars(path, "bars", labels, paper, here, 2, "%"), "bar chart");
	text = read_file(path, NULL);
	ASSERT_TRUE(text && strstr(text, "23.4%") && !strstr(text, "nan"), "NAN bar left out");
	free(text);
	ASSERT_EQ(calib__svg_latency(path, "x", p, 1, NULL, 0), -EINVAL, "one point is no curve");
	unlink(path);
}

void test_calibrate__run_missing_program(void)
{
	struct calib_run r;

	ASSERT_EQ(calib__run("/nonexistent", "list_walk", NULL, 0, &r), -ENOENT, "exec fails");
	ASSERT_EQ(r.status, 127, "status of a failed exec");
	calib_run__free(&r);
}

void test_calibrate__run_shell(void)
{
	const char *args[] = { "-c", "echo 'result a=1 b=x'; echo checksum 7 >&2; exit 0", NULL };
	struct calib_run r;

	ASSERT_OK(calib__run("/bin", "sh", args, 0, &r), "run sh");
	ASSERT_EQ(r.nr, 1, "one record");
	ASSERT_STREQ(r.checksum, "7", "stderr is read too");
	calib_run__free(&r);
}

void test_machine_profile__roundtrip(void)
{
	struct machine_profile a, b;
	char dir[] = "/tmp/ma-mp-XXXXXX", path[256];

	ASSERT_NOT_NULL(mkdtemp(dir), "temp dir");
	snprintf(path, sizeof(path), "%s/sub/machine.json", dir);
	machine_profile__init(&a);
	snprintf(a.cpu_model, sizeof(a.cpu_model), "Test CPU");
	a.ghz = 2.5;
	a.level[MP_L1D].sysfs_size = 49152;
	a.level[MP_L1D].latency_ns = 2;
	a.level[MP_DRAM].latency_ns = 100;
	a.l1d_ways = 12;
	a.bw_read_gbs = 8.5;
	ASSERT_OK(machine_profile__save(&a, path), "save creates the directory");
	ASSERT_OK(machine_profile__load_file(&b, path), "load");
	ASSERT_STREQ(b.cpu_model, "Test CPU", "model");
	ASSERT_NEAR(b.ghz, 2.5, 1e-12, "ghz");
	ASSERT_EQ(b.level[MP_L1D].sysfs_size, 49152, "size");
	ASSERT_EQ(b.l1d_ways, 12, "ways");
	ASSERT_NEAR(b.bw_read_gbs, 8.5, 1e-12, "bandwidth");
	ASSERT_TRUE(isnan(b.tlb_miss_ns), "unmeasured stays NAN");
	ASSERT_TRUE(isnan(b.level[MP_L2].latency_ns), "unmeasured level stays NAN");
	ASSERT_NEAR(machine_profile__latency_ns(&b, MP_L2), 100, 1e-12, "next slower measured level");
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

void test_machine_profile__missing_and_bad(void)
{
	struct machine_profile mp;
	char path[] = "/tmp/ma-mp-bad-XXXXXX";
	int fd;

	ASSERT_EQ(machine_profile__load_file(&mp, "/nonexistent/machine.json"), -ENOENT, "missing");
	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0 && write(fd, "{\"schema_version\": 99}", 22) == 22, "write");
	close(fd);
	ASSERT_EQ(machine_profile__load_file(&mp, path), -EINVAL, "unknown schema");
	unlink(path);
}

void test_machine_profile__default_path(void)
{
	char buf[256];

	setenv("MEMADVISE_PROFILE", "/x/p.json", 1);
	ASSERT_OK(machine_profile__default_path(buf, sizeof(buf)), "env");
	ASSERT_STREQ(buf, "/x/p.json", "MEMADVISE_PROFILE wins");
	unsetenv("MEMADVISE_PROFILE");
	setenv("XDG_CACHE_HOME", "/c", 1);
	ASSERT_OK(machine_profile__default_path(buf, sizeof(buf)), "xdg");
	ASSERT_STREQ(buf, "/c/memadvise/machine.json", "XDG cache dir");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/h", 1);
	ASSERT_OK(machine_profile__default_path(buf, sizeof(buf)), "home");
	ASSERT_STREQ(buf, "/h/.cache/memadvise/machine.json", "home cache dir");
}
