// SPDX-License-Identifier: GPL-2.0-only
/* The address-stream section (tier uprobe-stream) as JSON and text. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/streams.h"
#include "report/output.h"
#include "base/json.h"
#include "base/util.h"

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void ip_metrics_json(struct json_object *e, const struct stream_ip *s)
{
	struct json_object *m;

	json_add(e, "accesses", json_u64(s->accesses));
	json_add(e, "threads", json_object_new_int(s->threads));
	json_add(e, "bursts", json_object_new_int(s->bursts));
	json_add(e, "stride_bytes", json_object_new_int64(s->stride));
	json_add(e, "stride_fraction", json_object_new_double(s->stride_frac));
	if (s->cycle_deltas) {
		json_add(e, "cycle_bytes", json_object_new_int64(s->cycle));
		json_add(e, "cycle_deltas", json_object_new_int(s->cycle_deltas));
	}
	json_add(e, "stride_deltas", json_u64(s->deltas));
	json_add(e, "forward_deltas", json_u64(s->forward));
	json_add(e, "backward_deltas", json_u64(s->backward));
	json_add(e, "jump_deltas", json_u64(s->jumps));
	json_add(e, "strided", json_object_new_boolean(stream_ip__strided(s)));
	json_add(e, "lines_per_1000", json_object_new_double(s->lines_per_k));
	json_add(e, "pages_per_1000", json_object_new_double(s->pages_per_k));
	json_add(e, "distinct_lines", json_u64(s->lines));
	json_add(e, "distinct_pages", json_u64(s->pages));
	m = json_object_new_object();
	json_add(m, "window_accesses", json_object_new_int(s->window));
	json_add(m, "window_lines", json_object_new_int(s->window_lines));
	json_add(m, "l1d_sets_used", json_object_new_int(s->l1_sets_used));
	json_add(m, "l1d_max_lines_in_a_set", json_object_new_int(s->l1_max_set_lines));
	json_add(m, "l1d_sets_over_ways", json_object_new_int(s->l1_sets_over));
	json_add(m, "l2_window_lines", json_object_new_int(s->l2_window_lines));
	json_add(m, "l2_sets_used", json_object_new_int(s->l2_sets_used));
	json_add(m, "l2_max_lines_in_a_set", json_object_new_int(s->l2_max_set_lines));
	json_add(m, "l2_sets_over_ways", json_object_new_int(s->l2_sets_over));
	json_add(m, "conflict", json_object_new_boolean(s->conflict));
	json_add(e, "sets", m);
	json_add(e, "line_splits", json_u64(s->splits));
	json_add(e, "misaligned", json_u64(s->misaligned));
	json_add(e, "written_lines", json_u64(s->written_lines));
	json_add(e, "written_lines_read_back", json_u64(s->written_lines_read));
	json_add(e, "sampled_reads_in_written_span", json_u64(s->sampled_reads_in_span));
	json_add(e, "sampled_loads_over_written_span", json_object_new_int(s->loads_over_span));
	json_add(e, "write_only", json_object_new_boolean(s->write_only));
	json_add(e, "reuses", json_u64(s->reuses));
	json_add(e, "reuse_distance_median",
		 isnan(s->reuse_median) ? NULL : json_object_new_double(s->reuse_median));
	m = json_object_new_object();
	json_add(m, "l1d_misses", json_u64(s->l1_misses));
	json_add(m, "l1d_cold", json_u64(s->l1_cold));
	json_add(m, "l1d_decided", json_u64(s->l1_decided));
	json_add(m, "l1d_decided_misses", json_u64(s->l1_decided_misses));
	json_add(m, "l1d_miss_ratio", json_object_new_double(ratio(s->l1_misses, s->accesses)));
	json_add(m, "l2_misses", json_u64(s->l2_misses));
	json_add(m, "l2_miss_ratio", json_object_new_double(ratio(s->l2_misses, s->accesses)));
	if (s->tlb_modelled) {
		json_add(m, "dtlb_misses", json_u64(s->tlb_misses));
		json_add(m, "dtlb_cold", json_u64(s->tlb_cold));
		json_add(m, "dtlb_decided", json_u64(s->tlb_decided));
		json_add(m, "dtlb_decided_misses", json_u64(s->tlb_decided_misses));
		json_add(m, "dtlb_miss_ratio",
			 json_object_new_double(ratio(s->tlb_misses, s->accesses)));
	}
	json_add(e, "model", m);
}

struct json_object *streams_report__to_json(const struct streams_report *p)
{
	struct json_object *o = json_object_new_object(), *g = json_object_new_object(), *a;

	json_add(o, "tier", json_str(tier__name(p->tier)));
	json_add(o, "method", json_str("uprobe on the instruction itself, effective address "
				       "from pt_regs before it executes; a cache and TLB model "
				       "fed with the streams (not hardware counts)"));
	json_add(g, "line_size", json_object_new_int(p->geom.line));
	json_add(g, "page_size", json_object_new_int(p->geom.page));
	json_add(g, "l1d_sets", json_object_new_int(p->geom.l1_sets));
	json_add(g, "l1d_ways", json_object_new_int(p->geom.l1_ways));
	json_add(g, "l2_sets", json_object_new_int(p->geom.l2_sets));
	json_add(g, "l2_ways", json_object_new_int(p->geom.l2_ways));
	json_add(g, "dtlb_entries", p->geom.tlb_entries ?
		 json_object_new_int(p->geom.tlb_entries) : NULL);
	if (p->geom.tlb_source[0])
		json_add(g, "dtlb_source", json_str(p->geom.tlb_source));
	json_add(o, "geometry", g);
	json_add(o, "bursts", json_object_new_int(p->bursts));
	json_add(o, "probed_ns", json_u64(p->probed_ns));
	json_add(o, "hits", json_u64(p->hits));
	json_add(o, "records", json_u64(p->records));
	json_add(o, "dropped", json_u64(p->dropped));
	json_add(o, "capped", json_u64(p->capped));
	json_add(o, "unarmed", json_u64(p->unarmed));
	json_add(o, "ip_at_probed_address", json_u64(p->ip_at_probe));
	json_add(o, "ip_after_breakpoint", json_u64(p->ip_after_int3));
	json_add(o, "attach", json_str(p->multi ? "uprobe_multi" : "perf_event"));
	json_add(o, "charged_cost_ns", json_object_new_double(p->cost_ns));
	json_add(o, "hits_cost_ns", json_object_new_double(p->hits_cost_ns));
	json_add(o, "cost_per_hit_ns", json_object_new_double(p->cost_per_hit_ns));
	json_add(o, "budget", json_object_new_double(p->budget));
	json_add(o, "run_ns", json_u64(p->run_ns));
	a = json_object_new_array();
	for (int i = 0; i < p->nr_ips; i++) {
		const struct stream_ip *s = &p->ips[i];
		struct json_object *e = json_object_new_object();

		json_add(e, "insn", json_hex(s->insn));
		json_add(e, "pid", json_object_new_int(s->pid));
		if (s->text[0])
			json_add(e, "instruction", json_str(s->text));
		if (s->loc.function[0])
			json_add(e, "function", json_str(s->loc.function));
		if (s->loc.file[0]) {
			json_add(e, "file", json_str(s->loc.file));
			json_add(e, "line", json_object_new_int(s->loc.line));
		}
		json_add(e, "addr_samples", json_u64(s->addr_samples));
		if (s->loop_store)
			json_add(e, "loop_store", json_object_new_boolean(1));
		if (s->loop_hi > s->loop_lo) {
			json_add(e, "loop", json_hex(s->loop_lo));
			json_add(e, "loop_end", json_hex(s->loop_hi));
		}
		if (s->region_bytes)
			json_add(e, "region_bytes", json_u64(s->region_bytes));
		json_add(e, "status", json_str(stream_skip__name(s->skip)));
		if (s->skip != STREAM_OK) {
			json_add(e, "reason", json_str(s->why));
		} else {
			json_add(e, "access", json_str(s->read && s->write ? "read-write" :
						       s->write ? "write" : "read"));
			json_add(e, "size", json_object_new_int(s->size));
			ip_metrics_json(e, s);
		}
		json_object_array_add(a, e);
	}
	json_add(o, "ips", a);
	return o;
}

void streams_report__print_text(const struct streams_report *p, FILE *f, bool wide)
{
	int width = wide ? 200 : 80, shown = 0;

	fprintf(f, "\nAddress streams [%s: %d bursts, %.1f ms probed, %" PRIu64 " accesses]\n",
		tier__name(p->tier), p->bursts, p->probed_ns / 1e6, p->records);
	fprintf(f, "  model: L1d %d sets x %d ways, L2 %d x %d, ", p->geom.l1_sets,
		p->geom.l1_ways, p->geom.l2_sets, p->geom.l2_ways);
	if (p->geom.tlb_entries)
		fprintf(f, "dTLB %d entries\n", p->geom.tlb_entries);
	else
		fprintf(f, "no dTLB size (memadvise calibrate)\n");
	fprintf(f, "  charged %.1f ms (%s, %.2f%% of %.2f s; budget %.2f%%), "
		"hits %.1f ms\n", p->cost_ns / 1e6,
		p->multi ? "uprobe_multi: 0.1 ms a link and its hits" :
			   "perf-event uprobes: the bursts' spans",
		p->run_ns ? 100.0 * p->cost_ns / (double)p->run_ns : 0.0, p->run_ns / 1e9,
		100 * p->budget, p->hits_cost_ns / 1e6);
	for (int i = 0; i < p->nr_ips; i++) {
		const struct stream_ip *s = &p->ips[i];
		char where[200], stride[24], line[300];

		if (s->skip != STREAM_OK)
			continue;
		if (!shown++)
			fprintf(f, "  %7s %8s %5s %6s %6s %4s %5s %5s  %s\n", "access", "stride", "reg",
				"lin/k", "pg/k", "set", "L1m", "L2m", "where");
		if (s->loc.file[0])
			snprintf(where, sizeof(where), "%.100s:%d", path_basename(s->loc.file),
				 s->loc.line);
		else
			snprintf(where, sizeof(where), "%#" PRIx64, s->insn);
		snprintf(stride, sizeof(stride), "%" PRId64, s->stride);
		snprintf(line, sizeof(line), "  %7" PRIu64 " %8s %4.0f%% %6.0f %6.0f %4d %4.0f%% %4.0f%%  "
			 "%s%s%s%s", s->accesses, stride, 100 * s->stride_frac, s->lines_per_k,
			 s->pages_per_k, s->l1_max_set_lines, 100 * ratio(s->l1_misses, s->accesses),
			 100 * ratio(s->l2_misses, s->accesses), where,
			 s->conflict ? " conflict" : "", s->write_only ? " write-only" : "",
			 s->splits ? " splits" : "");
		if ((int)strlen(line) > width)
			line[width] = 0;
		fprintf(f, "%s\n", line);
	}
	if (shown)
		fprintf(f, "  reg: share of deltas equal to the stride; lin/k, pg/k: distinct lines\n"
			"  and pages per 1000 accesses; set: most lines in one L1d set in a window;\n"
			"  L1m, L2m: misses of the model (cold ones included)\n");
}
