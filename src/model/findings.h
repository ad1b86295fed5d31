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
	int count;			/* entities it fired on (first one shown) */
};

struct findings {
	struct finding *f;
	int nr;
	bool replay;			/* from recorded facts (tests), not a measurement */
	int nr_rules;			/* rules evaluated */
	int nr_quiet;			/* rules that held on everything */
};

void findings__free(struct findings *fs);

#endif
