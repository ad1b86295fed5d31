// SPDX-License-Identifier: GPL-2.0-only
/* Capability checks: every 'no' carries a reason, and what works here is found. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "machine/caps.h"
#include "harness.h"
#include "machine/pmu.h"

void test_caps__tool(void)
{
	struct cap c;

	ASSERT_FALSE(caps__tool("memadvise-no-such-tool", &c), "missing tool");
	ASSERT_TRUE(strstr(c.reason, "not found in PATH") != NULL, c.reason);
	ASSERT_EQ(c.err, ENOENT, "errno");
	ASSERT_TRUE(strstr(c.hint, "apt-get install memadvise-no-such-tool") != NULL, c.hint);
	/* the compiler that built us is on PATH in the test environment */
	if (access("/usr/bin/gcc", X_OK)) {
		test__skip("no /usr/bin/gcc to read a version from");
		return;
	}
	ASSERT_TRUE(caps__tool("gcc", &c), "gcc --version");
	ASSERT_TRUE(c.detail[0] >= '0' && c.detail[0] <= '9', c.detail);
	ASSERT_TRUE(strchr(c.detail, '.') != NULL, c.detail);
}

void test_caps__tracepoint_missing(void)
{
	struct cap c;

	ASSERT_FALSE(caps__tracepoint("memadvise_no_group", NULL, &c), "missing group");
	ASSERT_TRUE(c.reason[0] != 0, "reason");
	ASSERT_NEQ(c.err, 0, "errno");
	ASSERT_FALSE(caps__tracepoint("exceptions", "memadvise_no_event", &c), "missing event");
	ASSERT_TRUE(c.reason[0] != 0, "reason");
	if (caps__tracefs() && !access("/sys/kernel/tracing/events/exceptions", X_OK))
		ASSERT_STREQ(c.reason, "tracepoint not in this kernel", "reason names the cause");
}

void test_caps__event(void)
{
	struct cap c;

	ASSERT_FALSE(caps__event("memadvise_no_event", &c), "unknown name");
	ASSERT_TRUE(strstr(c.reason, "unknown event") != NULL, c.reason);
	if (geteuid()) {
		test__skip("software events need root where perf_event_paranoid forbids them");
		return;
	}
	ASSERT_TRUE(caps__event("page_faults", &c), "page_faults opens as root");
	ASSERT_STREQ(c.detail, "perf::PERF_COUNT_SW_PAGE_FAULTS", "encoding opened");
	ASSERT_TRUE(caps__event("task_clock", NULL), "NULL result is allowed");
}

void test_caps__hw_pmu_reason(void)
{
	struct cap c;

	if (caps__hw_pmu(&c)) {
		ASSERT_TRUE(pmu__hw_exposed(), "cycles opened: the kernel exposes a PMU");
		ASSERT_TRUE(c.detail[0] != 0, "what opened");
		return;
	}
	ASSERT_TRUE(c.reason[0] != 0, "reason");
	if (!pmu__hw_exposed())
		ASSERT_TRUE(!strncmp(c.reason, "no hardware PMU", 15), c.reason);
}

void test_caps__watchpoint(void)
{
	struct cap c;

#if defined(__x86_64__)
	/* any user may watch their own memory on x86 */
	ASSERT_TRUE(caps__watchpoint(&c), c.reason);
	ASSERT_STREQ(c.detail, "counted 3 of 3 writes", "exact count");
#else
	if (!caps__watchpoint(&c))
		ASSERT_TRUE(c.reason[0] != 0, "reason");
	test__skip("exact watchpoint counts are only asserted on x86-64");
#endif
}

void test_caps__privileged(void)
{
	struct cap c;

	if (geteuid() || !caps__has(MA_CAP_BPF)) {
		/* unprivileged BPF may or may not be allowed; a refusal must say why */
		if (!caps__bpf(&c))
			ASSERT_TRUE(c.reason[0] && c.err, "reason and errno");
		test__skip("not root with CAP_BPF: BPF, uprobes and tracepoints not asserted");
		return;
	}
	ASSERT_TRUE(caps__bpf(&c), c.reason);
	if (!access("/sys/kernel/btf/vmlinux", R_OK))
		ASSERT_TRUE(caps__btf(&c), c.reason);
	if (pmu__sysfs_type("uprobe") >= 0)
		ASSERT_TRUE(caps__uprobes(&c), c.reason);
	if (!access("/sys/kernel/tracing/events/exceptions/page_fault_user/id", R_OK))
		ASSERT_TRUE(caps__tracepoint("exceptions", "page_fault_user", &c), c.reason);
}
