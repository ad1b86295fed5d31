// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * khugepaged and MADV_COLLAPSE activity on the target's address spaces, for
 * 'memadvise run'.  It runs in khugepaged's context, so the target is known
 * by its mm: the mm's owner task (CONFIG_MEMCG) gives the tgid, which must
 * be in sampler.bpf.c's process set (the map is shared).  The programs
 * need the kernel's BTF (typed tracepoints, CO-RE reads): they are linked
 * with tick.bpf.c's and systime.bpf.c's into one object, and user space
 * loads them, without the others, while the target already runs, off the
 * start-up path.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "sampler.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * sampler.bpf.c's 'procs', reused by user space before load; weak: in the
 * linked object (see the Makefile) it is tick.bpf.c's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} procs SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);		/* tgid */
	__type(value, struct prof_thp_val);
} thp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PROF_THP__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} thp_stats SEC(".maps");

static __always_inline void thp_stat_inc(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&thp_stats, &idx);

	if (v)
		*v += 1;
}

static __always_inline struct prof_thp_val *thp_of(struct mm_struct *mm)
{
	struct prof_thp_val zero = {}, *v;
	struct task_struct *owner;
	__u32 tgid;

	if (!bpf_core_field_exists(mm->owner)) {
		thp_stat_inc(PROF_THP_NO_OWNER);
		return NULL;
	}
	owner = BPF_CORE_READ(mm, owner);
	if (!owner) {
		thp_stat_inc(PROF_THP_NO_OWNER);
		return NULL;
	}
	tgid = BPF_CORE_READ(owner, tgid);
	if (!tgid || !bpf_map_lookup_elem(&procs, &tgid))
		return NULL;
	v = bpf_map_lookup_elem(&thp, &tgid);
	if (!v) {
		bpf_map_update_elem(&thp, &tgid, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&thp, &tgid);
	}
	if (v)
		thp_stat_inc(PROF_THP_EVENTS);
	return v;
}

/* Only the mm is read: the other arguments changed across kernel versions. */
SEC("tp_btf/mm_khugepaged_scan_pmd")
int BPF_PROG(on_scan_pmd, struct mm_struct *mm)
{
	struct prof_thp_val *v = thp_of(mm);

	if (v)
		__sync_fetch_and_add(&v->scan_pmd, 1);
	return 0;
}

SEC("tp_btf/mm_collapse_huge_page")
int BPF_PROG(on_collapse, struct mm_struct *mm, int isolated, int status)
{
	struct prof_thp_val *v = thp_of(mm);

	if (v) {
		if (status == 1)
			__sync_fetch_and_add(&v->collapse_ok, 1);
		else
			__sync_fetch_and_add(&v->collapse_fail, 1);
	}
	return 0;
}
