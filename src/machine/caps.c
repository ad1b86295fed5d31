// SPDX-License-Identifier: GPL-2.0-only
/* Capability checks by trying the real thing on this process (see caps.h). */
#include "machine/caps.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "machine/pmu.h"
#include "symbols/procmaps.h"
#include "machine/sysinfo.h"
#include "base/util.h"

static void set(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

#define OK(c, ...) do { (c)->ok = true; set((c)->detail, sizeof((c)->detail), __VA_ARGS__); } while (0)
#define NO(c, e, ...) do { (c)->ok = false; (c)->err = (e); set((c)->reason, sizeof((c)->reason), __VA_ARGS__); } while (0)
#define HINT(c, ...) set((c)->hint, sizeof((c)->hint), __VA_ARGS__)

static struct cap *use(struct cap *c, struct cap *local)
{
	c = c ? c : local;
	memset(c, 0, sizeof(*c));
	return c;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid)
{
	int fd = syscall(SYS_perf_event_open, attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * Opens attr on this task, disabled and for user space only, and closes it
 * again: whether the event can be had.  0 or -errno.
 */
static int probe_open(struct perf_event_attr *attr)
{
	int fd;

	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	fd = perf_open(attr, 0);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int caps__effective(uint64_t *eff)
{
	char *s = read_file("/proc/self/status", NULL), *p;
	int err = -ENOENT;

	if (!s)
		return -errno;
	p = strstr(s, "\nCapEff:");
	if (p) {
		*eff = strtoull(p + 8, NULL, 16);
		err = 0;
	}
	free(s);
	return err;
}

bool caps__has(int cap)
{
	uint64_t eff;

	return !caps__effective(&eff) && cap >= 0 && cap < 64 && (eff >> cap) & 1;
}

static void perf_hint(struct cap *c, int err, bool hw)
{
	int paranoid;

	if (err == EACCES || err == EPERM) {
		if (!sysinfo__perf_paranoid(&paranoid))
			HINT(c, "run as root or grant CAP_PERFMON, or set kernel.perf_event_paranoid "
			     "below %d", paranoid > 1 ? 2 : paranoid);
		else
			HINT(c, "run as root or grant CAP_PERFMON");
	} else if (hw && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV)) {
		HINT(c, "counting tiers below hardware still work: software events, "
		     "tracepoints, watchpoints, simulation (cachegrind)");
	} else if (err == EMFILE) {
		HINT(c, "raise the open-file limit: ulimit -n 4096");
	}
}

bool caps__event(const char *name, struct cap *cp)
{
	struct pmu_event ev[8];
	struct cap local, *c = use(cp, &local);
	char tried[200] = "";
	int n = pmu__candidates(name, ev, 8), first_err = 0, perm_err = 0;
	struct perf_event_attr first_attr = { 0 };

	if (n < 0) {
		NO(c, -n, "unknown event '%s'", name);
		return false;
	}
	for (int i = 0; i < n; i++) {
		struct perf_event_attr attr = ev[i].attr;
		int err;

		attr.size = sizeof(attr);
		err = probe_open(&attr);
		if (!err) {
			OK(c, "%s", ev[i].encoding);
			return true;
		}
		if (!first_err) {
			first_err = -err;
			first_attr = attr;
		}
		if (err == -EACCES || err == -EPERM)
			perm_err = -err;
		snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%s",
			 i ? ", " : "tried ", ev[i].encoding);
	}
	/* a permission problem says more than "not on this PMU" */
	if (perm_err)
		first_err = perm_err;
	c->ok = false;
	c->err = first_err;
	pmu__strerror_open(first_err, &first_attr, c->reason, sizeof(c->reason));
	set(c->detail, sizeof(c->detail), "%s", tried);
	perf_hint(c, first_err, ev[0].hardware);
	return false;
}

bool caps__hw_pmu(struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	const char *host = pmu__host_pmu_name();
	bool exposed = pmu__hw_exposed();

	if (caps__event("cycles", c)) {
		set(c->detail, sizeof(c->detail), "cycles opened as %.120s", c->detail);
		return true;
	}
	if (!exposed && (c->err == ENOENT || c->err == EOPNOTSUPP || c->err == ENODEV || !c->err)) {
		if (sysinfo__hypervisor() > 0)
			set(c->reason, sizeof(c->reason), "no hardware PMU: virtualized guest (the "
			    "hypervisor does not pass the PMU through)");
		else
			set(c->reason, sizeof(c->reason), "no hardware PMU: the kernel exposes no "
			    "cpu PMU in /sys/bus/event_source/devices");
		HINT(c, "on KVM/QEMU start the guest with '-cpu host' (vPMU enabled); software "
		     "tiers still work");
	}
	if (!host)
		set(c->detail, sizeof(c->detail), "libpfm4 has no model for this CPU");
	return false;
}

bool caps__precise(struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	static const char *const names[] = { "l1d_miss", "llc_miss", "loads" };
	bool amd = pmu__host_pmu_name() && !strncmp(pmu__host_pmu_name(), "amd64", 5);
	struct perf_event_attr first_attr = { 0 };
	int first_err = 0;

	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		struct pmu_event ev[4];
		int n = pmu__sampling_candidates(names[k], ev, 4);

		for (int i = 0; i < n; i++) {
			struct perf_event_attr attr = ev[i].attr;
			int err = probe_open(&attr);

			if (!err) {
				OK(c, "%s: %s", amd ? "ibs" : "pebs", ev[i].encoding);
				return true;
			}
			if (!first_err) {
				first_err = -err;
				first_attr = attr;
			}
		}
	}
	if (first_err) {
		c->err = first_err;
		pmu__strerror_open(first_err, &first_attr, c->reason, sizeof(c->reason));
		perf_hint(c, first_err, true);
		if (first_err == ENOENT || first_err == EOPNOTSUPP || first_err == ENODEV)
			HINT(c, "software data-address sampling (registers + decode) is used instead");
	} else if (!pmu__hw_exposed()) {
		NO(c, ENOENT, "%s", sysinfo__hypervisor() > 0 ? "no hardware PMU: virtualized guest"
							      : "no hardware PMU exposed by the kernel");
		HINT(c, "software data-address sampling (registers + decode) is used instead");
	} else if (amd) {
		NO(c, ENOENT, "no ibs_op PMU in /sys/bus/event_source/devices (IBS not supported "
		   "or not exposed)");
	} else {
		NO(c, EOPNOTSUPP, "no PEBS memory events known for this CPU (libpfm4 model %s)",
		   pmu__host_pmu_name() ? pmu__host_pmu_name() : "unknown");
	}
	return false;
}

static void bpf_hint(struct cap *c, int err)
{
	char buf[32];

	if (err == EPERM || err == EACCES) {
		if (!read_line("/proc/sys/kernel/unprivileged_bpf_disabled", buf, sizeof(buf)))
			HINT(c, "run as root or grant CAP_BPF and CAP_PERFMON "
			     "(kernel.unprivileged_bpf_disabled is %s)", buf);
		else
			HINT(c, "run as root or grant CAP_BPF and CAP_PERFMON");
	}
}

bool caps__bpf(struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	/* r0 = 0; exit */
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ma_probe", "GPL", insns,
			       ARRAY_SIZE(insns), NULL);

	if (fd < 0) {
		int err = errno;

		NO(c, err, "cannot load a BPF program: %s", strerror(err));
		bpf_hint(c, err);
		return false;
	}
	close(fd);
	OK(c, "socket filter loaded");
	return true;
}

bool caps__btf(struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	const char *path = "/sys/kernel/btf/vmlinux";
	struct btf *btf;

	if (access(path, R_OK)) {
		int err = errno;

		NO(c, err, "cannot read %s: %s", path, strerror(err));
		if (err == ENOENT)
			HINT(c, "the kernel needs CONFIG_DEBUG_INFO_BTF=y for CO-RE BPF programs");
		return false;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		int err = errno;

		NO(c, err, "cannot parse %s: %s", path, strerror(err));
		return false;
	}
	OK(c, "%s, %u types", path, btf__type_cnt(btf));
	btf__free(btf);
	return true;
}

/* The function the uprobe check probes; never called. */
__attribute__((noinline, used)) int caps__uprobe_target(int x);
__attribute__((noinline, used)) int caps__uprobe_target(int x)
{
	return x * 3 + 1;
}

/* File offset of ADDR in the mapping that holds it (from /proc/self/maps). */
static int file_offset(uintptr_t addr, uint64_t *off)
{
	struct procmaps *m = procmaps__capture(getpid(), false);
	const struct procmap *pm = procmaps__find(m, addr);
	int err = m ? 0 : -errno;

	if (pm)
		*off = addr - pm->start + pm->offset;
	else if (m)
		err = -ENOENT;
	procmaps__free(m);
	return err;
}

bool caps__uprobes(struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	struct perf_event_attr attr = { 0 };
	char exe[4096];
	uint64_t off = 0;
	ssize_t n;
	int type = pmu__sysfs_type("uprobe"), fd;

	if (type < 0) {
		NO(c, ENOENT, "no uprobe PMU in /sys/bus/event_source/devices");
		HINT(c, "the kernel needs CONFIG_UPROBES=y (malloc/free tracking uses uprobes)");
		return false;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0 || file_offset((uintptr_t)caps__uprobe_target, &off)) {
		NO(c, errno ? errno : ENOENT, "cannot locate this executable to probe it");
		return false;
	}
	exe[n] = 0;
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uint64_t)(uintptr_t)exe; /* uprobe_path */
	attr.config2 = off;			 /* probe_offset */
	attr.disabled = 1;
	fd = perf_open(&attr, 0);
	if (fd < 0) {
		NO(c, -fd, "cannot open a uprobe: %s", strerror(-fd));
		if (fd == -EACCES || fd == -EPERM)
			HINT(c, "run as root or grant CAP_PERFMON (uprobes need it)");
		return false;
	}
	close(fd);
	OK(c, "uprobe PMU type %d", type);
	return true;
}

const char *caps__tracefs(void)
{
	static char mnt[256];
	char line[512], dev[128], dir[256], type[64];
	FILE *f;

	if (mnt[0])
		return mnt;
	f = fopen("/proc/self/mounts", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%127s %255s %63s", dev, dir, type) != 3)
				continue;
			if (!strcmp(type, "tracefs")) {
				snprintf(mnt, sizeof(mnt), "%s", dir);
				break;
			}
			if (!strcmp(type, "debugfs") && !mnt[0])
				snprintf(mnt, sizeof(mnt), "%.240s/tracing", dir);
		}
		fclose(f);
	}
	if (!mnt[0] && !access("/sys/kernel/tracing/events", F_OK))
		snprintf(mnt, sizeof(mnt), "/sys/kernel/tracing");
	return mnt[0] ? mnt : NULL;
}

static bool tracefs_missing(struct cap *c)
{
	const char *root = caps__tracefs();
	char path[300];

	if (!root) {
		NO(c, ENOENT, "tracefs is not mounted");
		HINT(c, "mount -t tracefs nodev /sys/kernel/tracing");
		return true;
	}
	snprintf(path, sizeof(path), "%s/events", root);
	if (access(path, X_OK)) {
		int err = errno;

		NO(c, err, "cannot read tracefs at %s: %s", root, strerror(err));
		if (err == EACCES || err == EPERM)
			HINT(c, "run as root (tracefs is root-only)");
		return true;
	}
	return false;
}

bool caps__tracepoint(const char *sys, const char *name, struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	struct perf_event_attr attr = { 0 };
	char path[512], buf[32], first[256] = "";
	uint64_t id;
	int fd, err;

	if (tracefs_missing(c))
		return false;
	if (!name) {
		DIR *d;
		struct dirent *de;
		int nr = 0;

		snprintf(path, sizeof(path), "%s/events/%s", caps__tracefs(), sys);
		d = opendir(path);
		if (!d) {
			err = errno;
			NO(c, err, "no tracepoint group '%s' in this kernel (%s)", sys, strerror(err));
			return false;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' || !strcmp(de->d_name, "enable") ||
			    !strcmp(de->d_name, "filter"))
				continue;
			if (!nr++)
				snprintf(first, sizeof(first), "%s", de->d_name);
		}
		closedir(d);
		if (!nr) {
			NO(c, ENOENT, "tracepoint group '%s' has no events", sys);
			return false;
		}
		if (!caps__tracepoint(sys, first, c))
			return false;
		OK(c, "%d events", nr);
		return true;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", caps__tracefs(), sys, name);
	err = read_line(path, buf, sizeof(buf));
	if (err) {
		NO(c, -err, "%s", err == -ENOENT ? "tracepoint not in this kernel"
						 : "cannot read the tracepoint id in tracefs");
		if (err == -EACCES || err == -EPERM)
			HINT(c, "run as root (tracefs is root-only)");
		return false;
	}
	if (parse_u64(buf, &id)) {
		NO(c, EINVAL, "bad tracepoint id '%s'", buf);
		return false;
	}
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.disabled = 1;
	fd = perf_open(&attr, 0);
	if (fd < 0) {
		c->err = -fd;
		pmu__strerror_open(fd, &attr, c->reason, sizeof(c->reason));
		perf_hint(c, -fd, false);
		return false;
	}
	close(fd);
	OK(c, "id %llu", (unsigned long long)id);
	return true;
}

bool caps__watchpoint(struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	struct perf_event_attr attr = { 0 };
	volatile long var = 0;
	uint64_t count = 0;
	int fd;

	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (uint64_t)(uintptr_t)&var;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = perf_open(&attr, 0);
	if (fd < 0) {
		c->err = -fd;
		pmu__strerror_open(fd, &attr, c->reason, sizeof(c->reason));
		if (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV)
			set(c->reason, sizeof(c->reason), "no hardware breakpoint support (%s)",
			    strerror(-fd));
		perf_hint(c, -fd, false);
		return false;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 3; i++)
		var = var + 1;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	close(fd);
	if (count != 3) {
		NO(c, 0, "watchpoint opened but counted %llu of 3 writes",
		   (unsigned long long)count);
		return false;
	}
	OK(c, "counted 3 of 3 writes");
	return true;
}

bool caps__kprobes(struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	struct perf_event_attr attr = { 0 };
	const char *fn = "do_sys_openat2";
	int type = pmu__sysfs_type("kprobe"), fd;

	if (type < 0) {
		NO(c, ENOENT, "no kprobe PMU: kernel built without CONFIG_KPROBES");
		HINT(c, "not needed: memadvise uses tracepoints and uprobes");
		return false;
	}
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uint64_t)(uintptr_t)fn; /* kprobe_func */
	attr.disabled = 1;
	fd = perf_open(&attr, 0);
	if (fd < 0) {
		NO(c, -fd, "cannot open a kprobe on %s: %s", fn, strerror(-fd));
		HINT(c, "not needed: memadvise uses tracepoints and uprobes");
		return false;
	}
	close(fd);
	OK(c, "kprobe PMU type %d", type);
	return true;
}

bool caps__fentry(struct cap *cp)
{
	static const char *const fns[] = { "bpf_fentry_test1", "handle_mm_fault" };
	struct cap local, *c = use(cp, &local);
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_FENTRY);
	struct btf *btf = btf__load_vmlinux_btf();
	const char *fn = NULL;
	int id = -1, fd, link, err;

	if (!btf) {
		NO(c, errno, "no kernel BTF, which fentry programs need");
		return false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fns) && id < 0; i++) {
		id = btf__find_by_name_kind(btf, fns[i], BTF_KIND_FUNC);
		fn = fns[i];
	}
	btf__free(btf);
	if (id < 0) {
		NO(c, ENOENT, "no function to attach to in the kernel BTF");
		return false;
	}
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ma_fentry", "GPL", insns, ARRAY_SIZE(insns), &opts);
	if (fd < 0) {
		err = errno;
		NO(c, err, "cannot load an fentry program on %s: %s", fn, strerror(err));
		HINT(c, "not needed: memadvise uses tracepoints and uprobes (fentry needs BPF "
		     "trampolines, refused under kernel lockdown or without ftrace)");
		return false;
	}
	link = bpf_raw_tracepoint_open(NULL, fd);
	err = link < 0 ? errno : 0;
	close(fd);
	if (link < 0) {
		NO(c, err, "cannot attach an fentry program to %s: %s", fn, strerror(err));
		HINT(c, "not needed: memadvise uses tracepoints and uprobes");
		return false;
	}
	close(link);
	OK(c, "attached to %s", fn);
	return true;
}

bool caps__tool(const char *prog, struct cap *cp)
{
	struct cap local, *c = use(cp, &local);
	char cmd[256], line[160] = "";
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s --version 2>/dev/null", prog);
	p = popen(cmd, "r");
	if (!p) {
		NO(c, errno, "cannot run %s: %s", prog, strerror(errno));
		return false;
	}
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	line[strcspn(line, "\n")] = 0;
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) == 127 || !line[0]) {
		NO(c, ENOENT, "%s not found in PATH", prog);
		HINT(c, "apt-get install %s", prog);
		return false;
	}
	/* the last word: "valgrind-3.19.0" -> "3.19.0", "v1.24" -> "1.24", "gcc (...) 12.2.0" -> "12.2.0" */
	{
		char *v = strrchr(line, ' '), *dash;

		v = v ? v + 1 : line;
		dash = strrchr(v, '-');
		if (dash && dash[1] >= '0' && dash[1] <= '9')
			v = dash + 1;
		if (v[0] == 'v' && v[1] >= '0' && v[1] <= '9')
			v++;
		OK(c, "%s", v);
	}
	return true;
}
