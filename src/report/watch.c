// SPDX-License-Identifier: GPL-2.0-only
/* The watchpoint section (tier watchpoint) as JSON and text. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/watch.h"
#include "report/output.h"
#include "base/json.h"
#include "base/util.h"

struct json_object *watch_report__to_json(const struct watch_report *w)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(), *l;

	json_object_object_add(o, "tier", json_str(tier__name(w->tier)));
	json_object_object_add(o, "hit_limit", json_object_new_int64(w->hit_limit));
	json_object_object_add(o, "limited", json_object_new_boolean(w->limited));
	json_object_object_add(o, "total_hits", json_object_new_int64(w->total_hits));
	json_object_object_add(o, "lost", json_object_new_int64(w->lost));
	json_object_object_add(o, "armed_after_ns", json_object_new_int64(w->armed_after_ns));
	for (int i = 0; i < w->nr; i++) {
		const struct watch_point *p = &w->pts[i];
		struct json_object *e = json_object_new_object(), *t, *ips;

		json_object_object_add(e, "name", json_str(p->spec.name));
		json_object_object_add(e, "address", json_hex(p->spec.addr));
		json_object_object_add(e, "len", json_object_new_int(p->spec.len));
		json_object_object_add(e, "access", json_str(p->spec.rw ? "read-write"
										    : "write"));
		if (p->spec.member_off >= 0)
			json_object_object_add(e, "member_offset", json_object_new_int(p->spec.member_off));
		json_object_object_add(e, "armed", json_object_new_boolean(p->armed));
		json_object_object_add(e, "placed", json_str(
			p->spec.automatic ? "auto" : "user"));
		json_object_object_add(e, "pid", json_object_new_int(p->pid));
		if (p->armed)
			json_object_object_add(e, "armed_after_ns",
					       json_object_new_int64(p->armed_after_ns));
		if (!p->armed) {
			json_object_object_add(e, "reason", json_str(p->why));
			json_object_array_add(a, e);
			continue;
		}
		json_object_object_add(e, "hits", json_object_new_int64(p->hits));
		json_object_object_add(e, "stopped", json_object_new_boolean(p->stopped));
		t = json_object_new_array();
		for (int k = 0; k < p->nr_threads; k++) {
			struct json_object *x = json_object_new_object();

			json_object_object_add(x, "tid", json_object_new_int(p->threads[k].tid));
			json_object_object_add(x, "hits", json_object_new_int64(p->threads[k].hits));
			json_object_array_add(t, x);
		}
		json_object_object_add(e, "threads", t);
		ips = json_object_new_array();
		for (int k = 0; k < p->nr_ips; k++) {
			struct json_object *x = json_object_new_object();

			json_object_object_add(x, "ip", json_hex(p->ips[k].ip));
			json_object_object_add(x, "hits", json_object_new_int64(p->ips[k].hits));
			if (p->ips[k].loc.function[0])
				json_object_object_add(x, "function",
						       json_str(p->ips[k].loc.function));
			if (p->ips[k].loc.file[0]) {
				json_object_object_add(x, "file",
						       json_str(p->ips[k].loc.file));
				json_object_object_add(x, "line", json_object_new_int(p->ips[k].loc.line));
			}
			json_object_array_add(ips, x);
		}
		json_object_object_add(e, "ips", ips);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "points", a);
	a = json_object_new_array();
	for (int i = 0; i < w->nr_lines; i++) {
		const struct watch_line *wl = &w->lines[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "line", json_hex(wl->line));
		l = json_object_new_array();
		for (int k = 0; k < wl->nr_points; k++)
			json_object_array_add(l, json_str(w->pts[wl->points[k]].spec.name));
		json_object_object_add(e, "points", l);
		json_object_object_add(e, "writer_threads", json_object_new_int(wl->writer_threads));
		json_object_object_add(e, "false_sharing", json_object_new_boolean(wl->false_sharing));
		json_object_object_add(e, "true_sharing", json_object_new_boolean(wl->true_sharing));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "lines", a);
	return o;
}

void watch_report__print_text(const struct watch_report *w, FILE *f, bool wide)
{
	fprintf(f, "\nWATCHPOINTS [%s: exact hits", tier__name(w->tier));
	if (w->limited)
		fprintf(f, ", a point stops after %" PRIu64 " hits", w->hit_limit);
	fprintf(f, "]\n");
	if (w->armed_after_ns)
		fprintf(f, "  placed %.1f ms after the start (load address known after exec)\n",
			w->armed_after_ns / 1e6);
	for (int i = 0; i < w->nr; i++) {
		const struct watch_point *p = &w->pts[i];

		if (!p->armed) {
			fprintf(f, "  %-.30s not watched: %.40s\n", p->spec.name, p->why);
			continue;
		}
		if (p->spec.automatic)
			fprintf(f, "  (placed at %.0f ms on a line sampled as written by 2 threads)\n",
				p->armed_after_ns / 1e6);
		fprintf(f, "  %-.30s %#" PRIx64 "/%d %s: %" PRIu64 " hits,", p->spec.name,
			p->spec.addr, p->spec.len, p->spec.rw ? "rw" : "w", p->hits);
		for (int k = 0; k < p->nr_threads && k < 3; k++)
			fprintf(f, " tid %d:%" PRIu64, p->threads[k].tid, p->threads[k].hits);
		if (p->nr_threads > 3)
			fprintf(f, " ...");
		fprintf(f, "%s\n", p->stopped ? " (stopped)" : "");
		for (int k = 0; k < p->nr_ips && k < 2; k++) {
			const struct sym_site *l = &p->ips[k].loc;

			if (l->file[0])
				fprintf(f, "    %8" PRIu64 " at %.40s:%d %.*s\n", p->ips[k].hits,
					path_basename(l->file), l->line, wide ? 80 : 20, l->function);
			else
				fprintf(f, "    %8" PRIu64 " at %#" PRIx64 "\n", p->ips[k].hits,
					p->ips[k].ip);
		}
	}
	for (int i = 0; i < w->nr_lines; i++) {
		const struct watch_line *wl = &w->lines[i];

		if (wl->nr_points < 2 && !wl->true_sharing)
			continue;
		fprintf(f, "  line %#" PRIx64 ": %d point%s, %d writing thread%s%s%s\n", wl->line,
			wl->nr_points, wl->nr_points > 1 ? "s" : "", wl->writer_threads,
			wl->writer_threads == 1 ? "" : "s",
			wl->false_sharing ? ", false sharing" : "",
			wl->true_sharing ? ", shared writes" : "");
	}
}
