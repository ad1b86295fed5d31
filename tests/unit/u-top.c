// SPDX-License-Identifier: GPL-2.0-only
/* memadvise top: the view's order and filter, its outputs, and one collector refresh. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <json-c/json.h>

#include "harness.h"
#include "collect/top/top.h"
#include "report/top.h"

static struct top_frame *frame3(void)
{
	struct top_frame *f = calloc(1, sizeof(*f));
	static const struct top_row rows[] = {
		{ .pid = 10, .comm = "alpha", .minflt_s = 5, .cpu_pct = 50, .hot = "loop_a",
		  .nr_findings = -1, .rss = 4096 },
		{ .pid = 20, .comm = "beta", .minflt_s = 500, .cpu_pct = 1, .hot = "fill_and_sum",
		  .nr_findings = 2, .rss = 8192 },
		{ .pid = 30, .comm = "gamma", .minflt_s = 50, .cpu_pct = 10, .hot = "",
		  .nr_findings = -1, .is_new = true },
	};

	f->rows = malloc(sizeof(rows));
	memcpy(f->rows, rows, sizeof(rows));
	f->nr_rows = 3;
	f->hdr.seq = 2;
	f->hdr.interval_s = 1;
	snprintf(f->hdr.pmu_why, sizeof(f->hdr.pmu_why), "no PMU");
	snprintf(f->hdr.sampling_why, sizeof(f->hdr.sampling_why), "sampling off (--no-sample)");
	return f;
}

void test_top__order_sort_filter(void)
{
	struct top_frame *f = frame3();
	struct top_view v = { .sort = TOP_COL_MINFLT };
	int *idx, n;

	n = top_view__order(f, &v, &idx);
	if (ASSERT_EQ(n, 3, "rows")) {
		ASSERT_EQ(f->rows[idx[0]].pid, 20, "most faults first");
		ASSERT_EQ(f->rows[idx[2]].pid, 10, "fewest faults last");
	}
	free(idx);
	v.ascending = true;
	n = top_view__order(f, &v, &idx);
	ASSERT_EQ(f->rows[idx[0]].pid, 10, "ascending: fewest faults first");
	free(idx);
	v.sort = TOP_COL_COMM;
	v.ascending = false;
	n = top_view__order(f, &v, &idx);
	ASSERT_EQ(f->rows[idx[0]].pid, 30, "by command, descending: gamma first");
	free(idx);
	snprintf(v.filter, sizeof(v.filter), "FILL");
	n = top_view__order(f, &v, &idx);
	if (ASSERT_EQ(n, 1, "filter on the hot function, any case"))
		ASSERT_EQ(f->rows[idx[0]].pid, 20, "the row whose hot function matches");
	free(idx);
	snprintf(v.filter, sizeof(v.filter), "30");
	n = top_view__order(f, &v, &idx);
	ASSERT_EQ(n, 1, "filter on a pid");
	free(idx);
	top_frame__free(f);
}

void test_top__col_parse(void)
{
	ASSERT_EQ(top_col__parse("CPU%"), TOP_COL_CPU, "exact");
	ASSERT_EQ(top_col__parse("minflt/s"), TOP_COL_MINFLT, "any case");
	ASSERT_EQ(top_col__parse("maj"), TOP_COL_MAJFLT, "three letters");
	ASSERT_EQ(top_col__parse("co"), -1, "two letters are not enough");
	ASSERT_EQ(top_col__parse("nosuch"), -1, "unknown");
}

/* Nothing unmeasured shows as 0: text says n/a, JSON has null. */
void test_top__unmeasured(void)
{
	struct top_frame *f = frame3();
	struct top_view v = { .sort = TOP_COL_PID, .ascending = true };
	struct json_object *j = top_frame__to_json(f, &v), *h, *x, *rows, *r;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	top_frame__print_text(f, &v, m, 0);
	fclose(m);
	ASSERT_TRUE(strstr(text, "n/a: no PMU") != NULL, "the PMU's absence is said");
	ASSERT_TRUE(strstr(text, "Hot code: n/a: sampling off") != NULL, "no sampler is said");
	free(text);
	ASSERT_TRUE(json_object_object_get_ex(j, "header", &h), "header");
	ASSERT_TRUE(json_object_object_get_ex(h, "pmu", &x), "header.pmu");
	ASSERT_TRUE(json_object_object_get_ex(x, "llc_mpki", &x) && !x, "llc_mpki is null");
	ASSERT_TRUE(json_object_object_get_ex(j, "processes", &rows), "processes");
	r = json_object_array_get_idx(rows, 2);	/* pid 30, new */
	ASSERT_TRUE(json_object_object_get_ex(r, "minflt_per_s", &x) && !x,
		    "a new process's rate is null");
	ASSERT_TRUE(json_object_object_get_ex(r, "anon_huge_bytes", &x) && !x,
		    "huge pages not read: null");
	ASSERT_TRUE(json_object_object_get_ex(r, "samples", &x) && !x,
		    "no sampler: samples null");
	json_object_put(j);
	top_frame__free(f);
}

/* One process (this one) through /proc: its faults between two refreshes. */
void test_top__collector_self(void)
{
	pid_t me = getpid();
	struct top_opts o = { .pids = &me, .nr_pids = 1, .only_uid = (uid_t)-1, .no_bpf = true };
	struct top_collector *c;
	struct top_frame *f1, *f2;
	size_t len = 256 << 12;
	char *p;

	if (!ASSERT_OK(top_collector__open(&c, &o), "open"))
		return;
	ASSERT_OK(top_collector__refresh(c, &f1), "first refresh");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	usleep(20000);
	ASSERT_OK(top_collector__refresh(c, &f2), "second refresh");
	if (ASSERT_EQ(f1->nr_rows, 1, "one row") && ASSERT_EQ(f2->nr_rows, 1, "one row")) {
		ASSERT_TRUE(f1->rows[0].is_new, "no rates on the first refresh");
		ASSERT_FALSE(f2->rows[0].is_new, "rates on the second");
		ASSERT_EQ(f2->rows[0].pid, me, "this process");
		ASSERT_TRUE(f2->rows[0].minflt_s * f2->hdr.interval_s >= 256, "256 pages faulted");
		ASSERT_TRUE(f2->rows[0].rss >= len, "RSS holds them");
		ASSERT_TRUE(f2->rows[0].thp_known, "smaps_rollup read");
		ASSERT_FALSE(f2->hdr.sampling, "no sampler asked for");
	}
	munmap(p, len);
	top_frame__free(f1);
	top_frame__free(f2);
	top_collector__close(c);
}
