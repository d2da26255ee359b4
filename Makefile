# Backtrace demo kernel and tracer library for RISC-V.
#
#   make                 build $(BUILD)/kernel.elf
#   make run             boot it in QEMU (ARGS="scenario=load-fault tracer=prologue")
#   make run UNWINDERS=frame-pointer   a kernel that links only that unwinder
#   make run BANNER=1    show the firmware's (OpenSBI's) banner too
#   make debug           boot halted, waiting for gdb-multiarch
#   make gdb             attach GDB to it (in another terminal), bt crossing traps
#   make help            this text, the variables' values, the scenarios and tracers
#   make test            unit, symgen and end-to-end tests (GDB as the oracle), fuzz replay
#   make fuzz            libFuzzer targets, FUZZ_SECONDS each (tests/fuzz/fuzz.mk)
#   make bench           instructions per frame of each unwinder (docs/speed.md)
#   make clean
#
# Build variables: CROSS_COMPILE or CC, OPT (-O0, -O2, -Os), FP (1: frame
# pointers, 0: none), CFI (1: unwind tables, 0: none), EXTRA_SRCS (your own .c files), BUILD (output directory),
# XLEN (64, or 32: an rv32 kernel in build/rv32; QEMU_BIOS its firmware),
# LDSCRIPT (linker script), SMP (harts for make run/debug), UNWINDERS (those
# the kernel links: any of frame-pointer table dwarf prologue, default all),
# LINES (yes: file:line and inlined calls in the trace; no), CAPTURE (yes:
# the raw capture and the symbol lookups; no), SYMBOLS (yes: frames name
# their function; no: raw addresses), DEBUG_CFLAGS (-g),
# V (1: print the build's commands, not a short line a step), OBJ_CACHE (a
# directory where builds of equal compile flags share their objects).
#
# QEMU's exit status, which the kernel sets (kernel/poweroff.h), is make run's:
#   0  the demo did what it was asked (a scenario's panic or trap report)
#   2  ARGS asked for what the kernel has not (it names the word)
#   3  the kernel failed before the scenario, or the scenario did not panic
#   1  QEMU could not start
# On a failure make itself exits 2, after "make: *** [...: run] Error N" (QEMU's N).

# The tools, found on PATH unless named: the cross toolchain under the first
# of these prefixes whose gcc is there (Debian's and Homebrew's, Arch's,
# Ubuntu's and Fedora's Linux one), and a RISC-V GDB. Exported: the tests
# run the same binutils and GDB.
CROSS_PREFIXES := riscv64-unknown-elf- riscv64-elf- riscv64-linux-gnu-
on_path = $(firstword $(wildcard $(addsuffix /$(1),$(subst :, ,$(PATH)))))
ifeq ($(origin CROSS_COMPILE),undefined)
CROSS_COMPILE := $(or $(firstword $(foreach prefix,$(CROSS_PREFIXES),\
	$(if $(call on_path,$(prefix)gcc),$(prefix)))),riscv64-unknown-elf-)
endif
ifeq ($(origin GDB),undefined)
GDB := $(or $(firstword $(foreach gdb,gdb-multiarch $(addsuffix gdb,$(CROSS_COMPILE) $(CROSS_PREFIXES)),\
	$(if $(call on_path,$(gdb)),$(gdb)))),gdb-multiarch)
endif
export CROSS_COMPILE GDB
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
OPT ?= -O2
FP ?= 1
EXTRA_SRCS ?=
ARGS ?=
# XLEN=32: the kernel for rv32 (ilp32, Sv32), in its own BUILD, booted by
# qemu-system-riscv32 under a riscv32 OpenSBI: QEMU's own where it bundles
# one, else Debian's (scripts/fetch-opensbi-rv32.sh), or QEMU_BIOS=FILE.
XLEN ?= 64
ifeq ($(XLEN),32)
BUILD ?= build/rv32
QEMU ?= qemu-system-riscv32
ABI ?= ilp32
else ifeq ($(XLEN),64)
BUILD ?= build
QEMU ?= qemu-system-riscv64
else
$(error XLEN must be 32 or 64, not '$(XLEN)')
endif
LDSCRIPT ?= linker/kernel.ld
HOSTCC ?= gcc
GDB_PORT ?= 1234
GDB ?= gdb-multiarch
# Makes GDB's bt cross trap frames into the interrupted code, as the tracer does.
GDB_SCRIPT := scripts/gdb/trap_frames.py
PYTHON ?= /usr/bin/python3

HOST_BUILD := build/host
SYMGEN := $(HOST_BUILD)/symgen

# The unwinders linked (symgen/tracer_sources.mk: the files and defines).
UNWINDERS ?= frame-pointer table dwarf prologue
TRACER_UNWINDERS := $(UNWINDERS)
# LINES=no: frames without file:line or inlined calls (lines.c left out).
# DEBUG_CFLAGS: -g, the debugging information the lines come from.
DEBUG_CFLAGS ?= -g
LINES ?= yes
TRACER_LINES := $(LINES)
# CAPTURE=no: no raw capture, nor the whole-table checks and symbol lookups
# that come with it (scenario=call: needs them).
CAPTURE ?= yes
TRACER_CAPTURE := $(CAPTURE)
# SYMBOLS=no: frames print raw, for the host to symbolize (symtab.c left
# out, no scenario=call:; needs LINES=no and no prologue in UNWINDERS).
SYMBOLS ?= yes
TRACER_SYMBOLS := $(SYMBOLS)
TRACER_DIR := tracer
include symgen/tracer_sources.mk

# CFI=1: .eh_frame for every function, prologues and epilogues included
# (-fasynchronous-unwind-tables adds tables, not code), and its FDE index in
# the image, for the DWARF unwinder. CFI=0: no unwind tables and no index;
# the prologue and frame-pointer unwinders work without them. The default:
# 1 when the DWARF or table unwinder is linked.
CFI ?= $(if $(filter yes,$(TRACER_NEEDS_CFI)),1,0)
ifeq ($(CFI),1)
CFI_CFLAGS := -fasynchronous-unwind-tables
SYMGEN_CFI := --cfi
else ifeq ($(CFI),0)
CFI_CFLAGS := -fno-asynchronous-unwind-tables -fno-unwind-tables
SYMGEN_CFI :=
else
$(error CFI must be 0 or 1, not '$(CFI)')
endif

ifeq ($(FP),1)
FP_FLAGS := -fno-omit-frame-pointer
else ifeq ($(FP),0)
FP_FLAGS := -fomit-frame-pointer
else
$(error FP must be 0 or 1, not '$(FP)')
endif

# GCC 12 wants the CSR extension spelled out; clang 14 has it in rv64imac.
# clang links with lld, which (version 14) cannot relax: -mno-relax; on rv64
# without libgcc.
ifneq ($(findstring clang,$(CC)),)
ABI ?= lp64
ARCH ?= rv$(XLEN)imac
COMPILER_FLAGS := --target=riscv$(XLEN)-unknown-elf -mno-relax
LINKER_FLAGS := -fuse-ld=lld
# rv32: the kernel's printf divides 64-bit numbers (__udivdi3), from the
# gcc toolchain's rv32imac libgcc.
LIBGCC = $(if $(filter 32,$(XLEN)),$(shell $(CROSS_COMPILE)gcc -march=rv32imac -mabi=ilp32 \
	-print-libgcc-file-name))
else
# The ABI: lp64 where the toolchain has that libgcc (a multilib: Debian's,
# Arch's and Homebrew's bare-metal ones); else the toolchain's default, with
# the extensions it needs (riscv64-linux-gnu-: lp64d, rv64imafdc).
ifeq ($(origin ABI),undefined)
ABI := $(or $(shell [ "$$($(CC) -march=rv64imac -mabi=lp64 -print-multi-directory 2>/dev/null)" = . ] && \
	$(CC) -Q --help=target 2>/dev/null | sed -n 's/^ *-mabi=[[:space:]]*//p'),lp64)
endif
ARCH ?= $(if $(filter lp64d,$(ABI)),rv64imafdc_zicsr_zifencei,rv$(XLEN)imac_zicsr_zifencei)
COMPILER_FLAGS :=
LINKER_FLAGS := -Wl,--no-warn-rwx-segments
# The libgcc of our multilib: with _zicsr_zifencei in -march, -lgcc would
# find the default (hard-float) one, which does not link with lp64 objects.
# Recursive (=): evaluated at link time, after `deps` installed the compiler.
LIBGCC = $(shell $(CC) -march=$(firstword $(subst _, ,$(ARCH))) -mabi=$(ABI) \
	-print-libgcc-file-name)
endif

TARGET_CFLAGS := -std=c11 -Wall -Wextra -Werror $(DEBUG_CFLAGS) $(OPT) $(FP_FLAGS) $(COMPILER_FLAGS) \
	-march=$(ARCH) -mabi=$(ABI) -mcmodel=medany -ffreestanding -fno-builtin \
	-fno-stack-protector -fno-pic $(CFI_CFLAGS) $(TRACER_UNWINDER_FLAGS) -Itracer -Ikernel
TARGET_LDFLAGS := -nostdlib -static \
	-Wl,--build-id=none $(LINKER_FLAGS)
HOST_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O2 -g

KERNEL_SRCS := $(wildcard kernel/*.c kernel/*.S kernel/scenarios/*.c) $(TRACER_SOURCES)
# The objects of kernel/ and tracer/ depend on the compile flags alone:
# OBJ_CACHE=DIR keeps them in DIR/<the flags' checksum>/, for every build
# with those flags (make test's and make bench's kernels share them). By
# default they are the build's own, in $(BUILD)/obj with EXTRA_SRCS' objects.
OBJ_CACHE ?=
KERNEL_OBJ_DIR := $(if $(OBJ_CACHE),$(OBJ_CACHE)/$(firstword \
	$(shell printf '%s' '$(CC) $(TARGET_CFLAGS)' | cksum)),$(BUILD)/obj)
KERNEL_OBJS := $(patsubst %,$(KERNEL_OBJ_DIR)/%.o,$(KERNEL_SRCS)) \
	$(patsubst %,$(BUILD)/obj/%.o,$(EXTRA_SRCS))
LINKER_SCRIPTS := $(wildcard linker/*.ld) $(LDSCRIPT)

.PHONY: all run debug gdb test clean deps help
# Two makes building one BUILD at once (two make run, make run beside make
# test) would write the same files: the build takes $(BUILD)/.lock (flock,
# util-linux; without it, no lock), and the second waits, then finds the
# kernel built.
FLOCK := $(shell command -v flock 2>/dev/null)
# make -n takes no lock (a recursive line runs under -n too).
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
# Shared objects (OBJ_CACHE) are built first, under their directory's lock.
# ($(MAKE) written out: make passes its jobs to a line that names it.)
lock = $(if $(DRY_RUN),,$(if $(FLOCK),$(FLOCK) $(1)/.lock))
SUBMAKE_FLAGS = --no-print-directory DEPS_LEVEL=$(DEPS_LEVEL)
all:
	@mkdir -p $(BUILD) $(KERNEL_OBJ_DIR) && \
		$(if $(OBJ_CACHE),$(call lock,$(KERNEL_OBJ_DIR)) $(MAKE) $(SUBMAKE_FLAGS) kernel-objects &&) \
		$(call lock,$(BUILD)) $(MAKE) $(SUBMAKE_FLAGS) $(BUILD)/kernel.elf
.PHONY: kernel-objects
kernel-objects: $(filter $(KERNEL_OBJ_DIR)/%,$(KERNEL_OBJS))

# The tools the goals need (scripts/install-deps.sh): the compilers for a
# build; make run and make bench add QEMU and its firmware, make debug a
# RISC-V GDB, make test and make fuzz the rest. A build looks at PATH only, and runs the script (which
# installs what is missing on Debian and lists it elsewhere) when a compiler
# is not there.
DEPS_LEVEL := $(or $(if $(filter test test-locked test-prerequisites fuzz,$(MAKECMDGOALS)),test),\
	$(if $(filter debug,$(MAKECMDGOALS)),debug),$(if $(filter run bench,$(MAKECMDGOALS)),run),build)
deps:
	@{ [ $(DEPS_LEVEL) = build ] && command -v $(firstword $(CC)) >/dev/null && \
	command -v $(firstword $(HOSTCC)) >/dev/null; } || \
	CC='$(firstword $(CC))' HOSTCC='$(firstword $(HOSTCC))' QEMU='$(QEMU)' GDB='$(GDB)' \
	PYTHON='$(PYTHON)' QEMU_BIOS='$(QEMU_BIOS)' scripts/install-deps.sh $(DEPS_LEVEL)

# Recompile when the compile flags change (OPT, FP, CC, ...), relink when
# the link's do. Written under a name of the writer's own: makes building
# kernels that share objects compare the flags at once.
$(KERNEL_OBJ_DIR)/flags: FLAGS_TEXT = $(CC) $(TARGET_CFLAGS)
$(BUILD)/flags: FLAGS_TEXT = $(CC) $(TARGET_CFLAGS) $(TARGET_LDFLAGS) $(LDSCRIPT) $(EXTRA_SRCS)
WRITE_FLAGS = @mkdir -p $(@D) && echo '$(FLAGS_TEXT)' > $@.$$$$.new && \
	{ cmp -s $@.$$$$.new $@ && rm $@.$$$$.new || mv $@.$$$$.new $@; }
$(KERNEL_OBJ_DIR)/flags: deps
	$(WRITE_FLAGS)
$(BUILD)/flags: deps
	$(WRITE_FLAGS)

# TRACER_STEP (symgen/tracer.mk): the short line, `  CC      kernel/main.c`.
COMPILE = $(call TRACER_STEP,$(if $(filter %.S,$<),AS,CC),$<)$(CC) $(TARGET_CFLAGS) -MMD -MP \
	-c $< -o $@
$(KERNEL_OBJ_DIR)/%.o: % $(KERNEL_OBJ_DIR)/flags
	@mkdir -p $(@D)
	$(COMPILE)
ifneq ($(KERNEL_OBJ_DIR),$(BUILD)/obj)
$(BUILD)/obj/%.o: % $(BUILD)/flags
	@mkdir -p $(@D)
	$(COMPILE)
endif

-include $(KERNEL_OBJS:.o=.d)

# The two-link build of kernel.elf, and symgen (symgen/tracer.mk).
TRACER_ELF := $(BUILD)/kernel.elf
TRACER_OBJS := $(KERNEL_OBJS)
TRACER_BUILD_LIB := no
TRACER_LINK = $(CC) $(TARGET_CFLAGS) $(TARGET_LDFLAGS)
TRACER_LDSCRIPT := $(LDSCRIPT)
TRACER_CC = $(CC) $(TARGET_CFLAGS)
TRACER_LIBS = $(LIBGCC)
TRACER_LINK_DEPS := $(LINKER_SCRIPTS) $(BUILD)/flags
TRACER_SYMGEN_FLAGS := $(SYMGEN_CFI)
TRACER_SYMGEN := $(SYMGEN)
TRACER_HOSTCC := $(HOSTCC)
TRACER_HOST_CFLAGS := $(HOST_CFLAGS)
TRACER_LINKER_DIR := linker
include symgen/tracer.mk
$(SYMGEN): | deps
SYMGEN_LIB_SRCS := $(TRACER_SYMGEN_LIB_SRCS)
SYMGEN_SRCS := $(TRACER_SYMGEN_SRCS)
SYMGEN_HEADERS := $(TRACER_SYMGEN_HEADERS)
HOST_VIEW_CFLAGS := -DTRACER_HOST_VIEW -Itracer

# SMP: harts QEMU gives the machine (the kernel runs on up to 8).
SMP ?= 1
# The firmware: QEMU's bundled OpenSBI (-bios default); for rv32, where QEMU
# bundles none (QEMU 7.2), Debian's, fetched once (XLEN above).
RV32_OPENSBI := build/firmware/opensbi-riscv32-fw_dynamic.bin
RV32_QEMU_BIOS = $(if $(wildcard $(addsuffix /opensbi-riscv32-generic-fw_dynamic.bin,\
	$(shell qemu-system-riscv32 -L help 2>/dev/null))),default,$(RV32_OPENSBI))
ifeq ($(origin QEMU_BIOS),undefined)
ifeq ($(XLEN),32)
QEMU_BIOS := $(RV32_QEMU_BIOS)
else
QEMU_BIOS := default
endif
endif
QEMU_CMD = $(QEMU) -machine virt -smp $(SMP) -nographic -bios $(QEMU_BIOS) \
	-kernel $(BUILD)/kernel.elf
QEMU_FIRMWARE := $(filter $(RV32_OPENSBI),$(QEMU_BIOS))

# The console from the kernel's first line on, and QEMU's exit status, which
# the kernel sets (kernel/poweroff.h); BANNER=1 shows the firmware's banner.
BANNER ?= 0
RUN_QEMU = scripts/run-qemu.sh $(if $(filter 1,$(BANNER)),--banner )$(QEMU_CMD)

$(RV32_OPENSBI):
	scripts/fetch-opensbi-rv32.sh $@

run: all $(QEMU_FIRMWARE)
	$(RUN_QEMU) -append "$(ARGS)"

debug: all $(QEMU_FIRMWARE)
	@echo "QEMU is halted at the first instruction. In another terminal: make gdb, or"
	@echo "  $(GDB) -ex 'file $(BUILD)/kernel.elf' -x $(GDB_SCRIPT) -ex 'target remote :$(GDB_PORT)'"
	$(RUN_QEMU) -append "$(ARGS)" -S -gdb tcp::$(GDB_PORT)

# Attaches to make debug's QEMU; the kernel as it is (no rebuild under it).
gdb:
	$(GDB) -ex 'file $(BUILD)/kernel.elf' -x $(GDB_SCRIPT) -ex 'target remote :$(GDB_PORT)'

# Host programs of make test, with sanitizers. Each source compiles to its own
# object (make -j compiles them side by side); an object depends on every
# header its program may include. Line tables only (-g1): a sanitizer's
# report still names file:line, and the objects build in a sixth less time.
HOST_ASAN_CFLAGS := $(filter-out -g,$(HOST_CFLAGS)) -g1 -fsanitize=address,undefined \
	-fno-sanitize-recover=all

# symgen with sanitizers, for the corrupt-ELF tests, and the test tools
# (tests/tools/tools.mk), which share its files: one object of each source,
# in the host view (tracer/memory.h).
HOST_ASAN_VIEW_OBJ := $(HOST_BUILD)/asan-view-obj
HOST_ASAN_VIEW_CFLAGS := $(HOST_ASAN_CFLAGS) $(HOST_VIEW_CFLAGS) -Isymgen
$(HOST_ASAN_VIEW_OBJ)/%.o: %.c $(SYMGEN_HEADERS) | deps
	@mkdir -p $(@D)
	$(call TRACER_STEP,HOSTCC,$<)$(HOSTCC) $(HOST_ASAN_VIEW_CFLAGS) -c $< -o $@
SYMGEN_ASAN_OBJS := $(patsubst %.c,$(HOST_ASAN_VIEW_OBJ)/%.o,$(SYMGEN_SRCS))
$(HOST_BUILD)/symgen-asan: $(SYMGEN_ASAN_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(HOST_ASAN_CFLAGS) $^ $(TRACER_SYMGEN_LIBS) -o $@

# Host build of the tracer for the unit tests, with sanitizers: a read
# outside the synthetic memory the tests declare is an error, not luck.
UNIT_SRCS := $(wildcard tests/unit/*.c) $(wildcard tracer/*.c)
UNIT_OBJS := $(patsubst %.c,$(HOST_BUILD)/unit-obj/%.o,$(UNIT_SRCS))
$(HOST_BUILD)/unit-obj/%.o: %.c $(wildcard tests/unit/*.h tracer/*.h) | deps
	@mkdir -p $(@D)
	$(call TRACER_STEP,HOSTCC,$<)$(HOSTCC) $(HOST_ASAN_CFLAGS) -Itracer -Itests/unit -c $< -o $@
$(HOST_BUILD)/unit_tests: $(UNIT_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(HOST_ASAN_CFLAGS) $^ -o $@

include tests/tools/tools.mk
include tests/fuzz/fuzz.mk

# make test: the programs the tests run, built with a job per core and one
# more, then tests/run_tests.py (which runs as many commands at once).
TEST_JOBS ?= $(or $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)' 2>/dev/null),1)
TEST_PREREQUISITES := $(HOST_BUILD)/unit_tests $(SYMGEN) $(HOST_BUILD)/symgen-asan $(TEST_TOOLS) \
	$(FUZZ_BINARIES) $(RV32_OPENSBI)
.PHONY: test-prerequisites test-locked
test-prerequisites: $(TEST_PREREQUISITES)

# The closing line's time counts from make test's start (make expands a
# recipe whole before its first line runs).
# V=1: every check's line and the build commands; TESTS="NAME ...": those
# groups only (docs/testing.md).
# Two make test in one tree would build and boot in the same directories:
# the second waits for the first (build/.test.lock, flock, as for BUILD).
# make -n test (the docs' check of the commands they show) takes no lock: a
# recursive line runs under -n too, and make test's own tests run it.
test:
	@mkdir -p build && $(if $(DRY_RUN),,$(if $(FLOCK),$(FLOCK) build/.test.lock)) \
		$(MAKE) --no-print-directory test-locked
test-locked:
	@$(MAKE) --no-print-directory $(if $(filter-out 0,$(V)),,-s) -j$(TEST_JOBS) \
		test-prerequisites
	@MAKE_TEST_START=$(shell date +%s) TEST_VERBOSE=$(V) TESTS="$(TESTS)" \
		$(PYTHON) tests/run_tests.py

clean:
	rm -rf build

# make help: the comment at the top of this file, the variables' values (the
# defaults, or what the command line set), and the scenarios and tracers read
# from the kernel's own tables (scripts/kernel-choices.awk).
HELP_VARIABLES := ARGS BANNER BUILD OBJ_CACHE CROSS_COMPILE CC OPT FP CFI LINES CAPTURE SYMBOLS \
	UNWINDERS DEBUG_CFLAGS \
	EXTRA_SRCS LDSCRIPT SMP QEMU GDB_PORT
help:
	@sed -n '3,/^$$/s/^# \{0,1\}//p' Makefile
	@echo; echo "Variables (make run VARIABLE=value ...), as this make would use them:"
	@$(foreach v,$(HELP_VARIABLES),printf '  %-14s %s\n' '$(v)' '$($(v))';)
	@echo; awk -f scripts/kernel-choices.awk tracer/format.c kernel/main.c kernel/scenarios/scenarios.c


# make bench: instructions per frame of the tracer's unwinders against libgcc's
# _Unwind_Backtrace (tests/bench/), counted with rdinstret under -icount
# shift=0, on rv64 and rv32 kernels; then the tracer's .text per unwinder set (tests/bench/tracer_text.py),
# and the line table's bytes and lookup (tests/bench/line_bench.py). Only these kernels link libgcc's unwinder and an allocator. They
# name the rv64imac/lp64 (rv32imac/ilp32) libgcc: with _zicsr_zifencei in -march, -lgcc finds
# the default hard-float one, which does not link with lp64 objects.
BENCH_SRCS := tests/bench/unwind_bench.c tests/bench/libgcc_support.c
# The kernels share the objects of kernel/ and tracer/ with those of equal
# flags (OBJ_CACHE: make test's, or their own).
BENCH_OBJ_CACHE = OBJ_CACHE=$(or $(OBJ_CACHE),build/bench-objects)
BENCH_MAKE = $(MAKE) CC=$(CROSS_COMPILE)gcc OPT=-O2 EXTRA_SRCS="$(BENCH_SRCS)" $(BENCH_OBJ_CACHE) \
	LIBGCC=$$($(CROSS_COMPILE)gcc -march=rv64imac -mabi=$(ABI) -print-libgcc-file-name)
BENCH_MAKE32 = $(MAKE) XLEN=32 CC=$(CROSS_COMPILE)gcc OPT=-O2 EXTRA_SRCS="$(BENCH_SRCS)" \
	$(BENCH_OBJ_CACHE) \
	LIBGCC=$$($(CROSS_COMPILE)gcc -march=rv32imac -mabi=ilp32 -print-libgcc-file-name)
# The benchmark names its build in its output (gcc-O2-fp0): the level from OPT
# (private: not in the flags files the objects depend on).
$(BUILD)/obj/tests/bench/%.o: private TARGET_CFLAGS += -DBENCH_OPT='"$(OPT)"' \
	-DBENCH_VARIANT='"$(BENCH_VARIANT)"'
# A third kernel, FP=0, with ten times the functions (generated): the
# tables grow, the walked stack does not (build name gcc-O2-fp0-10x).
BENCH_MANY := build/bench-10x/many_functions.c
BENCH_MANY_COUNT := 3000
BENCH_QEMU = $(QEMU) -machine virt -nographic -bios default -icount shift=0 -kernel
BENCH_QEMU32 = qemu-system-riscv32 -machine virt -nographic -bios $(RV32_QEMU_BIOS) \
	-icount shift=0 -kernel
.PHONY: bench
bench: deps $(HOST_BUILD)/line_lookup $(RV32_OPENSBI)
	+$(BENCH_MAKE) BUILD=build/bench FP=0
	+$(BENCH_MAKE) BUILD=build/bench-fp1 FP=1
	+$(BENCH_MAKE32) BUILD=build/bench-rv32 FP=0
	+$(BENCH_MAKE32) BUILD=build/bench-rv32-fp1 FP=1
	@mkdir -p $(dir $(BENCH_MANY))
	@$(PYTHON) tests/bench/many_functions.py $(BENCH_MANY_COUNT) > $(BENCH_MANY).new
	@cmp -s $(BENCH_MANY).new $(BENCH_MANY) && rm $(BENCH_MANY).new || mv $(BENCH_MANY).new $(BENCH_MANY)
	+$(BENCH_MAKE) BUILD=build/bench-10x FP=0 EXTRA_SRCS="$(BENCH_SRCS) $(BENCH_MANY)" \
		BENCH_VARIANT=-10x
	$(BENCH_QEMU) build/bench/kernel.elf -append "scenario=call:bench_unwinders"
	$(BENCH_QEMU) build/bench-fp1/kernel.elf -append "scenario=call:bench_unwinders_fp"
	$(BENCH_QEMU) build/bench-10x/kernel.elf -append "scenario=call:bench_unwinders"
	$(BENCH_QEMU32) build/bench-rv32/kernel.elf -append "scenario=call:bench_unwinders"
	$(BENCH_QEMU32) build/bench-rv32-fp1/kernel.elf -append "scenario=call:bench_unwinders_fp"
	@$(PYTHON) tests/bench/tracer_text.py $(CURDIR)/build/bench-text $(CC) \
		$(filter-out $(OPT) $(TRACER_UNWINDER_FLAGS) -I%,$(TARGET_CFLAGS)) -I$(CURDIR)/tracer
	@$(PYTHON) tests/bench/line_bench.py --bench build/bench-lines gcc-O2-fp0=build/bench/kernel.elf \
		gcc-O2-fp0-10x=build/bench-10x/kernel.elf
