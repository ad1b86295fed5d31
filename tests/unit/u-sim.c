// SPDX-License-Identifier: GPL-2.0-only
/* cachegrind output parsing: per-line counts, merging, totals and ratios. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "collect/sim.h"

static struct sim_report *load_sample(void)
{
	char path[512];
	struct sim_report *s = NULL;
	int errline = -1;

	snprintf(path, sizeof(path), "%s/tests/unit/fixtures/cachegrind-sample.txt",
		 getenv("MA_TOP") ?: ".");
	if (!ASSERT_OK(sim__parse_file(path, 0, &s, &errline), "parse the sample"))
		return NULL;
	ASSERT_EQ(errline, 0, "no error line");
	return s;
}

void test_sim__parse_sample(void)
{
	struct sim_report *s = load_sample();

	if (!s)
		return;
	ASSERT_EQ(s->tier, TIER_SIMULATION, "tier");
	ASSERT_EQ(s->d1.size, 49152, "D1 size from desc:");
	ASSERT_EQ(s->d1.ways, 12, "D1 ways");
	ASSERT_EQ(s->ll.size, 62914560, "LL size");
	ASSERT_STREQ(s->cmd, "./mm", "cmd");
	ASSERT_EQ(s->total[SIM_IR], 16742, "Ir total from summary:");
	ASSERT_EQ(s->total[SIM_BIM], 17, "Bim total");
	/* mm.c:12 main appears twice (two fl= blocks): merged, and first by D1 misses */
	ASSERT_EQ(s->nr_lines, 6, "distinct (file, function, line)");
	ASSERT_STREQ(s->lines[0].file, "/src/mm.c", "top file");
	ASSERT_EQ(s->lines[0].line, 12, "top line");
	ASSERT_EQ(s->lines[0].ev[SIM_IR], 10000, "Ir merged");
	ASSERT_EQ(s->lines[0].ev[SIM_D1MR], 2500, "D1mr merged");
	ASSERT_EQ(s->lines[0].ev[SIM_D1MW], 1000, "D1mw");
	ASSERT_EQ(sim_line__d1_misses(&s->lines[0]), 3500, "D1 misses");
	/* missing trailing counts are 0 */
	for (int i = 0; i < s->nr_lines; i++)
		if (s->lines[i].line == 11) {
			ASSERT_EQ(s->lines[i].ev[SIM_DLMR], 8, "DLmr of line 11");
			ASSERT_EQ(s->lines[i].ev[SIM_BIM], 0, "trailing zero");
		}
	ASSERT_NEAR(s->l1d_miss_ratio, (2619.0 + 72) / (6675 + 1316), 1e-12, "L1D miss ratio");
	ASSERT_NEAR(s->branch_miss_ratio, (21.0 + 17) / (1060 + 41), 1e-12, "branch miss ratio");
	ASSERT_NEAR(s->ll_miss_ratio, (24.0 + 18 + 71) / (16742 + 6675 + 1316), 1e-12,
		    "LL miss ratio");
	sim_report__free(s);
}

void test_sim__keep_top(void)
{
	static const char text[] = "events: Ir D1mr\nfl=a.c\nfn=f\n1 10 1\n2 10 5\n3 10 3\n";
	struct sim_report *s = NULL;
	int errline;

	if (!ASSERT_OK(sim__parse(text, 2, &s, &errline), "parse"))
		return;
	ASSERT_EQ(s->nr_lines, 2, "kept two");
	ASSERT_EQ(s->nr_lines_total, 3, "of three");
	ASSERT_EQ(s->lines[0].line, 2, "most misses first");
	ASSERT_EQ(s->total[SIM_IR], 30, "totals summed without summary:");
	ASSERT_TRUE(s->l1d_miss_ratio < 0, "no Dr/Dw: ratio not simulated, not 0");
	sim_report__free(s);
}

void test_sim__malformed(void)
{
	struct sim_report *s = NULL;
	int errline = 0;

	ASSERT_ERR(sim__parse("fl=a.c\n1 2 3\n", 0, &s, &errline), "counts before events:");
	ASSERT_EQ(errline, 2, "line of the counts");
	ASSERT_ERR(sim__parse("events: Ir\nfl=a.c\n1 2x\n", 0, &s, &errline), "junk in counts");
	ASSERT_EQ(errline, 3, "line of the junk");
	ASSERT_ERR(sim__parse("events: Ir\nbogus line\n", 0, &s, &errline), "unknown line");
	ASSERT_EQ(errline, 2, "line of the bogus text");
	ASSERT_ERR(sim__parse("", 0, &s, &errline), "empty file");
}
