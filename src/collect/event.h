/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting: a set of named events opened on a target (all of its threads and
 * children), read with time enabled/running and scaled when multiplexed.
 * Hardware events share groups of at most EVENT_GROUP_MAX; software events
 * form their own group (they never multiplex).
 */
#ifndef __MA_EVENT_H
#define __MA_EVENT_H

#include <stdbool.h>
#include <sys/types.h>

#include "model/report.h"

#define EVENT_GROUP_MAX 4

struct event_set;

/* The generic events 'run' counts when -e is not given. */
extern const char *const event__default_names[];

/* Parses "a,b,c" into a set; -EINVAL on an empty name. Names are resolved at open. */
int event_set__parse(struct event_set **es, const char *list);
int event_set__add(struct event_set *es, const char *name);
/* The defaults (event__default_names). */
struct event_set *event_set__defaults(void);

/*
 * Opens every event on PID.  ON_EXEC: the target is corked and the counters
 * start when it execs (and are inherited by its threads and children);
 * otherwise the process is running and every existing thread gets its own
 * counters.  An event that cannot count is kept with its reason: the only
 * error returned is for names that do not exist (-ENOENT, message printed).
 */
int event_set__open(struct event_set *es, pid_t pid, bool on_exec);
/*
 * A count another collector provides: FN fills in the count, the times it
 * covers and a note on where it came from, or returns false when it has none.
 */
struct provided_count {
	uint64_t count, enabled_ns, running_ns;
	char note[64];		/* as struct counter's note */
};
typedef bool (*provided_count_fn)(void *ctx, struct provided_count *out);

/*
 * NAME is not opened by event_set__open(): another collector may provide the
 * same count (FN, called with CTX when the set is read, while CTX lives);
 * event_set__open_deferred() then opens whatever was deferred and not
 * provided.
 */
void event_set__defer(struct event_set *es, const char *name);
void event_set__provide(struct event_set *es, const char *name, provided_count_fn fn, void *ctx);
void event_set__open_deferred(struct event_set *es);
/* Stops counting (so that what follows the target is not counted). */
void event_set__disable(struct event_set *es);
/* Reads and scales every counter into the report (one struct counter each). */
int event_set__read(struct event_set *es, struct report *r);
void event_set__free(struct event_set *es);

#endif
