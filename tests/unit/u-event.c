// SPDX-License-Identifier: GPL-2.0-only
/* Reading provided counts: a count that was never enabled is not a 0. */
#include "harness.h"

#include "collect/event.h"
#include "model/report.h"

static bool never_enabled(void *ctx, struct provided_count *out)
{
	(void)ctx;
	out->count = 0;
	out->enabled_ns = out->running_ns = 0;
	snprintf(out->note, sizeof(out->note), "the fault sampler's count");
	return true;
}

static bool enabled(void *ctx, struct provided_count *out)
{
	(void)ctx;
	out->count = 42;
	out->enabled_ns = out->running_ns = 1000;
	return true;
}

static const struct counter *read_provided(struct report *r, provided_count_fn fn)
{
	struct event_set *es;

	if (!ASSERT_OK(event_set__parse(&es, "page_faults"), "parse"))
		return NULL;
	event_set__defer(es, "page_faults");
	event_set__provide(es, "page_faults", fn, NULL);
	ASSERT_OK(event_set__read(es, r), "read");
	event_set__free(es);
	return report__counter(r, "page_faults");
}

void test_event__provided_never_enabled(void)
{
	struct report *r = report__new();
	const struct counter *c = read_provided(r, never_enabled);

	if (ASSERT_TRUE(c != NULL, "page_faults in the report")) {
		ASSERT_FALSE(c->counted, "never enabled: not counted");
		ASSERT_TRUE(strstr(c->reason, "never enabled") != NULL, c->reason);
	}
	report__free(r);
}

void test_event__provided_counted(void)
{
	struct report *r = report__new();
	const struct counter *c = read_provided(r, enabled);

	if (ASSERT_TRUE(c != NULL, "page_faults in the report")) {
		ASSERT_TRUE(c->counted, "enabled: counted");
		ASSERT_EQ(c->raw, 42, "raw count");
	}
	report__free(r);
}
