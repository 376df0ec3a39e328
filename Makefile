# SPDX-License-Identifier: GPL-2.0-only
# kprotperf: `make` builds the tool, the workloads and (with scdoc) the man
# pages, `make test` runs every test tier (the sanitizer build's and short
# fuzzing runs included: `make test-asan`, `make fuzz` alone), `make bench`
# the benchmarks, `make demo` the whole tour, `make install` (PREFIX,
# DESTDIR) installs it with its man pages.

OUTPUT ?= build
# the tool; tests use ./kprotperf, a private build (OUTPUT=/tmp/x BIN=/tmp/x/kprotperf) its own
BIN ?= kprotperf
CLANG ?= clang
BPFTOOL ?= bpftool
LLVM_STRIP ?= llvm-strip
ARCH ?= x86
CC ?= cc

CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	  -fno-omit-frame-pointer
# headers are named by folder ("report/report.h"), so #include lines show
# which capability depends on which
CPPFLAGS += -DKPROTPERF_VERSION=\"0.1.0\" -D_GNU_SOURCE -Iinclude -iquote src -I$(OUTPUT)
# each object's .d names the headers it included (-MP: a deleted one is no error)
DEPFLAGS = -MMD -MP
LDLIBS := -lbpf -ldw -lelf -lz -lsqlite3 -lcapstone -lm
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Iinclude -Wall

BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
LIB_SRCS := $(wildcard src/*/*.c)
LIB_OBJS := $(patsubst src/%.c,$(OUTPUT)/%.o,$(LIB_SRCS))
# what the C files include from $(OUTPUT): made before the first compile,
# then each object depends on those its .d names
GEN_HDRS := $(SKELS) $(OUTPUT)/syscall_names.h $(OUTPUT)/features_conf.h $(OUTPUT)/explore_conf.h \
	$(OUTPUT)/compat_image.h $(OUTPUT)/costs_tables.h
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
WORKLOADS := big-fork syscall-loop cpu-burn alloc-free model-window boot-clock core-ops count-loop \
	data-walk data-walk-b
# workloads keep frame pointers so user stacks unwind through them
WL_CFLAGS := -O2 -g -fno-omit-frame-pointer -Wall
# data-walk's two layouts of one struct (-DLAYOUT_B), for the model's data
# view against cachegrind (tests/vm/t_model_data.sh): static, not PIE, text
# at 256 MiB, so that the guest's and cachegrind's PCs are the file's and
# apart from busybox's; scalar loops, functions on lines of their own
DATA_WALK := data-walk data-walk-b
DW_CFLAGS := $(WL_CFLAGS) -fno-tree-vectorize -fno-tree-loop-distribute-patterns \
	-falign-functions=64 -fno-pie -no-pie -static -Wl,-Ttext-segment=0x10000000

# keep the BPF objects and skeletons between builds: the C files include them
.SECONDARY:
# a recipe that fails leaves no half-written target to pass for a built one
.DELETE_ON_ERROR:

# "  CC      src/x.c" per step; V=1 prints the commands themselves, make -s nothing
ifeq ($(V),1)
Q :=
msg :=
else
Q := @
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
msg :=
else
msg = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif
endif

# The oldest libbpf with every function the tool calls: bpf_program__set_autoattach
# is libbpf 1.0's (Debian 12 has 1.1).  Checked on the headers the build
# compiles against, before anything compiles, so that an older libbpf is one
# clear line rather than a screen of implicit declarations.
LIBBPF_MIN_MAJOR := 1
LIBBPF_MIN_MINOR := 0

.PHONY: all deps static plugin plugin-missing libbpf-check test test-build test-unit test-live test-vm test-asan asan fuzz fuzz-build bench demo \
	clean format man install uninstall
# kprotperf's QEMU TCG plugin, the machine model (plugin/kp_model.c), is
# built against the plugin header of the installed QEMU: Debian ships it
# only in its qemu source package, which scripts/install-deps.sh fetches
# into QEMU_SRC (its VERSION file says which).  Without that header, or with
# another QEMU's, everything else builds and `make plugin` says why not.
QEMU_SRC ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kprotperf/qemu-src
QEMU_PLUGIN_H := $(QEMU_SRC)/tree/include/qemu/qemu-plugin.h
QEMU_HDR_VERSION := $(shell cat '$(QEMU_SRC)/VERSION' 2>/dev/null)
QEMU_VERSION := $(shell dpkg-query -W -f='$${source:Version}' qemu-system-x86 2>/dev/null)
PLUGIN := $(OUTPUT)/plugin/kp_model.so
ifeq ($(wildcard $(QEMU_PLUGIN_H)),)
PLUGIN_WHY := no QEMU plugin header in $(QEMU_SRC): run scripts/install-deps.sh (it fetches Debian's qemu source package)
else ifeq ($(QEMU_VERSION),)
PLUGIN_WHY := qemu-system-x86 is not installed: run scripts/install-deps.sh
else ifneq ($(QEMU_HDR_VERSION),$(QEMU_VERSION))
PLUGIN_WHY := the QEMU plugin header in $(QEMU_SRC) is qemu $(QEMU_HDR_VERSION)'s, the installed qemu-system-x86 is built from qemu $(QEMU_VERSION): run scripts/install-deps.sh
endif
PLUGIN_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -fPIC -shared -fvisibility=hidden \
		 $(shell pkg-config --cflags glib-2.0 2>/dev/null) -I$(QEMU_SRC)/tree/include/qemu \
		 -DKP_QEMU_HEADER_VERSION='"$(QEMU_HDR_VERSION)"'

# the man pages too when scdoc is installed, so that ./kprotperf help COMMAND
# shows them before make install; without scdoc, make man says what is missing
SCDOC := $(shell command -v scdoc 2>/dev/null)
all: $(BIN) $(WORKLOADS) $(if $(PLUGIN_WHY),,$(PLUGIN)) $(if $(SCDOC),man)

plugin: $(if $(PLUGIN_WHY),plugin-missing,$(PLUGIN))

plugin-missing:
	$(error make plugin: $(PLUGIN_WHY))

PLUGIN_SRCS := $(wildcard plugin/*.c)
$(PLUGIN): $(PLUGIN_SRCS) $(wildcard plugin/*.h) $(QEMU_SRC)/VERSION
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(PLUGIN_CFLAGS) $(PLUGIN_SRCS) -o $@

# Statically linked tool and workloads for the vm test tier: the guest's
# initramfs has no /usr/lib. libdw/libelf's decompressors and sqlite's libm,
# libdl and libpthread must be named when linking statically.
STATIC_DIR := $(OUTPUT)/static
STATIC_LDLIBS := $(LDLIBS) -lbz2 -llzma -lzstd -lz -lm -lpthread -ldl
static: $(STATIC_DIR)/kprotperf $(addprefix $(STATIC_DIR)/,$(WORKLOADS))

deps:
	scripts/install-deps.sh

$(OUTPUT) $(OUTPUT)/tests:
	mkdir -p $@

# Runs whenever an object is to be made (a phony order-only prerequisite):
# one preprocessor run, silent when the libbpf is new enough.
libbpf-check:
	@v=$$(printf '#include <bpf/libbpf_version.h>\nLIBBPF_MAJOR_VERSION LIBBPF_MINOR_VERSION\n' | \
		$(CC) $(CPPFLAGS) -E -P - 2>/dev/null | tail -n 1); \
	set -- $$v; \
	case "$$1.$$2" in [0-9]*.[0-9]*) ;; *) \
		echo "make: no libbpf headers (bpf/libbpf_version.h): libbpf $(LIBBPF_MIN_MAJOR).$(LIBBPF_MIN_MINOR) or newer is needed: apt-get install libbpf-dev (or scripts/install-deps.sh)" >&2; \
		exit 1 ;; esac; \
	if [ "$$1" -lt $(LIBBPF_MIN_MAJOR) ] || \
	   { [ "$$1" -eq $(LIBBPF_MIN_MAJOR) ] && [ "$$2" -lt $(LIBBPF_MIN_MINOR) ]; }; then \
		echo "make: libbpf $$1.$$2 is older than the $(LIBBPF_MIN_MAJOR).$(LIBBPF_MIN_MINOR) kprotperf needs (bpf_program__set_autoattach): install libbpf-dev $(LIBBPF_MIN_MAJOR).$(LIBBPF_MIN_MINOR) or newer (Debian 12 has 1.1)" >&2; \
		exit 1; \
	fi

$(OUTPUT)/syscall_names.h: scripts/gen-syscall-names.sh | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-syscall-names.sh > $@.tmp && mv $@.tmp $@

# the empty tables an older recording lacks, as a database's bytes (src/data/compat.c),
# by a program of the build machine's compiler: no sanitizer or fuzzer flags
HOSTCC ?= cc
$(OUTPUT)/compat_image.h: scripts/gen-compat-image.c src/data/schema.c src/data/schema.h \
		src/data/blocks_tables.h src/data/boot_schema.h src/data/count_tables.h src/data/model.h \
		src/data/protect.h \
		| $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(HOSTCC) -D_GNU_SOURCE -Iinclude -iquote src -o $(OUTPUT)/gen-compat-image \
		scripts/gen-compat-image.c src/data/schema.c -lsqlite3
	$(Q)$(OUTPUT)/gen-compat-image > $@.tmp && mv $@.tmp $@

# share/NAME.conf built in as one C string, kp_NAME_conf, so kprotperf needs no file beside it
$(OUTPUT)/%_conf.h: share/%.conf | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated from $< by the Makefile */'; \
	  echo 'static const char kp_$*_conf[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $<; \
	  echo ';'; } > $@.tmp && mv $@.tmp $@

# share/costs/NAME.json built in (model/costs_pick.c): kp_costs_builtin, {file, text, n} each
COSTS_JSON := $(sort $(wildcard share/costs/*.json))
$(OUTPUT)/costs_tables.h: $(COSTS_JSON) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated from share/costs/NAME.json by the Makefile */'; \
	  for f in $(COSTS_JSON); do \
	    echo "static const char kp_costs_$$(basename $$f .json | tr -c 'a-z0-9\n' _)[] ="; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $$f; echo ';'; \
	  done; \
	  echo 'static const struct { const char *file, *text; size_t n; } kp_costs_builtin[] = {'; \
	  for f in $(COSTS_JSON); do n=$$(basename $$f .json | tr -c 'a-z0-9\n' _); \
	    echo "	{\"$$(basename $$f)\", kp_costs_$$n, sizeof(kp_costs_$$n) - 1},"; done; \
	  echo '};'; } > $@.tmp && mv $@.tmp $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c | $(OUTPUT) libbpf-check
	$(call msg,BPF,$<)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

# the skeleton embeds the object: without DWARF it is ~10x smaller and opens faster
$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN,$@)
	$(Q)$(LLVM_STRIP) -g -o $(OUTPUT)/$*.stripped.o $<
	$(Q)$(BPFTOOL) gen skeleton $(OUTPUT)/$*.stripped.o name $*_bpf > $@.tmp && mv $@.tmp $@

$(OUTPUT)/%.o: src/%.c | $(GEN_HDRS) libbpf-check
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c $< -o $@

$(OUTPUT)/libkp.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(OUTPUT)/main.o $(OUTPUT)/libkp.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

$(filter-out $(DATA_WALK),$(WORKLOADS)): %: tests/workloads/%.c tests/workloads/*.h include/model_marker.h include/core_ops.h
	$(call msg,CC,$<)
	$(Q)$(CC) $(WL_CFLAGS) $< -o $@

# the same command for both copies: the guest's is the host's file
$(DATA_WALK) $(addprefix $(STATIC_DIR)/,$(DATA_WALK)): tests/workloads/data-walk.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(DW_CFLAGS) $(if $(filter %-b,$@),-DLAYOUT_B) $< -o $@

$(STATIC_DIR):
	mkdir -p $@

# The linker warns that getpwuid, initgroups and dlopen need glibc's shared
# libraries at run time: expected, only the sudo path and sqlite's extension
# loading use them, and neither runs in the vm tier.
$(STATIC_DIR)/kprotperf: $(OUTPUT)/main.o $(OUTPUT)/libkp.a | $(STATIC_DIR)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -static $^ -o $@ $(LDFLAGS) $(STATIC_LDLIBS)

$(STATIC_DIR)/%: tests/workloads/%.c tests/workloads/*.h include/model_marker.h include/core_ops.h | $(STATIC_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(WL_CFLAGS) -static $< -o $@

# The unit suites' objects (with testutil.o, the helpers every suite links
# in) apart from the suites, which tests/run.sh finds as $(OUTPUT)/tests/test_*.
UNIT_OBJ := $(OUTPUT)/tests/obj
UNIT_UTIL := $(UNIT_OBJ)/testutil.o

$(UNIT_OBJ)/%.o: tests/unit/%.c | $(GEN_HDRS) libbpf-check
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(DEPFLAGS) $(CFLAGS) -c $< -o $@

$(OUTPUT)/tests/%: $(UNIT_OBJ)/%.o $(UNIT_UTIL) $(OUTPUT)/libkp.a | $(OUTPUT)/tests
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS) -lcmocka

# The man pages: each command's scdoc source written by kprotperf from the
# option tables --help prints (kprotperf help --scdoc), made roff by scdoc.
# Their date is the last commit's, so that a rebuild makes the same pages.
# kprotperf help finds them as build/man beside ./kprotperf (cmd_help.c).
MAN_DIR := $(OUTPUT)/man
MAN_DATE := $(shell git log -1 --format=%ct 2>/dev/null)
man: $(MAN_DIR)/kprotperf.1

$(MAN_DIR)/kprotperf.1: $(BIN) | $(OUTPUT)
	@command -v scdoc > /dev/null || { echo "make man: scdoc is missing: apt-get install scdoc (or scripts/install-deps.sh)" >&2; exit 1; }
	@mkdir -p $(MAN_DIR)
	$(call msg,MAN,$(MAN_DIR))
	$(Q)rm -f $(MAN_DIR)/*.1
	$(Q)set -e; for c in '' $$($(abspath $(BIN)) help --list-cmds); do \
		page=kprotperf$${c:+-$$c}; \
		$(abspath $(BIN)) help --scdoc $$c > $(MAN_DIR)/$$page.scd; \
		SOURCE_DATE_EPOCH=$(MAN_DATE) scdoc < $(MAN_DIR)/$$page.scd > $(MAN_DIR)/$$page.1.tmp; \
		mv $(MAN_DIR)/$$page.1.tmp $(MAN_DIR)/$$page.1; \
	done

PREFIX ?= /usr/local
install: all man
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BIN="$(BIN)" OUTPUT="$(OUTPUT)" \
		WORKLOADS="$(WORKLOADS)" scripts/install.sh install

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BIN="$(BIN)" OUTPUT="$(OUTPUT)" \
		WORKLOADS="$(WORKLOADS)" scripts/install.sh uninstall

# what every tier needs, built apart so that `make -j2 test-build` builds it
# on both CPUs (.ci/run): the tests themselves run one at a time
test-build: all static man $(UNIT_BINS) asan fuzz-build

# the vm tier last: it runs (kernel builds, downloads, guests) in the
# background while the other tiers test
test: test-build
	OUTPUT=$(OUTPUT) tests/run.sh unit live asan fuzz vm

test-unit: $(UNIT_BINS) $(BIN) man
	OUTPUT=$(OUTPUT) KP=$(abspath $(BIN)) tests/run.sh unit

test-live: all
	tests/run.sh live

test-vm: all static $(UNIT_BINS)
	OUTPUT=$(OUTPUT) tests/run.sh vm

# AddressSanitizer + UndefinedBehaviorSanitizer build of the tool and the unit
# suites under $(OUTPUT)/asan, made by a make of its own (CFLAGS through the
# environment, so that the warnings above are still added to them).
ASAN_OUT := $(OUTPUT)/asan
SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	      -fno-sanitize-recover=undefined
asan:
	CFLAGS="$(SAN_CFLAGS)" $(MAKE) CC=$(CLANG) OUTPUT=$(ASAN_OUT) BIN=$(ASAN_OUT)/kprotperf \
		$(ASAN_OUT)/kprotperf $(patsubst $(OUTPUT)/%,$(ASAN_OUT)/%,$(UNIT_BINS))

# the unit and live tiers against the sanitizer build; any report fails them
test-asan: asan $(WORKLOADS)
	OUTPUT=$(OUTPUT) tests/run.sh asan

# libFuzzer targets (tests/fuzz/fuzz_*.c) over a libkp.a of their own under
# $(OUTPUT)/fuzz; `make fuzz` runs each FUZZ_TIME seconds (make test: 10), or
# FUZZ_RUNS executions when given (`make fuzz FUZZ_RUNS=10000000`), in
# FUZZ_FORK processes at once when given (libFuzzer's -fork)
FUZZ_OUT := $(OUTPUT)/fuzz
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	       -fno-sanitize-recover=undefined
FUZZ_TIME ?= 3600
fuzz-build:
	CFLAGS="$(FUZZ_CFLAGS)" $(MAKE) CC=$(CLANG) OUTPUT=$(FUZZ_OUT) BIN=$(FUZZ_OUT)/kprotperf \
		$(patsubst tests/fuzz/%.c,$(FUZZ_OUT)/%,$(FUZZ_SRCS))

# the targets' objects apart from the targets: tests/run.sh runs each $(OUTPUT)/fuzz_*
$(OUTPUT)/tests/fuzz_%.o: tests/fuzz/fuzz_%.c | $(GEN_HDRS) libbpf-check
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) -Itests/fuzz $(DEPFLAGS) $(CFLAGS) -c $< -o $@

$(OUTPUT)/fuzz_%: $(OUTPUT)/tests/fuzz_%.o $(OUTPUT)/libkp.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer $^ -o $@ $(LDFLAGS) $(LDLIBS)

fuzz: fuzz-build
	OUTPUT=$(OUTPUT) FUZZ_TIME=$(FUZZ_TIME) FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_FORK=$(FUZZ_FORK) \
		tests/fuzz/run.sh

bench: all static
	tests/bench/run.sh
	tests/bench/vm_funcs.sh
	tests/bench/vm_blocks.sh
	tests/bench/symbolize.sh
	tests/bench/open.sh
	tests/bench/commands.sh
	tests/bench/stacks.sh
	tests/bench/vm_model.sh || [ $$? -eq 77 ]
	tests/bench/model_est.sh || [ $$? -eq 77 ]
	tests/bench/data_types.sh || [ $$? -eq 77 ]

demo:
	scripts/install-deps.sh --if-missing
	$(MAKE) all
	scripts/demo.sh

format:
	clang-format -i src/*.c src/*/*.[ch] include/*.h bpf/*.bpf.c tests/unit/*.c tests/workloads/*.c \
		plugin/*.[ch]

clean:
	rm -rf $(OUTPUT) $(BIN) $(WORKLOADS)

# the headers each object included, as its last compile found them
-include $(wildcard $(LIB_OBJS:.o=.d) $(OUTPUT)/main.d $(SKELS:.skel.h=.bpf.d) \
	$(UNIT_OBJ)/*.d $(OUTPUT)/tests/fuzz_*.d)
