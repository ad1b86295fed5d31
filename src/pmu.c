// SPDX-License-Identifier: GPL-2.0-only
/* First cut: perf generic events only; libpfm4 per-model names replace this. */
#include "pmu.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
const char *const pmu__generic_names[] = { NULL };
int pmu__init(void) { return 0; }
bool pmu__is_generic(const char *n) { (void)n; return true; }
const char *pmu__host_pmu_name(void) { return NULL; }
bool pmu__hw_exposed(void) { return access("/sys/bus/event_source/devices/cpu", F_OK) == 0; }
static const struct { const char *n; int type; unsigned long long cfg; } tab[] = {
 {"task_clock",1,1},{"page_faults",1,2},{"context_switches",1,3},{"cpu_migrations",1,4},{"minor_faults",1,5},{"major_faults",1,6},
 {"cycles",0,0},{"instructions",0,1},{"branch_miss",0,5},{"llc_miss",0,3},{"l1d_miss",3,0x10000},{"dtlb_miss",3,0x10003},
};
int pmu__candidates(const char *name, struct pmu_event *out, int max) {
  for (unsigned i=0;i<sizeof(tab)/sizeof(tab[0]);i++) if(!strcmp(tab[i].n,name)) {
    memset(out,0,sizeof(*out)); snprintf(out->name,48,"%s",name); snprintf(out->encoding,128,"perf::%s",name);
    out->attr.type=tab[i].type; out->attr.config=tab[i].cfg; out->hardware=tab[i].type!=1; out->tier=out->hardware?TIER_COUNTING:TIER_SOFTWARE; (void)max; return 1; }
  return -ENOENT; }
void pmu__strerror_open(int err, const struct perf_event_attr *a, char *buf, size_t len) {(void)a; snprintf(buf,len,"%s%s", err==ENOENT&&!pmu__hw_exposed()?"no hardware PMU: virtualized guest":"", err==ENOENT&&!pmu__hw_exposed()?"":strerror(err)); }
