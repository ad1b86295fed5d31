// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include <json-c/json.h>

#include "report/output.h"
#include "collect/event.h"
#include "harness.h"
#include "model/report.h"

static struct counter *add(struct report *r, const char *name, bool counted, double v,
			   enum tier tier)
{
	struct counter *c = report__add_counter(r);

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->counted = counted;
	c->scaled = v;
	c->raw = (uint64_t)v;
	c->enabled_ns = c->running_ns = 1000;
	c->tier = tier;
	if (!counted)
		snprintf(c->reason, sizeof(c->reason), "no hardware PMU: virtualized guest");
	return c;
}

static const struct metric *metric(const struct report *r, const char *name)
{
	for (int i = 0; i < r->nr_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

void test_report__metrics_need_counted_inputs(void)
{
	struct report *r = report__new();

	add(r, "cycles", true, 3000, TIER_COUNTING);
	add(r, "instructions", true, 1000, TIER_COUNTING);
	add(r, "l1d_miss", true, 50, TIER_COUNTING);
	add(r, "llc_miss", false, 0, TIER_COUNTING);
	r->target.wall_ns = 1000000000;
	add(r, "page_faults", true, 500, TIER_SOFTWARE);
	report__derive_metrics(r);
	ASSERT_NEAR(metric(r, "cpi")->value, 3.0, 1e-9, "cpi");
	ASSERT_NEAR(metric(r, "l1d_mpki")->value, 50.0, 1e-9, "l1d mpki");
	ASSERT_NEAR(metric(r, "l1d_miss_rate")->value, 0.05, 1e-9, "l1d miss rate");
	ASSERT_TRUE(metric(r, "llc_mpki") == NULL, "no llc metric from a counter that did not count");
	ASSERT_NEAR(metric(r, "page_faults_per_sec")->value, 500, 1e-9, "faults per second");
	ASSERT_EQ(metric(r, "cpi")->tier, TIER_COUNTING, "tier of cpi");
	report__free(r);
}

void test_report__no_cpi_without_instructions(void)
{
	struct report *r = report__new();

	add(r, "cycles", true, 3000, TIER_COUNTING);
	add(r, "instructions", false, 0, TIER_COUNTING);
	report__derive_metrics(r);
	ASSERT_TRUE(metric(r, "cpi") == NULL, "cpi needs instructions");
	report__free(r);
}

void test_report__json_round_trip(void)
{
	struct report *r = report__new();
	struct json_object *o, *back, *events, *e0, *e1, *v;
	const char *text;

	snprintf(r->target.command, sizeof(r->target.command), "./app \"quoted\" arg");
	r->target.exited = true;
	r->target.exit_code = 3;
	add(r, "page_faults", true, 10050, TIER_SOFTWARE);
	add(r, "cycles", false, 0, TIER_COUNTING);
	report__add_provenance(r, "hardware_counters", "%d did not count", 1);
	o = report__to_json(r);
	text = json_object_to_json_string(o);
	back = json_tokener_parse(text);
	if (!ASSERT_NOT_NULL(back, "parses back"))
		return;
	ASSERT_TRUE(json_object_object_get_ex(back, "schema_version", &v), "schema_version");
	ASSERT_EQ(json_object_get_int(v), REPORT_SCHEMA_VERSION, "schema value");
	ASSERT_TRUE(json_object_object_get_ex(back, "events", &events), "events");
	e0 = json_object_array_get_idx(events, 0);
	e1 = json_object_array_get_idx(events, 1);
	json_object_object_get_ex(e0, "value", &v);
	ASSERT_NEAR(json_object_get_double(v), 10050, 0, "counted value");
	json_object_object_get_ex(e1, "value", &v);
	ASSERT_STREQ(json_object_get_string(v), "not supported", "uncounted is not a number");
	ASSERT_TRUE(json_object_object_get_ex(e1, "reason", &v), "reason present");
	json_object_object_get_ex(back, "target", &v);
	json_object_object_get_ex(v, "command", &v);
	ASSERT_STREQ(json_object_get_string(v), "./app \"quoted\" arg", "command escaped");
	json_object_put(back);
	json_object_put(o);
	report__free(r);
}

void test_report__text_never_prints_zero_for_uncounted(void)
{
	struct report *r = report__new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	add(r, "cycles", false, 0, TIER_COUNTING);
	report__print_text(r, f, false);
	fclose(f);
	ASSERT_TRUE(strstr(buf, "not supported") != NULL, "says not supported");
	ASSERT_TRUE(strstr(buf, "no hardware PMU") != NULL, "says why");
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		ASSERT_TRUE(strlen(line) <= 79, "fits 80 columns");
	free(buf);
	report__free(r);
}

void test_report__uncounted_label_says_why(void)
{
	struct report *r = report__new();
	struct counter *pf;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	add(r, "cycles", false, 0, TIER_COUNTING);
	pf = add(r, "page_faults", false, 0, TIER_SOFTWARE);	/* after: adding moves them */
	pf->opened = true;	/* opened, but the program ended before it ran */
	snprintf(pf->reason, sizeof(pf->reason), "never enabled");
	f = open_memstream(&buf, &len);
	report__print_text(r, f, false);
	fclose(f);
	ASSERT_TRUE(strstr(buf, "page_faults") && strstr(strstr(buf, "page_faults"), "not counted"),
		    "an opened counter that never ran is 'not counted'");
	ASSERT_TRUE(strstr(buf, "cycles") && strstr(strstr(buf, "cycles"), "not supported"),
		    "a counter that could not open is 'not supported'");
	ASSERT_STREQ(counter__uncounted_label(pf), "not counted", "label of the opened one");
	free(buf);
	report__free(r);
}

void test_event__parse_list(void)
{
	struct event_set *es = NULL;

	ASSERT_OK(event_set__parse(&es, "page_faults,cycles,amd64_fam19h_zen3::RETIRED_INSTRUCTIONS"),
		  "three names");
	event_set__free(es);
	ASSERT_ERR(event_set__parse(&es, ","), "no names");
	ASSERT_ERR(event_set__parse(&es, ""), "empty");
	ASSERT_ERR(event_set__parse(&es, "page_faults,,cycles"), "empty field");
}
