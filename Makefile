# SPDX-License-Identifier: GPL-2.0-only
# memadvise top-level build.  'make' builds .output/memadvise; 'make check'
# installs what is missing, builds, and runs every test (also under ASan).

OUTPUT ?= .output
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
prefix ?= /usr/local
PREFIX ?= $(prefix)
bindir ?= $(PREFIX)/bin
mandir ?= $(PREFIX)/share/man
libexecdir ?= $(PREFIX)/libexec
datadir ?= $(PREFIX)/share
DESTDIR ?=

VERSION := 0.1.0
ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/;s/ppc64le/powerpc/;s/mips.*/mips/;s/riscv64/riscv/')

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-9s %s\n' "$(1)" "$(2)";
endif

PKGS := libbpf libelf libdw json-c yaml-0.1 ncursesw zlib
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) capstone 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# capstone's and libpfm4's tables are arrays of pointers: in a PIE or a shared
# library the loader rewrites some 120000 of them at every start (800 page
# faults, 2-3 ms in a guest), before main, on every 'memadvise run'.  Taken
# from their static archives (libcapstone-dev, libpfm4-dev) into an executable
# that is not position-independent they are fixed at link time: memadvise
# starts in about 1 ms instead of 3, and adds that much less to each measured
# run.  (The unit tests stay a PIE: they symbolise themselves as one.)
STATIC_LIBS := -Wl,-Bstatic $(shell $(PKG_CONFIG) --libs capstone 2>/dev/null || echo -lcapstone) \
	-lpfm -Wl,-Bdynamic

WARN := -Wall -Wextra -Wmissing-field-initializers -Werror=undef -Wno-unused-parameter
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(CFLAGS) $(WARN) -Werror $(PKG_CFLAGS) \
	-I$(OUTPUT) -Isrc -I. -D_GNU_SOURCE -DMA_VERSION='"$(VERSION)"' \
	-DMA_DATADIR='"$(datadir)/memadvise"' -DMA_LIBEXECDIR='"$(libexecdir)/memadvise"' \
	$(EXTRA_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS) $(EXTRA_LDFLAGS)
LIBS := $(STATIC_LIBS) $(PKG_LIBS) -lpthread -lm

# The programs that need the kernel's BTF (typed tracepoints, CO-RE reads)
# are linked into one object, tracing.bpf.o: libbpf parses the kernel's BTF
# (5-6 MB, 5-15 ms of CPU) once per object it loads.
TRACING_PARTS := tick systime thp
BPF_SRCS := $(filter-out $(TRACING_PARTS:%=bpf/%.bpf.c),$(wildcard bpf/*.bpf.c))
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS)) $(OUTPUT)/tracing.skel.h
# Every .c under src/, one folder per module (see the README's "For
# developers"); objects mirror the tree under $(OUTPUT)/obj.
SRCS := $(sort $(shell find src -name '*.c'))
OBJS := $(patsubst src/%.c,$(OUTPUT)/obj/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(OUTPUT)/obj/cli/main.o,$(OBJS))

CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all examples check test test-asan deps demo bench eval eval-real install uninstall clean lint fuzz

all: $(OUTPUT)/memadvise examples

$(OUTPUT):
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)if [ -n "$(VMLINUX_H)" ]; then cp "$(VMLINUX_H)" $@; \
	else $(BPFTOOL) btf dump file $${VMLINUX_BTF:-/sys/kernel/btf/vmlinux} format c > $@; fi

$(OUTPUT)/%.tmp.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(OUTPUT) -Ibpf \
		-I/usr/include/$(shell uname -m)-linux-gnu $(CLANG_BPF_SYS_INCLUDES) \
		-c $< -o $@

$(OUTPUT)/%.bpf.o: $(OUTPUT)/%.tmp.bpf.o
	$(Q)$(BPFTOOL) gen object $@ $<

# tick.bpf.c first: its 'live' opens the .bss (see tests/bench/toggle.c)
$(OUTPUT)/tracing.bpf.o: $(TRACING_PARTS:%=$(OUTPUT)/%.tmp.bpf.o)
	$(call msg,BPF-LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# -MMD -MP: a header change rebuilds the objects that include it, and no more.
$(OUTPUT)/obj/%.o: src/%.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

-include $(OBJS:.o=.d)

$(OUTPUT)/memadvise: $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -no-pie $(ALL_LDFLAGS) $^ $(LIBS) -o $@

# Unit tests: every tests/unit/u-*.c, registry generated from test_* names.
UNIT_SRCS := $(wildcard tests/unit/u-*.c)
$(OUTPUT)/unit-decls.h: $(UNIT_SRCS) tests/unit/gen-decls.sh | $(OUTPUT)
	$(Q)sh tests/unit/gen-decls.sh $(UNIT_SRCS) > $@

$(OUTPUT)/unit-tests: $(UNIT_SRCS) tests/unit/harness.c tests/unit/harness.h $(OUTPUT)/unit-decls.h $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) tests/unit/harness.c $(UNIT_SRCS) \
		$(LIB_OBJS) $(LIBS) -o $@

examples:
	$(Q)$(MAKE) --no-print-directory -C examples

deps:
	$(Q)sh scripts/install-deps.sh
	$(Q)sh scripts/fetch-schemas.sh

test: $(OUTPUT)/memadvise $(OUTPUT)/unit-tests examples
	$(Q)MA_OUTPUT=$(OUTPUT) sh tests/run.sh

# The same tests, once, on a build with AddressSanitizer and UBSan.
test-asan:
	$(Q)$(MAKE) --no-print-directory OUTPUT=.output-asan \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" .output-asan/memadvise .output-asan/unit-tests
	$(Q)MA_OUTPUT=.output-asan MA_ASAN=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh tests/run.sh

check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory $(OUTPUT)/unit-tests
	$(Q)rc=0; MA_OUTPUT=$(OUTPUT) sh tests/run.sh || rc=1; \
		echo "--- again under AddressSanitizer + UndefinedBehaviorSanitizer ---"; \
		$(MAKE) --no-print-directory test-asan || rc=1; exit $$rc

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh scripts/demo.sh $(OUTPUT)

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh tests/bench/run.sh $(OUTPUT)

# Advice quality on the corpus (tests/corpus/README.md): every
# scenario's variants built and run once under 'memadvise run' with default
# options, one at a time, and scored against their labels.  Reports stay
# under $(OUTPUT)/corpus; EVAL_FILTER=PATTERN runs the scenarios whose name
# contains PATTERN.
EVAL_FILTER ?=
eval: $(OUTPUT)/memadvise
	$(Q)python3 tests/corpus/eval.py --memadvise $(OUTPUT)/memadvise --out $(OUTPUT)/corpus \
		$(if $(EVAL_FILTER),-k '$(EVAL_FILTER)') --json $(OUTPUT)/corpus/eval.json

# Real programs (docs/real-programs.md): redis-server under redis-benchmark,
# memcached under scripts/memcached-load.py, sqlite3 and zstd, as built by
# scripts/real-programs.sh, each run once under 'memadvise run' and scored
# against the reviewed verdicts of tests/real/verdicts.yaml; about a minute.
# A program that is not built is skipped.  Reports stay under $(OUTPUT)/real;
# EVAL_FILTER=NAME runs the programs whose name contains NAME; EVAL_STRICT=1
# also fails on a finding printed in full that is not reviewed actionable.
eval-real: $(OUTPUT)/memadvise
	$(Q)python3 tests/real/eval-real.py --memadvise $(OUTPUT)/memadvise --out $(OUTPUT)/real \
		$(if $(EVAL_FILTER),-k '$(EVAL_FILTER)') $(if $(EVAL_STRICT),--strict) --json $(OUTPUT)/real/eval-real.json

# Longer fuzzing of the rule parser and the condition evaluator; new
# interesting inputs are merged into tests/fuzz/corpus.  FUZZ_TIME=seconds.
# Then mutants of real -g binaries through 'layout' on the sanitizer build
# (tests/fuzz/README): FUZZ_LAYOUT_N mutants, FUZZ_LAYOUT_SEED.
FUZZ_TIME ?= 120
FUZZ_LAYOUT_N ?= 10000
FUZZ_LAYOUT_SEED ?= 1
fuzz:
	$(Q)sh tests/fuzz/build.sh $(CURDIR) $(OUTPUT)/fuzz
	$(Q)for t in rules expr; do \
		$(OUTPUT)/fuzz/fuzz-$$t -max_total_time=$(FUZZ_TIME) -max_len=4096 -timeout=10 \
			-dict=tests/fuzz/$$t.dict tests/fuzz/corpus/$$t || exit 1; done
	$(Q)$(MAKE) --no-print-directory OUTPUT=.output-asan \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		EXTRA_LDFLAGS="-fsanitize=address,undefined" .output-asan/memadvise
	$(Q)python3 tests/fuzz/layout-fuzz.py --memadvise .output-asan/memadvise \
		-n $(FUZZ_LAYOUT_N) --seed $(FUZZ_LAYOUT_SEED) --out $(OUTPUT)/fuzz/layout \
		--summary $(OUTPUT)/fuzz/layout/summary.json

install: $(OUTPUT)/memadvise examples
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man5 \
		$(DESTDIR)$(datadir)/memadvise/rules $(DESTDIR)$(libexecdir)/memadvise/examples
	install -m 0755 $(OUTPUT)/memadvise $(DESTDIR)$(bindir)/memadvise
	install -m 0644 man/*.1 $(DESTDIR)$(mandir)/man1/
	for f in man/*.5; do [ -e "$$f" ] && install -m 0644 $$f $(DESTDIR)$(mandir)/man5/ || :; done
	if [ -d rules ]; then cp -R rules/. $(DESTDIR)$(datadir)/memadvise/rules/; fi
	for f in examples/bin/*; do [ -x "$$f" ] && install -m 0755 $$f $(DESTDIR)$(libexecdir)/memadvise/examples/ || :; done

uninstall:
	rm -f $(DESTDIR)$(bindir)/memadvise $(DESTDIR)$(mandir)/man1/memadvise*.1 $(DESTDIR)$(mandir)/man5/memadvise*.5
	rm -rf $(DESTDIR)$(datadir)/memadvise $(DESTDIR)$(libexecdir)/memadvise

clean:
	rm -rf .output .output-asan
	$(Q)$(MAKE) --no-print-directory -C examples clean
