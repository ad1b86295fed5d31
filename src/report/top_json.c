// SPDX-License-Identifier: GPL-2.0-only
/*
 * 'memadvise top -j': one JSON object per refresh (JSON Lines).  The
 * drilled process is written with the report's own section emitters
 * ("profile" and "findings", as in 'memadvise run -j').  A value that was
 * not measured is null, never 0.
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "report/output.h"
#include "report/top.h"
#include "base/json.h"

static struct json_object *rate_or_null(bool known, double v)
{
	return known ? json_object_new_double(v) : NULL;
}

static struct json_object *header_json(const struct top_header *h)
{
	struct json_object *o = json_object_new_object(), *t, *x;

	t = json_object_new_object();
	json_add(t, "mode", json_str_or_null(h->thp_mode[0] ? h->thp_mode : NULL));
	json_add(t, "defrag", json_str_or_null(h->thp_defrag[0] ? h->thp_defrag : NULL));
	json_add(t, "anon_bytes", h->mem_known ? json_u64(h->anon) : NULL);
	json_add(t, "anon_huge_bytes", h->mem_known ? json_u64(h->anon_huge) : NULL);
	json_add(t, "khugepaged_pages_collapsed",
		 h->khuge_known ? json_u64(h->khuge_collapsed) : NULL);
	json_add(t, "khugepaged_collapsed_per_s", rate_or_null(h->khuge_known,
							      h->khuge_collapsed_s));
	json_add(t, "khugepaged_full_scans", h->khuge_known ? json_u64(h->khuge_scans) : NULL);
	json_add(o, "thp", t);

	t = json_object_new_object();
	json_add(t, "minor_per_s", rate_or_null(h->faults_known, h->minflt_s));
	json_add(t, "major_per_s", rate_or_null(h->faults_known, h->majflt_s));
	json_add(t, "tier", json_str("software"));
	x = json_object_new_array();
	for (int i = 0; i < h->nr_spark; i++)
		json_object_array_add(x, json_object_new_double(h->spark[i]));
	json_add(t, "last_minute_per_s", x);
	json_add(o, "faults", t);

	t = json_object_new_object();
	json_add(t, "available", json_object_new_boolean(h->pmu));
	json_add(t, "llc_mpki", NULL);
	json_add(t, "dtlb_mpki", NULL);
	json_add(t, "bandwidth_bytes_per_s", NULL);
	json_add(t, "why", json_str(h->pmu_why));
	json_add(o, "pmu", t);

	t = json_object_new_object();
	json_add(t, "available", json_object_new_boolean(h->sampling));
	json_add(t, "event", h->sampling ? json_str("tick") : NULL);
	json_add(t, "hz", h->sampling ? json_object_new_int((int)h->tick_hz) : NULL);
	json_add(t, "tier", json_str("software"));
	json_add(t, "lost", h->sampling ? json_u64(h->samples_lost) : NULL);
	if (!h->sampling)
		json_add(t, "why", json_str(h->sampling_why));
	json_add(o, "sampling", t);
	json_add(o, "processes", json_object_new_int(h->nr_procs));
	json_add(o, "threads", json_object_new_int(h->nr_threads));
	json_add(o, "hidden_processes", json_object_new_int(h->nr_hidden));
	return o;
}

static struct json_object *row_json(const struct top_frame *f, const struct top_row *r)
{
	struct json_object *o = json_object_new_object();
	char st[2] = { r->state, 0 };

	json_add(o, "pid", json_object_new_int(r->pid));
	json_add(o, "tid", r->tid ? json_object_new_int(r->tid) : NULL);
	json_add(o, "uid", json_object_new_int64(r->uid));
	json_add(o, "comm", json_str(r->comm));
	json_add(o, "state", json_str(st));
	json_add(o, "threads", json_object_new_int(r->nr_threads));
	json_add(o, "cpu_pct", rate_or_null(!r->is_new, r->cpu_pct));
	json_add(o, "minflt_per_s", rate_or_null(!r->is_new, r->minflt_s));
	json_add(o, "majflt_per_s", rate_or_null(!r->is_new, r->majflt_s));
	json_add(o, "rss_bytes", json_u64(r->rss));
	json_add(o, "anon_bytes", r->thp_known ? json_u64(r->anon) : NULL);
	json_add(o, "anon_huge_bytes", r->thp_known ? json_u64(r->anon_huge) : NULL);
	json_add(o, "samples", f->hdr.sampling ? json_u64(r->samples) : NULL);
	json_add(o, "hot_function", json_str_or_null(r->hot[0] ? r->hot : NULL));
	json_add(o, "findings", r->nr_findings >= 0 ? json_object_new_int(r->nr_findings) : NULL);
	return o;
}

struct json_object *top_frame__to_json(const struct top_frame *f, const struct top_view *v)
{
	struct json_object *o = json_object_new_object(), *rows = json_object_new_array();
	int *idx, n = top_view__order(f, v, &idx);

	json_add(o, "schema_version", json_object_new_int(REPORT_SCHEMA_VERSION));
	json_add(o, "refresh", json_u64(f->hdr.seq));
	json_add(o, "timestamp_ns", json_u64(f->hdr.time_ns));
	json_add(o, "interval_s", json_object_new_double(f->hdr.interval_s));
	json_add(o, "header", header_json(&f->hdr));
	for (int i = 0; i < n; i++)
		json_object_array_add(rows, row_json(f, &f->rows[idx[i]]));
	free(idx);
	json_add(o, "processes", rows);
	if (f->drill.pid) {
		struct json_object *d = json_object_new_object();

		json_add(d, "pid", json_object_new_int(f->drill.pid));
		json_add(d, "comm", json_str(f->drill.comm));
		json_add(d, "duration_ns", f->drill.snap ? json_u64(f->drill.snap->target.wall_ns)
							 : NULL);
		json_add(d, "profile", f->drill.snap && f->drill.snap->sampling ?
			 sampling__to_json(f->drill.snap->sampling) : NULL);
		json_add(d, "findings", f->drill.findings ? findings__to_json(f->drill.findings)
							  : NULL);
		if (!f->drill.findings && f->drill.findings_why[0])
			json_add(d, "findings_why", json_str(f->drill.findings_why));
		json_add(o, "drill", d);
	}
	return o;
}
