/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The outputs of a report: text (<= 80 columns unless wide), JSON (json-c)
 * and SARIF.  Each section of the snapshot (model/) has its printer here;
 * the printers only read the snapshot.
 */
#ifndef __MA_REPORT_OUTPUT_H
#define __MA_REPORT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/addr.h"
#include "model/check.h"
#include "model/findings.h"
#include "model/sampling.h"
#include "model/report.h"
#include "model/sim.h"
#include "model/streams.h"
#include "model/watch.h"

struct json_object;

void report__print_text(const struct report *r, FILE *f, bool wide);
struct json_object *report__to_json(const struct report *r);
/* Writes the report as configured, JSON or text, to F and flushes it. 0 or -errno. */
int report__emit(const struct report *r, FILE *f, bool json, bool pretty, bool wide);

struct json_object *sampling__to_json(const struct sampling *p);
void sampling__print_text(const struct sampling *p, FILE *f, bool wide);

struct json_object *addr_profile__to_json(const struct addr_report *p);
void addr_profile__print_text(const struct addr_report *p, FILE *f, bool wide);

struct json_object *watch_report__to_json(const struct watch_report *w);
void watch_report__print_text(const struct watch_report *w, FILE *f, bool wide);

struct json_object *sim_report__to_json(const struct sim_report *s);
void sim_report__print_text(const struct sim_report *s, FILE *f, bool wide);

struct json_object *streams_report__to_json(const struct streams_report *p);
void streams_report__print_text(const struct streams_report *p, FILE *f, bool wide);

struct json_object *findings__to_json(const struct findings *fs);
/* The verdict of the findings' run: text (opens the report) and JSON. */
void verdict__print_text(const struct findings *fs, FILE *f, bool wide);
struct json_object *verdict__to_json(const struct findings *fs);
void findings__print_text(const struct findings *fs, FILE *f, bool wide);
/* SARIF 2.1.0 log of the findings, for code-review tools. 0 or -errno. */
int findings__write_sarif(const struct findings *fs, const char *path);
/* The same to an open stream, flushed (not closed). 0 or -errno. */
int findings__fwrite_sarif(const struct findings *fs, FILE *f);

/* 'memadvise check': the table, JSON (also the baseline format) and JUnit XML. */
void check_report__print_text(const struct check_report *cr, FILE *f, bool wide);
struct json_object *check_report__to_json(const struct check_report *cr);
/* A baseline: the JSON of an earlier check.  0, or -EINVAL with WHY. */
int check_report__from_json(const char *text, struct check_report **out, char *why, size_t len);
/* One <testsuite>, one <testcase> per budget.  0 or -errno. */
int check_report__write_junit(const struct check_report *cr, FILE *f, const char *hostname,
			      double wall_s);

#endif
