/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rules' findings: what fired or was inconclusive, where, with which
 * evidence and estimated gain.  Produced by rules/, printed by report/.
 */
#ifndef __MA_MODEL_FINDINGS_H
#define __MA_MODEL_FINDINGS_H

#include <stdbool.h>

#include "model/report.h"

struct rule;

enum severity { SEV_INFO, SEV_WARNING, SEV_CRITICAL };
const char *severity__name(enum severity s);

/* What a rule iterates over (its for-each). */
enum scope {
	SCOPE_RUN,
	SCOPE_STRUCT,
	SCOPE_MEMBER,
	SCOPE_REGION,
	SCOPE_LINE,
	SCOPE_FUNCTION,
	SCOPE_LOCK,		/* a lock word threads waited on (futex) */
	SCOPE__COUNT,
};
const char *scope__name(enum scope s);

/* Findings kept per rule (the count says how many fired). */
#define FINDINGS_MAX_PER_RULE 5

enum finding_status { FINDING_FIRED, FINDING_INCONCLUSIVE };

struct finding_evidence {
	char name[64];
	double value;
	bool known;
	enum tier tier;
	char unit[16];
};

struct finding {
	const struct rule *rule;	/* borrowed from the ruleset */
	const char *rule_advice;	/* the rule's advice, borrowed too (SARIF help) */
	char id[64];
	char title[160];
	char paper[64];
	enum severity severity;
	enum finding_status status;
	enum scope scope;
	/* where */
	char struct_name[128], member[128], decl_file[256];
	int decl_line;
	char function[128], file[256];
	int line;
	char region[200];
	/* what */
	char *message;			/* one sentence */
	char *advice;
	char *fix;			/* concrete code */
	char *missing;			/* inconclusive: what is missing */
	struct finding_evidence *ev;
	int nr_ev;
	enum tier tier;			/* the weakest tier among the evidence */
	const char *confidence;		/* "high", "medium", "low" */
	double gain_s;			/* estimated seconds saved */
	bool gain_known;
	double gain_share;		/* of the run's wall time, when known */
	char gain_how[200];		/* how the gain was estimated, or why it cannot be */
	bool folded;			/* under the gain threshold: one line in text */
	bool demoted;			/* cannot move the verdict's bound */
	char demoted_why[160];
	int entity;			/* the rule's entity it fired on (-1: the run) */
	unsigned int cause_mask;	/* rule->caused_by entries whose condition held there */
	char caused_by[64];		/* the finding that causes this one, "" none */
	/*
	 * Another struct that most of the struct's accesses fit as well
	 * (struct.bind_ambiguous >= FINDING_AMBIGUOUS), "" none.
	 */
	char ambiguous_with[128];
	double ambiguous_share;
	int count;			/* entities it fired on (first one shown) */
};

/*
 * What bounds the run (rules/verdict.c), from the tiers at hand: the time
 * of the target's threads split into parts, the biggest one the bound.
 */
enum bound {
	BOUND_UNKNOWN,
	BOUND_MEMORY,		/* user code waiting on data beyond the caches */
	BOUND_COMPUTE,		/* user code, not waiting on memory (as far as a tier tells) */
	BOUND_USER,		/* user code; no tier here tells memory from compute */
	BOUND_KERNEL,		/* system calls and page faults on the CPU */
	BOUND_LOCKS,		/* threads waiting on futexes held by other threads */
	BOUND_IDLE,		/* blocked or sleeping: I/O, timers, other processes */
	BOUND__COUNT,
};
const char *bound__name(enum bound b);

struct verdict_part {
	enum bound what;
	bool known;
	double seconds;		/* of thread time */
	double share;		/* of the parts' sum */
	enum tier tier;
	char evidence[320];	/* how it was measured */
};

#define VERDICT_MAX_PARTS 6

struct verdict {
	bool known;
	enum bound bound;
	char level[48];		/* memory: which level, "" when no tier says */
	enum tier tier;		/* the bound's tier */
	const char *confidence;	/* "high", "medium", "low" */
	char summary[400];	/* one sentence with the evidence */
	/* the bound of the CPU time alone (memory, compute, user code, kernel) */
	enum bound busy_bound;
	double busy_share;	/* of the CPU time */
	char missing[240];	/* what no tier here measured */
	struct verdict_part parts[VERDICT_MAX_PARTS];
	int nr_parts;
};

struct findings {
	struct verdict verdict;	/* known false: too little measured */
	double min_gain;	/* share of the run under which findings are folded */
	int nr_folded;
	struct finding *f;
	int nr;
	bool replay;			/* from recorded facts (tests), not a measurement */
	int nr_rules;			/* rules evaluated */
	int nr_quiet;			/* rules that held on everything */
};

void findings__free(struct findings *fs);

#endif
