// SPDX-License-Identifier: GPL-2.0-only
/* Hardware watchpoints (watch.h) -> run facts, and member facts of watched globals. */
#include <stdio.h>
#include <string.h>

#include "rules/bind_int.h"
#include "layout/layout.h"
#include "model/watch.h"
#include "symbols/codetypes.h"

/* "shared_counters[1].count" -> symbol "shared_counters", member "count". */
static bool split_watch_name(const char *name, char *sym, size_t slen, char *member, size_t mlen)
{
	size_t n = strcspn(name, ".[");
	const char *m;

	if (!n || n >= slen)
		return false;
	snprintf(sym, slen, "%.*s", (int)n, name);
	m = name + n;
	if (*m == '[')
		m = strchr(m, ']') ? strchr(m, ']') + 1 : m + strlen(m);
	if (*m != '.')
		return false;
	m++;
	snprintf(member, mlen, "%.*s", (int)strcspn(m, ".["), m);
	return member[0] != '\0';
}

void bind__watch(struct binder *b)
{
	const struct watch_report *w = b->r->watch;
	struct factbase *fb = b->fb;

	if (!w)
		return;
	factbase__mark(fb, EV_WATCH, true, NULL);
	factbase__set(fb, -1, "run.watch_hits", (double)w->total_hits, w->tier);
	/* members of global structs that watched lines show written by several threads */
	for (int i = 0; i < w->nr_lines; i++) {
		const struct watch_line *l = &w->lines[i];

		for (int k = 0; k < l->nr_points; k++) {
			const struct watch_point *pt = &w->pts[l->points[k]];
			char sym[128], member[128], type[128];
			const struct ma_member *m;
			struct sbind *sb;
			int ment;

			if (!split_watch_name(pt->spec.name, sym, sizeof(sym), member, sizeof(member)) ||
			    codetypes__global_type(b->ct, sym, type, sizeof(type)) ||
			    !(sb = binder__find_struct(b, type)) || !(m = ma_struct__find_member(sb->s, member)) ||
			    m < sb->s->members || m >= sb->s->members + sb->s->nr_members)
				continue;
			ment = binder__member_entity(b, sb, (int)(m - sb->s->members));
			if (ment < 0)
				continue;
			factbase__set(fb, ment, "member.watch_hits", (double)pt->hits, w->tier);
			factbase__set(fb, ment, "member.watch_threads", l->writer_threads, w->tier);
			factbase__set(fb, ment, "member.writer_threads", l->writer_threads, w->tier);
			factbase__set(fb, ment, "member.false_sharing", l->false_sharing, w->tier);
			if (pt->nr_ips && !fb->ents[ment].file[0]) {
				bind__base_function(pt->ips[0].loc.function, fb->ents[ment].function,
						    sizeof(fb->ents[0].function));
				snprintf(fb->ents[ment].file, sizeof(fb->ents[0].file), "%s",
					 pt->ips[0].loc.file);
				fb->ents[ment].line = pt->ips[0].loc.line;
			}
			if (!fb->ents[ment].region[0])
				snprintf(fb->ents[ment].region, sizeof(fb->ents[0].region),
					 "file (global %.100s)", sym);
		}
	}
}
