# libFuzzer targets of the tracer (tests/fuzz/README.md), included by the
# top Makefile.
#
#   make fuzz                  each target FUZZ_SECONDS (default 60) on a copy
#                              of its seed corpus; fails if any target fails
#   make fuzz FUZZ_SECONDS=N
#
# fuzz_walk.c is linked once per unwinder, which the binary's name chooses, and
# built -m32 once more for fuzz_walk_auto_32 (run under qemu-i386); fuzz_cfi.c drives tracer/cfi.h,
# natively and as the host tools run it on rv32 images (fuzz_cfi_rv32);
# fuzz_lines.c the line table's lookups (tracer/lines.h).
# tests/fuzz/symgen.mk, when present, may add a target: it defines
# FUZZ_SYMGEN_TARGET (the binary's name under $(FUZZ_BUILD)), optionally
# FUZZ_SYMGEN_CORPUS (its directory under tests/fuzz/corpus/ and regressions/,
# if not the binary's name), and the rule that builds it.

FUZZ_BUILD := build/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
# Line tables only (-g1): a crash's report still names file:line, and the
# objects build in a third less time than with -g.
FUZZ_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -g1 -O1 \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Itracer -Itests/fuzz
FUZZ_TRACER_SRCS := $(wildcard tracer/*.c)
FUZZ_DEPS := tests/fuzz/fuzz_regions.c $(FUZZ_TRACER_SRCS) $(wildcard tracer/*.h tests/fuzz/*.h)

FUZZ_TARGETS := fuzz_walk_fp fuzz_walk_dwarf fuzz_walk_prologue fuzz_walk_auto fuzz_walk_table \
	fuzz_walk_auto_32=fuzz_walk_auto fuzz_cfi fuzz_cfi_rv32=fuzz_cfi fuzz_lines

-include tests/fuzz/symgen.mk
ifdef FUZZ_SYMGEN_TARGET
FUZZ_TARGETS += $(FUZZ_SYMGEN_TARGET)=$(or $(FUZZ_SYMGEN_CORPUS),$(FUZZ_SYMGEN_TARGET))
endif
# Entries are binary names, or binary=corpus when the corpus is named otherwise.
FUZZ_BINARIES := $(addprefix $(FUZZ_BUILD)/,$(foreach target,$(FUZZ_TARGETS),\
	$(firstword $(subst =, ,$(target)))))
# tests/fuzz_tests.py (make test, make fuzz) runs these targets.
export FUZZ_TARGETS

# The libFuzzer runtime is a package of its own (libclang-rt-14-dev);
# fuzz_walk_auto_32 wants qemu-i386 and the i386 libraries, which
# install-deps.sh installs with it.
.PHONY: fuzz-deps
fuzz-deps: deps
	@{ test -n "$$(find "$$($(FUZZ_CC) -print-resource-dir)" -name 'libclang_rt.fuzzer-*.a')" && \
	command -v qemu-i386 >/dev/null; } || scripts/install-deps.sh

# The tracer and the harness's regions compile once, shared by the targets;
# fuzz_walk.c once per unwinder.
FUZZ_OBJ := $(FUZZ_BUILD)/obj
FUZZ_COMMON_OBJS := $(patsubst %.c,$(FUZZ_OBJ)/%.o,tests/fuzz/fuzz_regions.c $(FUZZ_TRACER_SRCS))

$(FUZZ_OBJ)/%.o: %.c $(FUZZ_DEPS) | fuzz-deps
	@mkdir -p $(@D)
	$(call TRACER_STEP,HOSTCC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

# Kept: make would delete them as intermediate files and rebuild them next time.
.SECONDARY: $(FUZZ_OBJ)/tests/fuzz/fuzz_walk.o

# One object, linked under each unwinder's name (fuzz_walk.c reads it).
$(FUZZ_BUILD)/fuzz_walk_%: $(FUZZ_OBJ)/tests/fuzz/fuzz_walk.o $(FUZZ_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $^ -o $@

# fuzz_walk_auto_32: fuzz_walk.c, the harness's regions and the tracer built
# -m32, the tracer's 32-bit code (4-byte words, 32-bit address arithmetic,
# rv32's c.jal, the unwind table's maps in 32-bit halves); an i386 binary,
# which tests/fuzz_tests.py runs under qemu-i386 (a kernel may not exec it).
FUZZ_OBJ_32 := $(FUZZ_BUILD)/obj32
FUZZ_WALK_32_OBJS := $(patsubst %.c,$(FUZZ_OBJ_32)/%.o,tests/fuzz/fuzz_walk.c \
	tests/fuzz/fuzz_regions.c $(FUZZ_TRACER_SRCS))

$(FUZZ_OBJ_32)/%.o: %.c $(FUZZ_DEPS) | fuzz-deps
	@mkdir -p $(@D)
	$(call TRACER_STEP,HOSTCC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -m32 -c $< -o $@

$(FUZZ_BUILD)/fuzz_walk_auto_32: $(FUZZ_WALK_32_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) -m32 $^ -o $@

$(FUZZ_BUILD)/fuzz_cfi: $(FUZZ_OBJ)/tests/fuzz/fuzz_cfi.o $(FUZZ_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $^ -o $@

# fuzz_cfi_rv32: fuzz_cfi.c and the CFI code as symgen and the test tools
# build them (TRACER_HOST_VIEW), on an rv32 image's 4-byte words.
FUZZ_HOST_VIEW_OBJ := $(FUZZ_BUILD)/host-view-obj
FUZZ_CFI_RV32_OBJS := $(patsubst %.c,$(FUZZ_HOST_VIEW_OBJ)/%.o,tests/fuzz/fuzz_cfi.c \
	$(FUZZ_TRACER_SRCS))

$(FUZZ_HOST_VIEW_OBJ)/%.o: %.c $(FUZZ_DEPS) | fuzz-deps
	@mkdir -p $(@D)
	$(call TRACER_STEP,HOSTCC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -DTRACER_HOST_VIEW -c $< -o $@

$(FUZZ_BUILD)/fuzz_cfi_rv32: $(FUZZ_CFI_RV32_OBJS) $(FUZZ_OBJ)/tests/fuzz/fuzz_regions.o
	$(call TRACER_STEP,HOSTLD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $^ -o $@

$(FUZZ_BUILD)/fuzz_lines: $(FUZZ_OBJ)/tests/fuzz/fuzz_lines.o $(FUZZ_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(FUZZ_CC) $(FUZZ_CFLAGS) $^ -o $@

.PHONY: fuzz
fuzz: $(FUZZ_BINARIES)
	$(PYTHON) tests/fuzz_tests.py --seconds $(FUZZ_SECONDS)
