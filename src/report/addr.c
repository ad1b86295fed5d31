// SPDX-License-Identifier: GPL-2.0-only
/* The data-address section (tier sw-addr) as JSON and text. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/addr.h"
#include "report/output.h"
#include "base/json.h"
#include "base/util.h"

static const char *const skip_names[AS_SKIP__COUNT] = {
	[AS_OK] = "decoded", [AS_NO_MEM] = "no_memory_operand", [AS_LEA] = "lea_nop_prefetch",
	[AS_SEGMENT] = "fs_gs_relative", [AS_UNSUPPORTED] = "unsupported",
	[AS_UNDECODABLE] = "undecodable",
};

static const char *access_name(const struct mem_operand *op)
{
	return op->read && op->write ? "read-write" : op->write ? "write" : "read";
}

/* "0-7,16-23" from a byte mask */
static void mask_ranges(uint64_t m, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < 64 && o < len; i++) {
		int j = i;

		if (!(m >> i & 1))
			continue;
		while (j + 1 < 64 && (m >> (j + 1) & 1))
			j++;
		o += snprintf(buf + o, len - o, "%s%d", o ? "," : "", i);
		if (j > i && o < len)
			o += snprintf(buf + o, len - o, "-%d", j);
		i = j;
	}
}

struct json_object *addr_profile__to_json(const struct addr_report *p)
{
	struct json_object *o = json_object_new_object(), *a, *s;

	json_object_object_add(o, "tier", json_str(tier__name(p->tier)));
	json_object_object_add(o, "event", json_str(p->event));
	json_object_object_add(o, "period_ns", json_object_new_int64(p->period_ns));
	json_object_object_add(o, "method", json_str(
		"effective address of the instruction before the sampled IP, from user registers"));
	json_object_object_add(o, "line_size", json_object_new_int(p->line_size));
	json_object_object_add(o, "l1d_sets", json_object_new_int(p->l1_sets));
	json_object_object_add(o, "line_splits", json_object_new_int64(p->line_splits));
	json_object_object_add(o, "misaligned", json_object_new_int64(p->misaligned));
	json_object_object_add(o, "atomic", json_object_new_int64(p->atomic));
	json_object_object_add(o, "cas", json_object_new_int64(p->cas));
	json_object_object_add(o, "samples", json_object_new_int64(p->samples));
	json_object_object_add(o, "lost", json_object_new_int64(p->lost));
	json_object_object_add(o, "no_registers", json_object_new_int64(p->no_regs));
	json_object_object_add(o, "other_process", json_object_new_int64(p->other_process));
	json_object_object_add(o, "previous_images", json_object_new_int64(p->previous_images));
	json_object_object_add(o, "unreadable_code", json_object_new_int64(p->unreadable));
	json_object_object_add(o, "decoded", json_object_new_int64(p->decoded));
	json_object_object_add(o, "approximate", json_object_new_int64(p->approx));
	json_object_object_add(o, "no_address", json_object_new_int64(p->no_addr));
	json_object_object_add(o, "from_earlier_access", json_object_new_int64(p->back));
	json_object_object_add(o, "writes_to_read_only", json_object_new_int64(p->write_ro));
	json_object_object_add(o, "reads", json_object_new_int64(p->reads));
	json_object_object_add(o, "writes", json_object_new_int64(p->writes));
	json_object_object_add(o, "distinct_lines", json_object_new_int64(p->lines));
	json_object_object_add(o, "distinct_pages", json_object_new_int64(p->pages));
	s = json_object_new_object();
	for (int k = AS_NO_MEM; k < AS_SKIP__COUNT; k++)
		json_object_object_add(s, skip_names[k], json_object_new_int64(p->skipped[k]));
	json_object_object_add(o, "skipped", s);

	a = json_object_new_array();
	for (int i = 0; i < p->nr_ips; i++) {
		const struct addr_ip *ip = &p->ips[i];
		struct json_object *e = json_object_new_object(), *rg;

		json_object_object_add(e, "ip", json_hex(ip->ip));
		json_object_object_add(e, "pid", json_object_new_int(ip->pid));
		json_object_object_add(e, "processes", json_object_new_int(ip->nr_procs));
		json_object_object_add(e, "samples", json_object_new_int64(ip->samples));
		if (ip->op.insn)
			json_object_object_add(e, "insn", json_hex(ip->op.insn));
		if (ip->op.text[0])
			json_object_object_add(e, "instruction", json_str(ip->op.text));
		json_object_object_add(e, "status", json_str(skip_names[ip->op.skip]));
		if (ip->loc.module[0]) {
			json_object_object_add(e, "module", json_str(ip->loc.module));
			json_object_object_add(e, "module_offset", json_hex(ip->loc.rel));
		}
		if (ip->object[0])
			json_object_object_add(e, "object", json_str(ip->object));
		if (ip->loc.function[0])
			json_object_object_add(e, "function", json_str(ip->loc.function));
		if (ip->loc.inlined[0])
			json_object_object_add(e, "inlined_function",
					       json_str(ip->loc.inlined));
		if (ip->loc.file[0]) {
			json_object_object_add(e, "file", json_str(ip->loc.file));
			json_object_object_add(e, "line", json_object_new_int(ip->loc.line));
		}
		if (ip->op.skip == AS_OK) {
			json_object_object_add(e, "access", json_str(access_name(&ip->op)));
			if (ip->op.stored)
				json_object_object_add(e, "stored_back", json_object_new_boolean(1));
			if (ip->op.chained)
				json_object_object_add(e, "chained", json_object_new_boolean(1));
			json_object_object_add(e, "size", json_object_new_int(ip->op.size));
			json_object_object_add(e, "decoded", json_object_new_int64(ip->decoded));
			json_object_object_add(e, "approximate", json_object_new_int64(ip->approx));
			json_object_object_add(e, "no_address", json_object_new_int64(ip->no_addr));
			if (ip->op.back)
				json_object_object_add(e, "instructions_back",
						       json_object_new_int(ip->op.back + 1));
			json_object_object_add(e, "distinct_lines", json_object_new_int64(ip->lines));
			json_object_object_add(e, "distinct_pages", json_object_new_int64(ip->pages));
			json_object_object_add(e, "threads", json_object_new_int(ip->nr_threads));
			json_object_object_add(e, "l1d_sets", json_object_new_int(ip->l1_sets));
			json_object_object_add(e, "line_splits", json_object_new_int64(ip->line_splits));
			json_object_object_add(e, "approx_line_splits",
					       json_object_new_int64(ip->approx_line_splits));
			json_object_object_add(e, "misaligned", json_object_new_int64(ip->misaligned));
			if (ip->origin_n) {
				json_object_object_add(e, "origin_offset",
						       json_object_new_int64(ip->origin_off));
				json_object_object_add(e, "origin_same",
						       json_object_new_double((double)ip->origin_same /
									      ip->origin_n));
			}
			json_object_object_add(e, "atomic", json_object_new_boolean(ip->op.atomic));
			json_object_object_add(e, "cas", json_object_new_boolean(ip->op.cas));
			if (ip->stride_deltas) {
				json_object_object_add(e, "stride_bytes", json_object_new_int64(ip->stride));
				json_object_object_add(e, "stride_fraction",
						       json_object_new_double(ip->stride_frac));
				json_object_object_add(e, "stride_monotonic",
						       json_object_new_double(ip->stride_monotonic));
				json_object_object_add(e, "cyclic_z",
						       json_object_new_double(ip->cyclic_z));
				json_object_object_add(e, "strided",
						       json_object_new_boolean(addr_ip__strided(ip)));
				json_object_object_add(e, "stride_deltas",
						       json_object_new_int64(ip->stride_deltas));
			}
			if (ip->line_span_samples) {
				json_object_object_add(e, "line_span_samples",
						       json_object_new_int64((int64_t)ip->line_span_samples));
				json_object_object_add(e, "line_span_lines",
						       json_object_new_double(ip->line_span_lines));
				json_object_object_add(e, "line_span_pages",
						       json_object_new_double(ip->line_span_pages));
			}
			rg = json_object_new_object();
			for (int k = 0; k < MAPK__COUNT; k++)
				if (ip->region[k])
					json_object_object_add(rg, map_kind__name(k),
							       json_object_new_int64(ip->region[k]));
			json_object_object_add(e, "region_samples", rg);
			if (ip->top_region_samples) {
				json_object_object_add(e, "top_region",
						       json_str(ip->top_region));
				json_object_object_add(e, "top_region_samples",
						       json_object_new_int64(ip->top_region_samples));
			}
		}
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "ips", a);

	a = json_object_new_array();
	for (int i = 0; i < p->nr_regions; i++) {
		const struct addr_region *r = &p->regions[i];
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "start", json_hex(r->start));
		json_object_object_add(e, "end", json_hex(r->end));
		json_object_object_add(e, "kind", json_str(map_kind__name(r->kind)));
		json_object_object_add(e, "name", json_str(r->name));
		json_object_object_add(e, "samples", json_object_new_int64(r->samples));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "regions", a);

	a = json_object_new_array();
	for (int i = 0; i < p->nr_shared; i++) {
		const struct addr_line *l = &p->shared[i];
		struct json_object *e = json_object_new_object(), *t = json_object_new_array();

		json_object_object_add(e, "line", json_hex(l->line));
		json_object_object_add(e, "kind", json_str(
			l->false_sharing ? "false-sharing" : "true-sharing"));
		if (l->ip)
			json_object_object_add(e, "writer_ip", json_hex(l->ip));
		for (int k = 0; k < l->nr_threads; k++) {
			struct json_object *x = json_object_new_object();
			char buf[160];

			json_object_object_add(x, "tid", json_object_new_int(l->t[k].tid));
			json_object_object_add(x, "reads", json_object_new_int64(l->t[k].reads));
			json_object_object_add(x, "writes", json_object_new_int64(l->t[k].writes));
			mask_ranges(l->t[k].wmask, buf, sizeof(buf));
			json_object_object_add(x, "write_bytes", json_str(buf));
			if (l->t[k].object[0])
				json_object_object_add(x, l->t[k].writes ? "write_object" :
						       "read_object", json_str(l->t[k].object));
			mask_ranges(l->t[k].rmask, buf, sizeof(buf));
			json_object_object_add(x, "read_bytes", json_str(buf));
			json_object_array_add(t, x);
		}
		json_object_object_add(e, "threads", t);
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "shared_lines", a);
	return o;
}

void addr_profile__print_text(const struct addr_report *p, FILE *f, bool wide)
{
	int shown = 0, width = wide ? 200 : 80;
	char b1[32], b2[32];

	fprintf(f, "\nData addresses [%s: %s every %" PRIu64 " us, previous instruction]\n",
		tier__name(p->tier), p->event, p->period_ns / 1000);
	fprintf(f, "  samples %" PRIu64 ", with an address %" PRIu64 " (%.0f%%), "
		"approximate %" PRIu64 ", lost %" PRIu64 "\n", p->samples, p->decoded,
		p->samples ? 100.0 * p->decoded / p->samples : 0.0, p->approx, p->lost);
	fprintf(f, "  no memory operand %" PRIu64 ", lea/nop %" PRIu64 ", fs/gs %" PRIu64
		", other %" PRIu64 "\n", p->skipped[AS_NO_MEM], p->skipped[AS_LEA],
		p->skipped[AS_SEGMENT], p->skipped[AS_UNSUPPORTED] + p->skipped[AS_UNDECODABLE]);
	if (p->back)
		fprintf(f, "  from an access a few instructions back %" PRIu64 "\n", p->back);
	if (p->write_ro)
		fprintf(f, "  writes decoded into read-only mappings %" PRIu64 " (not the address "
			"written: left out of the shared lines)\n", p->write_ro);
	fprintf(f, "  distinct lines %s, pages %s\n", fmt_count(p->lines, b1, sizeof(b1)),
		fmt_count(p->pages, b2, sizeof(b2)));
	if (p->line_splits || p->misaligned)
		fprintf(f, "  line-splitting accesses %" PRIu64 ", misaligned %" PRIu64 "\n",
			p->line_splits, p->misaligned);
	if (p->atomic)
		fprintf(f, "  samples at locked instructions %" PRIu64 " (compare-and-swap %" PRIu64
			")\n", p->atomic, p->cas);
	for (int i = 0; i < p->nr_ips && shown < 10; i++) {
		const struct addr_ip *ip = &p->ips[i];
		char where[256], stride[16];
		int n;

		if (ip->op.skip != AS_OK || !ip->decoded)
			continue;
		if (!shown++)
			fprintf(f, "  %7s %5s %7s %6s %4s  %-s\n", "samples", "in-rg", "stride",
				"lines", "acc", "where (access)");
		if (addr_ip__strided(ip))
			snprintf(stride, sizeof(stride), "%" PRId64, ip->stride);
		else
			snprintf(stride, sizeof(stride), "-");
		/* the function the line is in, as the hot-code table names it */
		if (ip->loc.file[0])
			snprintf(where, sizeof(where), "%.100s:%d %.120s", path_basename(ip->loc.file),
				 ip->loc.line,
				 ip->loc.inlined[0] ? ip->loc.inlined : ip->loc.function);
		else if (ip->loc.function[0])
			snprintf(where, sizeof(where), "%s+%#" PRIx64, ip->loc.function,
				 ip->op.insn - ip->loc.func_start);
		else if (ip->loc.module[0])
			snprintf(where, sizeof(where), "%.100s+%#" PRIx64, ip->loc.module,
				 ip->loc.rel);
		else
			snprintf(where, sizeof(where), "%#" PRIx64, ip->op.insn);
		n = fprintf(f, "  %7" PRIu64 " %4.0f%% %7s %6s %4s  ", ip->samples,
			    ip->decoded ? 100.0 * ip->top_region_samples / ip->decoded : 0.0, stride,
			    fmt_count(ip->lines, b1, sizeof(b1)),
			    ip->op.atomic ? "rwL" : ip->op.write ? (ip->op.read ? "rw" : "w") : "r");
		if (ip->nr_procs > 1) {
			char procs[24];

			snprintf(procs, sizeof(procs), " (%d procs)", ip->nr_procs);
			fprintf(f, "%.*s%s%s\n",
				width - n - 2 - (int)strlen(procs) > 10 ?
					width - n - 2 - (int)strlen(procs) : 10,
				where, procs, ip->approx * 2 > ip->decoded ? " ~" : "");
		} else {
			fprintf(f, "%.*s%s\n", width - n - 2 > 0 ? width - n - 2 : 10, where,
				ip->approx * 2 > ip->decoded ? " ~" : "");
		}
	}
	if (shown)
		fprintf(f, "  in-rg: share in the most hit mapping; acc L: locked (atomic);\n"
			"  ~: base register overwritten, address approximate;\n"
			"  (N procs): the same code sampled in N processes, one row (its\n"
			"  in-rg adds up their mappings of the same file, heap or size)\n");
	for (int i = 0; i < p->nr_shared && i < 5; i++) {
		const struct addr_line *l = &p->shared[i];

		fprintf(f, "  line %#" PRIx64 " used by %d threads, %d writing, %s\n    bytes written:",
			l->line, l->nr_threads, addr_line__writers(l),
			l->false_sharing ? "different bytes (false sharing)"
					 : "same bytes or object (shared data)");
		for (int k = 0; k < l->nr_threads && k < 3; k++) {
			char m[24];

			mask_ranges(l->t[k].wmask, m, sizeof(m));
			fprintf(f, " tid %d %s%s%.30s%s%s", l->t[k].tid, m[0] ? m : "-",
				l->t[k].object[0] ? " (" : "", l->t[k].object,
				l->t[k].object[0] ? ")" : "",
				k + 1 < l->nr_threads && k < 2 ? "," : "");
		}
		fprintf(f, "\n");
	}
}
