// SPDX-License-Identifier: GPL-2.0-only
/*
 * The metric registry and the fact base (see facts.h).  Keep the table in
 * step with man/memadvise-rules.5: tests/lint/rules-doc.sh compares them.
 */
#include "rules/facts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/json.h"
#include "base/util.h"


int scope__parse(const char *s, enum scope *out)
{
	for (int i = 0; i < SCOPE__COUNT; i++) {
		if (!strcmp(s, scope__name(i))) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const evkind_names[EV__COUNT] = {
	[EV_LAYOUT] = "layout",
	[EV_HOTSPOTS] = "profile.hotspots",
	[EV_FAULTS] = "profile.faults",
	[EV_REGIONS] = "profile.regions",
	[EV_ADDR] = "addr_samples",
	[EV_STREAMS] = "streams",
	[EV_WATCH] = "watchpoints",
	[EV_SIM] = "simulation",
	[EV_MACHINE] = "machine_profile",
	[EV_SYSCALLS] = "syscalls",
	[EV_COUNTERS] = "counters",
};

const char *evkind__name(enum evkind k)
{
	return k < EV__COUNT ? evkind_names[k] : "?";
}

/* The generic counters of pmu.h: requires 'counters.NAME' and names 'counter.NAME'. */
static const char *const counter_names[] = {
	"cycles",	"instructions",	  "l1d_miss",	"dtlb_miss",
	"llc_miss",	"branch_miss",	  "task_clock", "page_faults",
	"minor_faults", "major_faults", "context_switches", "cpu_migrations",
};

#define R SCOPE_RUN
#define S SCOPE_STRUCT
#define M SCOPE_MEMBER
#define G SCOPE_REGION
#define L SCOPE_LINE
#define F SCOPE_FUNCTION
#define K SCOPE_LOCK

const struct metric_def metric__registry[] = {
	/* run */
	{ "run.wall_s", R, EV__COUNT, "s", "wall time of the measured run" },
	{ "run.threads", R, EV_HOTSPOTS, "count", "threads of the target seen in samples" },
	{ "run.samples", R, EV_HOTSPOTS, "count", "code samples taken" },
	{ "run.sample_period_ns", R, EV_HOTSPOTS, "ns", "time one code sample stands for" },
	{ "run.faults", R, EV_FAULTS, "count", "page faults traced" },
	{ "run.faults_per_s", R, EV_FAULTS, "per_s", "page faults per second of wall time" },
	{ "run.addr_samples", R, EV_ADDR, "count", "samples with a decoded data address" },
	{ "run.shared_lines", R, EV_ADDR, "count", "cache lines written by two or more threads" },
	{ "run.watch_hits", R, EV_WATCH, "count", "hardware watchpoint hits" },
	/* counters (one per generic counter, see memadvise-run(1)) */
	{ "counter.cycles", R, EV_COUNTERS, "count", "CPU cycles" },
	{ "counter.instructions", R, EV_COUNTERS, "count", "instructions retired" },
	{ "counter.l1d_miss", R, EV_COUNTERS, "count", "L1d misses (the paper's L1D_REPL)" },
	{ "counter.dtlb_miss", R, EV_COUNTERS, "count", "data TLB misses" },
	{ "counter.llc_miss", R, EV_COUNTERS, "count", "last-level cache misses" },
	{ "counter.branch_miss", R, EV_COUNTERS, "count", "mispredicted branches" },
	{ "counter.task_clock", R, EV_COUNTERS, "ns", "CPU time of the target" },
	{ "counter.page_faults", R, EV_COUNTERS, "count", "page faults" },
	{ "counter.minor_faults", R, EV_COUNTERS, "count", "minor page faults" },
	{ "counter.major_faults", R, EV_COUNTERS, "count", "major page faults" },
	{ "counter.context_switches", R, EV_COUNTERS, "count", "context switches" },
	{ "counter.cpu_migrations", R, EV_COUNTERS, "count", "CPU migrations" },
	/* derived ratios (report metrics; present when their counters counted) */
	{ "metric.cpi", R, EV_COUNTERS, "ratio", "cycles per instruction" },
	{ "metric.ipc", R, EV_COUNTERS, "ratio", "instructions per cycle" },
	{ "metric.l1d_miss_rate", R, EV_COUNTERS, "ratio", "L1d misses per instruction" },
	{ "metric.l1d_mpki", R, EV_COUNTERS, "per_kilo_instr", "L1d misses per 1000 instructions" },
	{ "metric.llc_miss_rate", R, EV_COUNTERS, "ratio", "LLC misses per instruction" },
	{ "metric.llc_mpki", R, EV_COUNTERS, "per_kilo_instr", "LLC misses per 1000 instructions" },
	{ "metric.dtlb_miss_rate", R, EV_COUNTERS, "ratio", "DTLB misses per instruction" },
	{ "metric.dtlb_mpki", R, EV_COUNTERS, "per_kilo_instr", "DTLB misses per 1000 instructions" },
	{ "metric.branch_miss_rate", R, EV_COUNTERS, "ratio", "branch misses per instruction" },
	{ "metric.branch_mpki", R, EV_COUNTERS, "per_kilo_instr",
	  "branch misses per 1000 instructions" },
	{ "metric.cpu_utilization", R, EV_COUNTERS, "cpus", "CPUs busy on average" },
	{ "metric.page_faults_per_sec", R, EV_COUNTERS, "per_s", "page faults per second" },
	/* simulation (cachegrind, whole run) */
	{ "sim.refs", R, EV_SIM, "count", "simulated data references" },
	{ "sim.d1_misses", R, EV_SIM, "count", "simulated L1d misses" },
	{ "sim.ll_misses", R, EV_SIM, "count", "simulated last-level misses" },
	{ "sim.d1_miss_ratio", R, EV_SIM, "ratio", "simulated L1d misses per reference" },
	{ "sim.branches", R, EV_SIM, "count", "simulated conditional branches" },
	{ "sim.branch_misses", R, EV_SIM, "count", "simulated mispredicted conditional branches" },
	/* machine: sysfs now, latencies from 'memadvise calibrate' */
	{ "machine.line_size", R, EV__COUNT, "bytes", "L1d cache-line size" },
	{ "machine.page_size", R, EV__COUNT, "bytes", "base page size" },
	{ "machine.l1d_size", R, EV__COUNT, "bytes", "L1d size" },
	{ "machine.l1d_ways", R, EV__COUNT, "count", "L1d associativity" },
	{ "machine.l2_ways", R, EV_STREAMS, "count", "L2 associativity (the stream model's)" },
	{ "machine.dtlb_entries", R, EV_STREAMS, "count",
	  "first-level data TLB entries the stream model used (from calibrate)" },
	{ "machine.l2_size", R, EV__COUNT, "bytes", "L2 size" },
	{ "machine.llc_size", R, EV__COUNT, "bytes", "last-level cache size" },
	{ "machine.cpus", R, EV__COUNT, "count", "online CPUs" },
	{ "machine.thp_mode", R, EV__COUNT, "enum", "THP mode: 0 never, 1 madvise, 2 always" },
	{ "machine.lat_l1_ns", R, EV_MACHINE, "ns", "L1d load-to-use latency" },
	{ "machine.lat_l2_ns", R, EV_MACHINE, "ns", "L2 load-to-use latency" },
	{ "machine.lat_llc_ns", R, EV_MACHINE, "ns", "last-level cache latency" },
	{ "machine.lat_mem_ns", R, EV_MACHINE, "ns", "main-memory latency (random walk)" },
	{ "machine.tlb_miss_ns", R, EV_MACHINE, "ns", "TLB-miss penalty" },
	{ "machine.tlb_entries", R, EV_MACHINE, "count",
	  "second-level TLB entries (the knee of the one-entry-per-page walk)" },
	{ "machine.fault_ns", R, EV_MACHINE, "ns", "cost of one minor page fault" },
	{ "machine.false_sharing_ns", R, EV_MACHINE, "ns", "cost of one contended-line write" },
	{ "machine.no_sharing_ns", R, EV_MACHINE, "ns", "the same write on a line of its own" },
	{ "machine.atomic_ns", R, EV_MACHINE, "ns", "one atomic add" },
	{ "machine.cas_ns", R, EV_MACHINE, "ns", "one compare-and-swap loop iteration" },
	{ "machine.branch_miss_ns", R, EV_MACHINE, "ns", "one branch misprediction" },
	/* struct (layout) */
	{ "struct.size", S, EV_LAYOUT, "bytes", "sizeof the struct" },
	{ "struct.align", S, EV_LAYOUT, "bytes", "alignment of the type" },
	{ "struct.declared_align", S, EV_LAYOUT, "bytes", "aligned(N) on the type, 0 if none" },
	{ "struct.members", S, EV_LAYOUT, "count", "members" },
	{ "struct.holes", S, EV_LAYOUT, "count", "holes between members" },
	{ "struct.hole_bytes", S, EV_LAYOUT, "bytes", "bytes in holes" },
	{ "struct.padding", S, EV_LAYOUT, "bytes", "trailing padding" },
	{ "struct.lines", S, EV_LAYOUT, "count", "cache lines the size covers" },
	{ "struct.max_lines_spanned", S, EV_LAYOUT, "count",
	  "worst-case lines one instance touches given its alignment" },
	{ "struct.line_aligned", S, EV_LAYOUT, "bool", "every instance starts a cache line" },
	{ "struct.array_straddling", S, EV_LAYOUT, "ratio",
	  "share of array elements spanning more lines than needed" },
	{ "struct.straddlers", S, EV_LAYOUT, "count", "members crossing a line boundary" },
	{ "struct.sync_members", S, EV_LAYOUT, "count", "atomic or lock members" },
	{ "struct.packed_size", S, EV_LAYOUT, "bytes", "size after the proposed reordering" },
	{ "struct.packed_lines", S, EV_LAYOUT, "count", "cache lines after the reordering" },
	/* struct (run time) */
	{ "struct.hot", S, EV_HOTSPOTS, "bool", "a sampled hot line works on this type" },
	{ "struct.samples", S, EV_HOTSPOTS, "count", "code samples on lines working on the type" },
	{ "struct.share", S, EV_HOTSPOTS, "ratio", "share of all code samples" },
	{ "struct.stride", S, EV_ADDR, "bytes", "dominant data stride at its hot line" },
	{ "struct.order_sigma", S, EV_ADDR, "ratio",
	  "standard deviations its hot line's forward deltas lie above random order's half" },
	{ "struct.in_order", S, EV_ADDR, "bool",
	  "its hot line walks the array in order (2.5 deviations, and 2/3 of the deltas forward)" },
	{ "line.member_misaligned", L, EV_LAYOUT, "bool",
	  "a member its accesses read lies off its natural alignment in the struct's layout "
	  "(packed)" },
	{ "line.bind_ambiguous", L, EV_ADDR, "bool",
	  "the struct named here fits the access only as well as another (struct.bind_ambiguous)" },
	{ "struct.reach_known", S, EV_ADDR, "bool",
	  "the loop around its busiest access was decoded: the members it reaches through the same "
	  "pointer are known" },
	{ "struct.hot_split_frac", S, EV_ADDR, "ratio",
	  "share of the objects whose members the hot loop uses lie on two lines where the objects "
	  "begin (exact addresses)" },
	{ "struct.hot_split_saved", S, EV_ADDR, "ratio",
	  "share of the objects that would no longer straddle were the used members first and "
	  "together" },
	{ "struct.hot_lines_saved", S, EV_ADDR, "ratio",
	  "share of the line fetches of an object its busiest access's loop costs that putting the "
	  "members that loop uses first and together would save, from where the sampled objects "
	  "begin in their lines" },
	{ "struct.together_bytes", S, EV_ADDR, "bytes",
	  "bytes of the members the loop of its busiest access uses: sampled there, or reached by its "
	  "code through the pointer of a sampled access" },
	{ "struct.together_samples", S, EV_ADDR, "count",
	  "code samples of its accesses in the loop of its busiest access (its function when that "
	  "loop is not known): the time a layout of the members used together can shorten" },
	{ "struct.walk_dense", S, EV_STREAMS, "bool",
	  "the address stream of its walk steps one object at a time (its stride or period is the "
	  "size), not over a sparse subset of them" },
	{ "struct.addr_samples", S, EV_ADDR, "count", "data-address samples on this type" },
	{ "struct.bind_ambiguous", S, EV_ADDR, "ratio",
	  "share of those samples whose access fits another struct as well: the function's types, "
	  "not the debug info of the base register, chose" },
	{ "struct.hot_members", S, EV_ADDR, "count",
	  "members the sampled accesses of the busiest access's loop touched" },
	{ "struct.reached_bytes", S, EV_ADDR, "bytes",
	  "bytes of the members sampled or reached by the hot loop's code through the pointer of a "
	  "sampled access (what a hot/cold split must keep together)" },
	{ "struct.span_lines", S, EV_ADDR, "count",
	  "cache lines the accesses to its objects cover: the widest of its sampled accesses' "
	  "(line.span_lines), estimated from the lines their samples saw once and twice" },
	{ "struct.extent_bytes", S, EV_ADDR, "bytes",
	  "from the lowest to the highest address hit by its sampled accesses that step over its "
	  "objects one by one (the array walked), in one thread (threads walking arrays of their "
	  "own walk small ones)" },
	{ "struct.hot_bytes", S, EV_ADDR, "bytes", "bytes of those members" },
	{ "struct.no_address_share", S, EV_ADDR, "ratio",
	  "share of the hot function's decoded memory samples that gave no address "
	  "(a load that overwrote its index): accesses to members unknown" },
	{ "struct.hot_lines", S, EV_ADDR, "count", "distinct lines those members lie on" },
	{ "struct.placement_split_frac", S, EV_ADDR, "ratio",
	  "share of the sampled objects (no larger than a line) that straddle two lines "
	  "because of where they begin in theirs (sampled address less the member's offset), "
	  "at an offset that is not a multiple of 16 (no allocator places them so)" },
	{ "struct.placement_samples", S, EV_ADDR, "count",
	  "exact samples that placement share is computed from" },
	{ "struct.placement_pad_growth", S, EV_ADDR, "ratio",
	  "how much the struct grows padded to the next size that divides the line (none "
	  "straddles then): 0 when it divides the line already" },
	{ "struct.hot_lines_apart", S, EV_ADDR, "bool",
	  "its hot lines are kept apart on purpose (line-aligned member, padding array)" },
	/* member */
	{ "member.offset", M, EV_LAYOUT, "bytes", "offset in the struct" },
	{ "member.size", M, EV_LAYOUT, "bytes", "size" },
	{ "member.align", M, EV_LAYOUT, "bytes", "alignment" },
	{ "member.line_index", M, EV_LAYOUT, "count", "cache line of the struct it starts in" },
	{ "member.straddles", M, EV_LAYOUT, "bool", "crosses a cache-line boundary" },
	{ "member.misaligned", M, EV_LAYOUT, "bool", "offset not a multiple of its alignment" },
	{ "member.sync", M, EV_LAYOUT, "bool", "an atomic or a lock" },
	{ "member.hole_after", M, EV_LAYOUT, "bytes", "hole following the member" },
	{ "member.addr_samples", M, EV_ADDR, "count", "sampled accesses to the member" },
	{ "member.writer_threads", M, EV_ADDR, "count", "threads seen writing the member's line" },
	{ "member.reader_threads", M, EV_ADDR, "count",
	  "threads seen only reading the member's line, at bytes nobody wrote" },
	{ "member.shared_writes", M, EV_ADDR, "count",
	  "sampled writes to its line, shared by two or more threads" },
	{ "member.shared_reads", M, EV_ADDR, "count",
	  "sampled reads of its line by threads that only read other bytes of it" },
	{ "member.false_sharing", M, EV_ADDR, "bool",
	  "threads used different bytes of the member's line, one of them writing" },
	{ "member.same_object", M, EV_ADDR, "bool",
	  "the bytes every thread used on the member's shared line lie in one object of its struct" },
	{ "member.written_from", M, EV_ADDR, "bytes",
	  "with member.same_object: the offset in the object of the first byte written on the line" },
	{ "member.watch_hits", M, EV_WATCH, "count", "watchpoint hits on the member" },
	{ "member.watch_threads", M, EV_WATCH, "count", "threads the watchpoint saw writing" },
	/* region */
	{ "region.size", G, EV_REGIONS, "bytes", "size of the mapping" },
	{ "region.anon", G, EV_REGIONS, "bool", "anonymous memory (heap or mmap)" },
	{ "region.thp_bytes", G, EV_REGIONS, "bytes", "bytes backed by transparent huge pages" },
	{ "region.thp_eligible", G, EV_REGIONS, "bool", "smaps THPeligible" },
	{ "region.aligned_2m", G, EV_REGIONS, "bool", "start is 2 MiB aligned" },
	{ "region.faults", G, EV_FAULTS, "count", "page faults in the region" },
	{ "region.write_faults", G, EV_FAULTS, "count", "write faults in the region" },
	{ "region.major_faults", G, EV_FAULTS, "count", "major faults in the region" },
	{ "region.faults_per_mib", G, EV_FAULTS, "ratio", "faults per MiB of the region" },
	{ "region.refaults", G, EV_FAULTS, "ratio",
	  "faults per faulted page, lower bound (1-2: first touch; more: re-faulting)" },
	{ "region.addr_samples", G, EV_ADDR, "count", "data-address samples in the region" },
	{ "region.addr_pages", G, EV_ADDR, "count", "distinct 4 KiB pages sampled in it" },
	{ "region.random_share", G, EV_ADDR, "ratio",
	  "share of its sampled accesses made by code walking it in no regular stride" },
	{ "region.random_pages", G, EV_ADDR, "count",
	  "4 KiB pages that code walks at random, estimated from repeats (lower bound)" },
	/* hot line */
	{ "line.samples", L, EV_HOTSPOTS, "count", "code samples on the line" },
	{ "line.share", L, EV_HOTSPOTS, "ratio", "share of all code samples" },
	{ "line.threads", L, EV_HOTSPOTS, "count", "threads sampled on the line" },
	{ "line.faults", L, EV_FAULTS, "count", "page faults raised by the line" },
	{ "line.fault_share", L, EV_FAULTS, "ratio", "share of all page faults" },
	{ "line.refaults", L, EV_FAULTS, "ratio",
	  "faults per faulted page of the region its faults were in, lower bound" },
	{ "line.addr_samples", L, EV_ADDR, "count", "samples with a data address" },
	{ "line.stride", L, EV_ADDR, "bytes", "dominant stride of its data addresses" },
	{ "line.stride_frac", L, EV_ADDR, "ratio", "share of deltas that are stride multiples" },
	{ "line.stride_monotonic", L, EV_ADDR, "ratio",
	  "share of address deltas going the stride's way (0.5: random order)" },
	{ "line.in_order", L, EV_ADDR, "bool",
	  "its walk goes in order (2.5 deviations above random, 2/3 of the deltas forward); "
	  "from its address stream when one was recorded (line.stream_order)" },
	{ "line.chained", L, EV_ADDR, "bool",
	  "the loop around its hottest access moves that access's pointer only to a pointer "
	  "loaded through it (p = p->next, a tree descent, cur[t] = cur[t]->next), or the "
	  "function passes it on to itself so loaded (a recursive walk): each access waits "
	  "for the load before it" },
	{ "line.elem_stride", L, EV_ADDR, "bool",
	  "its stride is the size of the struct it reads: an array of structs, element by element" },
	{ "line.random_pages", L, EV_ADDR, "count",
	  "pages the line's accesses cover: a lower bound from the samples of all its "
	  "instructions, those that hit a page twice (capture-recapture), robust to hot pages "
	  "(Chao's estimator)" },
	{ "line.span_lines_max", L, EV_ADDR, "count",
	  "lines the line's accesses cover at most: an upper bound from the samples that "
	  "hit a line twice (unknown when they repeat too little)" },
	{ "line.region_thp_share", L, EV_ADDR, "ratio",
	  "share of the mapping the line's addresses fell in that is backed by transparent huge "
	  "pages (smaps at exit)" },
	{ "line.loop_fill", L, EV_ADDR, "bytes",
	  "the bytes its loop reaches through the same pointer a pass (the union of its "
	  "accesses' displacement and size): an unrolled walk's accesses fill its step together" },
	{ "line.origin_streams", L, EV_ADDR, "count",
	  "arrays its loop walks by an index whose starts lie in the same L1d set as its own "
	  "(base register plus displacement, the same set in 9 of 10 samples or more): they "
	  "share that set at every index" },
	{ "line.span_lines", L, EV_ADDR, "count",
	  "cache lines its accesses cover, estimated from the lines the samples of all its "
	  "instructions saw once and twice (lower bound, robust to hot lines)" },
	{ "line.lines", L, EV_ADDR, "count", "distinct cache lines it touched" },
	{ "line.pages", L, EV_ADDR, "count", "distinct 4 KiB pages it touched" },
	{ "line.writes", L, EV_ADDR, "bool", "the sampled access is a store" },
	{ "line.access_size", L, EV_ADDR, "bytes", "size of the sampled access" },
	{ "line.locked", L, EV_ADDR, "bool", "the sampled access is a locked instruction" },
	{ "line.cas", L, EV_ADDR, "bool", "the sampled access is a compare-and-swap" },
	{ "line.false_sharing", L, EV_ADDR, "bool",
	  "threads wrote different bytes of the line it writes" },
	{ "line.true_sharing_threads", L, EV_ADDR, "count",
	  "threads writing the same bytes of the line it writes" },
	{ "line.nt_store", L, EV_ADDR, "bool", "the sampled access is a non-temporal store" },
	{ "line.split_frac", L, EV_ADDR, "ratio", "share of its accesses crossing a line boundary" },
	{ "line.object_split_frac", L, EV_ADDR, "ratio",
	  "struct.placement_split_frac of the struct its access works on" },
	{ "line.object_samples", L, EV_ADDR, "count",
	  "exact samples of that struct's objects it is computed from" },
	{ "line.object_pad_growth", L, EV_ADDR, "ratio",
	  "struct.placement_pad_growth of that struct" },
	{ "line.store_span", L, EV_ADDR, "bytes",
	  "lowest to highest exact address of the line's most sampled store, over the run: "
	  "the buffer it writes" },
	{ "line.store_samples", L, EV_ADDR, "count", "exact addresses line.store_span is from" },
	{ "line.store_span_max", L, EV_ADDR, "bytes",
	  "the largest buffer line.store_span's samples fit in, 999 times in 1000 (uniform "
	  "samples over a bigger one spread wider)" },
	{ "line.l1_sets", L, EV_ADDR, "count", "distinct L1d sets of the cache lines it touched" },
	{ "line.region_bytes", L, EV_ADDR, "bytes", "size of the mapping its addresses fall in" },
	{ "line.stream_accesses", L, EV_STREAMS, "count",
	  "accesses recorded by the uprobe on its hottest instruction" },
	{ "line.stream_stride", L, EV_STREAMS, "bytes",
	  "exact stride: most common delta between consecutive addresses of a thread" },
	{ "line.stream_stride_frac", L, EV_STREAMS, "ratio", "share of deltas equal to the stride" },
	{ "line.stream_lines_per_k", L, EV_STREAMS, "count", "distinct lines per 1000 accesses" },
	{ "line.stream_pages_per_k", L, EV_STREAMS, "count", "distinct 4 KiB pages per 1000 accesses" },
	{ "line.stream_set_lines", L, EV_STREAMS, "count",
	  "most distinct lines in one L1d set, in a window of as many accesses as the L1d has lines" },
	{ "line.stream_sets_used", L, EV_STREAMS, "count", "L1d sets the lines of that window use" },
	{ "line.stream_l2_set_lines", L, EV_STREAMS, "count",
	  "the same for the L2, in a window of as many accesses as it has lines" },
	{ "line.stream_conflict", L, EV_STREAMS, "bool",
	  "lines crowd into a quarter or less of the sets, more than the ways in one (L1d or L2)" },
	{ "line.stream_order", L, EV_STREAMS, "ratio",
	  "share of the stream's address deltas going its main way (0.5: random order); at "
	  "0.9 or more line.in_order is true, from the stream" },
	{ "line.stream_jump_share", L, EV_STREAMS, "ratio",
	  "share of the stream's deltas that jump a page or more other than its stride: steps "
	  "no prefetcher follows, though the walk may go one way" },
	{ "line.stream_store_accesses", L, EV_STREAMS, "count",
	  "accesses recorded of the line's store (its longest stream of an instruction that only "
	  "writes)" },
	{ "line.stream_store_stride", L, EV_STREAMS, "bytes", "that store's exact stride" },
	{ "line.stream_store_size", L, EV_STREAMS, "bytes", "that store's access size" },
	{ "line.stream_store_fill", L, EV_STREAMS, "bytes",
	  "the bytes that store's loop writes through its pointer a pass (the union of the "
	  "loop's accesses through it; a loop store only)" },
	{ "line.stream_store_stride_frac", L, EV_STREAMS, "ratio",
	  "share of that store's deltas equal to its stride" },
	{ "line.loop_share", L, EV_STREAMS, "ratio",
	  "share of the code samples in the loop around the line's store, when the store was "
	  "probed as a store of a hot loop rather than for its own samples" },
	{ "line.stream_split_frac", L, EV_STREAMS, "ratio", "share of accesses crossing a line" },
	{ "line.stream_writes", L, EV_STREAMS, "bool", "the instruction stores" },
	{ "line.stream_write_only", L, EV_STREAMS, "bool",
	  "the line's store (line.stream_store_accesses) wrote 20+ lines of which probed loads "
	  "read under 5 % back, no two lines in the span written had a load sampled at them, "
	  "and no sampled load ranged over it (read back by other code)" },
	{ "line.stream_reuse_frac", L, EV_STREAMS, "ratio",
	  "share of accesses to a line the thread's stream touched within 1024 lines" },
	{ "line.stream_span_lines", L, EV_STREAMS, "count",
	  "cache lines the stream roams over, estimated from how rarely its first touches "
	  "(accesses to a line not among its last 1024) meet a line an earlier burst touched" },
	{ "line.no_address_share", L, EV_ADDR, "ratio",
	  "share of the line's decoded memory samples that gave no address (a load that "
	  "overwrote its index, or a narrow load into its base)" },
	{ "line.stream_l1_miss", L, EV_STREAMS, "ratio", "L1d miss ratio of the cache model, among the accesses a burst decides "
	  "(first touches only once it has touched more lines than the L1d holds)" },
	{ "line.stream_l2_miss", L, EV_STREAMS, "ratio", "L2 miss ratio of the cache model (cold included)" },
	{ "line.stream_tlb_miss", L, EV_STREAMS, "ratio", "dTLB miss ratio of the TLB model, among the accesses a burst decides "
	  "(first touches only once it has touched more pages than the TLB holds)" },
	{ "line.branch_misses", L, EV_COUNTERS, "count",
	  "mispredictions sampled at the line (hardware PMU)" },
	{ "line.sim_refs", L, EV_SIM, "count", "simulated data references" },
	{ "line.sim_d1_misses", L, EV_SIM, "count", "simulated L1d misses" },
	{ "line.sim_ll_misses", L, EV_SIM, "count", "simulated last-level misses" },
	{ "line.sim_branches", L, EV_SIM, "count", "simulated conditional branches" },
	{ "line.sim_branch_misses", L, EV_SIM, "count", "simulated mispredictions" },
	/* function */
	{ "function.samples", F, EV_HOTSPOTS, "count", "code samples in the function" },
	{ "function.share", F, EV_HOTSPOTS, "ratio", "share of all code samples" },
	/* lock: a futex word the target's threads slept on while another held it */
	{ "run.lock_wait_s", R, EV_SYSCALLS, "s",
	  "thread time in short futex lock waits (FUTEX_WAIT, FUTEX_LOCK_PI), all locks" },
	{ "run.runnable_s", R, EV_SYSCALLS, "s",
	  "thread time off the CPU while runnable: waiting for a CPU (sched_switch)" },
	{ "lock.wait_s", K, EV_SYSCALLS, "s", "thread time slept waiting for this lock" },
	{ "lock.waits", K, EV_SYSCALLS, "count", "times a thread slept waiting for it" },
	{ "lock.threads", K, EV_SYSCALLS, "count",
	  "threads that slept waiting for it (a lower bound)" },
	{ "lock.waits_per_s", K, EV_SYSCALLS, "per_s", "its waits per second of wall time" },
	{ "lock.named", K, EV_SYSCALLS, "bool",
	  "the lock word is a named variable (symbol table), not heap or stack" },
};
const size_t metric__nr_registry = ARRAY_SIZE(metric__registry);

#undef R
#undef S
#undef M
#undef G
#undef L
#undef F

const struct metric_def *metric__find(const char *name)
{
	for (size_t i = 0; i < metric__nr_registry; i++)
		if (!strcmp(metric__registry[i].name, name))
			return &metric__registry[i];
	return NULL;
}

bool metric__usable_in(const struct metric_def *d, enum scope s)
{
	if (d->scope == SCOPE_RUN || d->scope == s)
		return true;
	return d->scope == SCOPE_STRUCT && s == SCOPE_MEMBER;
}

bool evkind__valid(const char *kind)
{
	for (int i = 0; i < EV__COUNT; i++)
		if (i != EV_COUNTERS && !strcmp(kind, evkind_names[i]))
			return true;
	if (!strncmp(kind, "counters.", 9)) {
		for (size_t i = 0; i < ARRAY_SIZE(counter_names); i++)
			if (!strcmp(kind + 9, counter_names[i]))
				return true;
	}
	return false;
}

struct factbase *factbase__new(void)
{
	struct factbase *fb = calloc(1, sizeof(*fb));

	if (!fb)
		return NULL;
	fb->run.scope = SCOPE_RUN;
	fb->run.parent = -1;
	for (int i = 0; i < EV__COUNT; i++)
		snprintf(fb->missing[i], sizeof(fb->missing[i]), "no %s in this run",
			 evkind_names[i]);
	return fb;
}

static void entity__release(struct entity *e)
{
	free(e->facts);
	free(e->snippet);
	free(e->decl_text);
	free(e->split_text);
	free(e->hot_text);
}

void factbase__free(struct factbase *fb)
{
	if (!fb)
		return;
	entity__release(&fb->run);
	for (int i = 0; i < fb->nr_ents; i++)
		entity__release(&fb->ents[i]);
	free(fb->ents);
	free(fb);
}

int factbase__add(struct factbase *fb, const struct entity *e)
{
	struct entity *n;

	n = realloc(fb->ents, (fb->nr_ents + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	fb->ents = n;
	n[fb->nr_ents] = *e;
	n[fb->nr_ents].facts = NULL;
	n[fb->nr_ents].nr_facts = 0;
	return fb->nr_ents++;
}

static struct entity *entity_at(struct factbase *fb, int idx)
{
	if (idx < 0)
		return &fb->run;
	return idx < fb->nr_ents ? &fb->ents[idx] : NULL;
}

int factbase__set(struct factbase *fb, int idx, const char *name, double v, enum tier t)
{
	const struct metric_def *d = metric__find(name);
	struct entity *e = entity_at(fb, idx);
	struct fact *f;

	if (!d || !e || !isfinite(v))
		return -ENOENT;
	for (int i = 0; i < e->nr_facts; i++) {
		if (e->facts[i].idx == d - metric__registry) {
			e->facts[i].v = v;
			e->facts[i].tier = t;
			return 0;
		}
	}
	f = realloc(e->facts, (e->nr_facts + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	e->facts = f;
	f[e->nr_facts].idx = (int)(d - metric__registry);
	f[e->nr_facts].v = v;
	f[e->nr_facts].tier = t;
	e->nr_facts++;
	return 0;
}

static const struct fact *entity__fact(const struct entity *e, int idx)
{
	for (int i = 0; i < e->nr_facts; i++)
		if (e->facts[i].idx == idx)
			return &e->facts[i];
	return NULL;
}

int factbase__get(const struct factbase *fb, int idx, const char *name, double *v, enum tier *t)
{
	const struct metric_def *d = metric__find(name);
	const struct fact *f = NULL;
	int depth = 0;

	if (!d)
		return -ENOENT;
	while (idx >= 0 && idx < fb->nr_ents && depth++ < 4) {
		f = entity__fact(&fb->ents[idx], (int)(d - metric__registry));
		if (f)
			break;
		idx = fb->ents[idx].parent;
	}
	if (!f)
		f = entity__fact(&fb->run, (int)(d - metric__registry));
	if (!f)
		return -ENOENT;
	*v = f->v;
	if (t)
		*t = f->tier;
	return 0;
}

void factbase__mark(struct factbase *fb, enum evkind k, bool have, const char *why_missing)
{
	fb->have[k] = have;
	if (!have && why_missing)
		snprintf(fb->missing[k], sizeof(fb->missing[k]), "%s", why_missing);
}

bool factbase__has(const struct factbase *fb, const char *kind, const char **why)
{
	static const char unknown[] = "not a kind of evidence memadvise knows";

	if (!strncmp(kind, "counters.", 9)) {
		for (int i = 0; i < fb->nr_counters; i++) {
			if (!strcmp(fb->counters[i].name, kind + 9)) {
				if (fb->counters[i].counted)
					return true;
				if (why)
					*why = fb->counters[i].reason;
				return false;
			}
		}
		if (why)
			*why = "the counter was not asked for";
		return false;
	}
	for (int i = 0; i < EV__COUNT; i++) {
		if (i != EV_COUNTERS && !strcmp(kind, evkind_names[i])) {
			if (!fb->have[i] && why)
				*why = fb->missing[i];
			return fb->have[i];
		}
	}
	if (why)
		*why = unknown;
	return false;
}

/* --- recorded fact bases (replay input of tests) and their dump ------------- */

static const char *const ent_str_keys[] = { "struct", "member", "decl_file", "function",
					    "file", "region", "snippet", "decl_text", "split_text",
					    "hot_text" };

static struct json_object *entity__to_json(const struct entity *e)
{
	struct json_object *o = json_object_new_object();
	struct json_object *facts = json_object_new_object();
	const char *strs[] = { e->struct_name, e->member, e->decl_file, e->function,
			       e->file, e->region, e->snippet, e->decl_text, e->split_text,
			       e->hot_text };

	json_object_object_add(o, "scope", json_str(scope__name(e->scope)));
	if (e->parent >= 0)
		json_object_object_add(o, "parent", json_object_new_int(e->parent));
	for (size_t i = 0; i < ARRAY_SIZE(ent_str_keys); i++)
		if (strs[i] && strs[i][0])
			json_object_object_add(o, ent_str_keys[i], json_str(strs[i]));
	if (e->decl_line)
		json_object_object_add(o, "decl_line", json_object_new_int(e->decl_line));
	if (e->line)
		json_object_object_add(o, "line", json_object_new_int(e->line));
	for (int i = 0; i < e->nr_facts; i++) {
		struct json_object *f = json_object_new_object();

		json_object_object_add(f, "value", json_object_new_double(e->facts[i].v));
		json_object_object_add(f, "tier", json_str(tier__name(e->facts[i].tier)));
		json_object_object_add(facts, metric__registry[e->facts[i].idx].name, f);
	}
	json_object_object_add(o, "facts", facts);
	return o;
}

struct json_object *factbase__to_json(const struct factbase *fb)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ev = json_object_new_object();
	struct json_object *ents = json_object_new_array();

	json_object_object_add(o, "replay", json_object_new_boolean(true));
	for (int i = 0; i < EV__COUNT; i++) {
		if (i == EV_COUNTERS)
			continue;
		json_object_object_add(ev, evkind_names[i],
				       fb->have[i] ? json_object_new_boolean(true)
						   : json_str(fb->missing[i]));
	}
	for (int i = 0; i < fb->nr_counters; i++) {
		char key[64];

		snprintf(key, sizeof(key), "counters.%s", fb->counters[i].name);
		json_object_object_add(ev, key,
				       fb->counters[i].counted
					       ? json_object_new_boolean(true)
					       : json_str(fb->counters[i].reason));
	}
	json_object_object_add(o, "evidence", ev);
	json_object_object_add(o, "run", entity__to_json(&fb->run));
	for (int i = 0; i < fb->nr_ents; i++)
		json_object_array_add(ents, entity__to_json(&fb->ents[i]));
	json_object_object_add(o, "entities", ents);
	return o;
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int entity__from_json(struct factbase *fb, int idx, struct json_object *o, char *err,
			     size_t errlen)
{
	struct entity *e = entity_at(fb, idx);
	struct json_object *facts, *v;
	char *strs[] = { e->struct_name, e->member, e->decl_file, e->function, e->file, e->region };
	size_t lens[] = { sizeof(e->struct_name), sizeof(e->member), sizeof(e->decl_file),
			  sizeof(e->function), sizeof(e->file), sizeof(e->region) };

	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		const char *s = jstr(o, ent_str_keys[i]);

		if (s)
			snprintf(strs[i], lens[i], "%s", s);
	}
	if (jstr(o, "snippet"))
		e->snippet = xstrdup(jstr(o, "snippet"));
	if (jstr(o, "decl_text"))
		e->decl_text = xstrdup(jstr(o, "decl_text"));
	if (jstr(o, "split_text"))
		e->split_text = xstrdup(jstr(o, "split_text"));
	if (jstr(o, "hot_text"))
		e->hot_text = xstrdup(jstr(o, "hot_text"));
	if (json_object_object_get_ex(o, "decl_line", &v))
		e->decl_line = json_object_get_int(v);
	if (json_object_object_get_ex(o, "line", &v))
		e->line = json_object_get_int(v);
	if (!json_object_object_get_ex(o, "facts", &facts))
		return 0;
	json_object_object_foreach(facts, name, f)
	{
		struct json_object *val = f, *tv;
		enum tier t = TIER_SOFTWARE;

		if (json_object_is_type(f, json_type_object)) {
			if (!json_object_object_get_ex(f, "value", &val)) {
				snprintf(err, errlen, "fact '%s' has no value", name);
				return -EINVAL;
			}
			if (json_object_object_get_ex(f, "tier", &tv))
				for (int i = 0; i < TIER__COUNT; i++)
					if (!strcmp(json_object_get_string(tv), tier__name(i)))
						t = i;
		}
		if (factbase__set(fb, idx, name, json_object_get_double(val), t)) {
			snprintf(err, errlen, "'%s' is not a metric memadvise knows", name);
			return -EINVAL;
		}
	}
	return 0;
}

int factbase__from_json(struct json_object *o, struct factbase **out, char *err, size_t errlen)
{
	struct factbase *fb;
	struct json_object *ev, *run, *ents;
	int ret = -EINVAL;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "not a JSON object");
		return -EINVAL;
	}
	fb = factbase__new();
	if (!fb)
		return -ENOMEM;
	fb->replay = true;
	if (json_object_object_get_ex(o, "evidence", &ev)) {
		json_object_object_foreach(ev, kind, val)
		{
			bool have = json_object_is_type(val, json_type_boolean) &&
				    json_object_get_boolean(val);
			const char *why = json_object_is_type(val, json_type_string)
						  ? json_object_get_string(val)
						  : NULL;

			if (!evkind__valid(kind)) {
				snprintf(err, errlen, "unknown evidence kind '%s'", kind);
				goto out;
			}
			if (!strncmp(kind, "counters.", 9)) {
				if (fb->nr_counters == (int)ARRAY_SIZE(fb->counters))
					continue;
				snprintf(fb->counters[fb->nr_counters].name,
					 sizeof(fb->counters[0].name), "%s", kind + 9);
				fb->counters[fb->nr_counters].counted = have;
				snprintf(fb->counters[fb->nr_counters].reason,
					 sizeof(fb->counters[0].reason), "%s", why ? why : "not counted");
				fb->nr_counters++;
				if (have)
					fb->have[EV_COUNTERS] = true;
				continue;
			}
			for (int i = 0; i < EV__COUNT; i++)
				if (!strcmp(kind, evkind_names[i]))
					factbase__mark(fb, i, have, why);
		}
	}
	if (json_object_object_get_ex(o, "run", &run) &&
	    (ret = entity__from_json(fb, -1, run, err, errlen)))
		goto out;
	ret = 0;
	if (json_object_object_get_ex(o, "entities", &ents)) {
		for (size_t i = 0; i < json_object_array_length(ents); i++) {
			struct json_object *je = json_object_array_get_idx(ents, i), *p;
			struct entity e = { .parent = -1 };
			const char *sc = jstr(je, "scope");
			int idx;

			if (!sc || scope__parse(sc, &e.scope) || e.scope == SCOPE_RUN) {
				snprintf(err, errlen, "entity %zu: bad or missing scope", i);
				ret = -EINVAL;
				goto out;
			}
			if (json_object_object_get_ex(je, "parent", &p)) {
				e.parent = json_object_get_int(p);
				if (e.parent < 0 || e.parent >= (int)i) {
					snprintf(err, errlen, "entity %zu: parent must come before it", i);
					ret = -EINVAL;
					goto out;
				}
			}
			idx = factbase__add(fb, &e);
			if (idx < 0) {
				ret = idx;
				goto out;
			}
			ret = entity__from_json(fb, idx, je, err, errlen);
			if (ret)
				goto out;
		}
	}
out:
	if (ret) {
		factbase__free(fb);
		return ret;
	}
	*out = fb;
	return 0;
}
