# symgen/tracer.mk - the tracer's two-link build, for any kernel's Makefile.
#
# Builds symgen for the host, then links the kernel twice: first with empty
# tables, then with the tables symgen made from the first link; then runs
# symgen on the final image and compares (cmp): a function that moved between
# the links fails the build. Set the variables, then `include` this file:
#
#   TRACER_ELF         the kernel image to build, e.g. build/kernel.elf (one
#                      image per inclusion)
#   TRACER_OBJS        its object files: prerequisites, linked in this order
#   TRACER_LINK        the link command without the linker script (no -T: the
#                      fragment adds it), e.g. $(LD) -m elf64lriscv; default
#                        $(CC) $(CFLAGS) $(LDFLAGS)
#                      without the words of LDFLAGS already in CFLAGS: a
#                      Makefile that puts --specs=picolibc.specs or -march in
#                      both must not pass them twice (gcc fails on a repeated
#                      --specs: "attempt to rename spec 'link'")
#   TRACER_LDSCRIPT    the kernel's linker script, which INCLUDEs tracer.ld
#                      (a prerequisite). The link runs as
#                        $(TRACER_LINK) -L<linker/> -T $(TRACER_LDSCRIPT) OBJS TABLE.o LIBS -o OUT
#                      (ld reads the script where -T stands: -L must come first)
#   TRACER_CC          compiles the generated table, default $(CC) $(CFLAGS): run
#                      as $(TRACER_CC) -I<tracer/> -fno-lto -c TABLE.c -o TABLE.o (the
#                      table includes tracer.h)
# Optional:
#   TRACER_UNWINDERS   the unwinders the kernel links, any of frame-pointer
#                      table dwarf prologue (default: all four); auto uses
#                      those linked, and a walk asking for another ends with
#                      "unwinder not linked into this kernel". The files and
#                      defines: symgen/tracer_sources.mk, which sets
#                      TRACER_SOURCES and TRACER_UNWINDER_FLAGS (add the
#                      latter to the flags of your files that test
#                      TRACER_LINKS_*), and TRACER_NEEDS_CFI (yes with dwarf
#                      or table: pass --cfi, keep .eh_frame)
#   TRACER_LINES       yes (default) or no: file:line and inlined calls in
#                      the trace (symgen/tracer_sources.mk); without -g the
#                      table is empty and frames print as with no
#   TRACER_FAULT_REPORT yes (default) or no: the fault report's code
#                      (fault.c: registers and code after an exception's
#                      trap line, for a config with fault_report set)
#   TRACER_CAPTURE     yes (default) or no: the raw capture
#                      (tracer_prepare(), tracer_capture()) and what trusts
#                      a table checked whole (tracer_*_check(),
#                      tracer_symtab_lookup(), tracer_symtab_find())
#   TRACER_SYMBOLS     yes (default) or no: frames print raw, for the host
#                      to symbolize; no symbol table embedded (needs
#                      TRACER_LINES=no and no prologue)
#   TRACER_BUILD_LIB   yes (default): the fragment compiles TRACER_SOURCES with
#                      TRACER_CC and TRACER_UNWINDER_FLAGS into
#                      $(TRACER_WORK)/tracer/ and links them after
#                      TRACER_OBJS; no: the kernel builds them itself,
#                      inside TRACER_OBJS (the demo's Makefile does)
#   TRACER_LIBS        linked after the table (libgcc, ...); not prerequisites
#   TRACER_LINK_DEPS   other files the link reads (scripts the script
#                      INCLUDEs): prerequisites
#   TRACER_SYMGEN_FLAGS  symgen's options: --cfi when the kernel keeps
#                      .eh_frame (needed by the DWARF and table unwinders;
#                      a kernel linking neither need not keep it);
#                      --allow-end-before-tables=SYMBOL, --heap-start=SYMBOL
#                      (symgen/symgen.c)
#   TRACER_WORK        directory for the intermediate files (default: the
#                      image's): <image>.stage1.elf (the first link),
#                      tracer_tables.empty.c, tracer_tables.c (the table
#                      embedded), tracer_tables.check.c, and their objects
#                      (not named after any tracer/*.c: a kernel may build
#                      tracer/ into this directory too)
#   TRACER_SYMGEN      where symgen is built (default $(TRACER_WORK)/symgen)
#   TRACER_HOSTCC      host C compiler for symgen (default cc), and
#   TRACER_HOST_CFLAGS its flags (default -O2)
#   TRACER_DIR, TRACER_LINKER_DIR  tracer/ and linker/ (default: beside the
#                      directory of this file)
#
# The build prints a short line a step (`  CC      FILE`, kbuild's style);
# V=1 prints the commands instead, make -s neither. TRACER_STEP is that
# line, for your own rules: $(call TRACER_STEP,CC,$<)command ...
#
# LTO (-flto in the flags): the tables are compiled without it (-fno-lto),
# so that the optimizer cannot fold the first link's empty tables into the
# code and move it between the links. A function of yours reached only by
# name (through the symbol table) must be kept alive: docs/porting.md.
#
# Include it after your default target: its first rule (symgen's) would
# become the default goal. Files of yours that include tracer.h need
# $(TRACER_INCLUDE) (-I<tracer/>) in their flags.
#
# On failure no image is left behind: the final link writes <image>.tmp,
# renamed only once the check passed, and any older image is removed first.
#
# A hand-written build of tracer/ (no make): compile these files of tracer/
# with the kernel's flags, and define 0 each unwinder's macro left out:
#   every kernel      entry_points.c format.c memory.c print.c stacks.c
#                     tables.c verify.c walk.c
#   frame-pointer     frame_pointer.c    else -DTRACER_LINKS_FRAME_POINTER=0
#   table             unwind_table.c     else -DTRACER_LINKS_TABLE=0
#   dwarf             dwarf.c cfi_parse.c cfi_row.c cfi_expression.c
#                                        else -DTRACER_LINKS_DWARF=0
#   prologue          prologue.c prologue_decode.c
#                                        else -DTRACER_LINKS_PROLOGUE=0
#   lines             lines.c            else -DTRACER_LINKS_LINES=0 (and
#                                        symgen --no-lines)
#   symbols           symtab.c           else -DTRACER_LINKS_SYMBOLS=0 (and
#                                        symgen --no-symbols)
#   fault report      fault.c            else -DTRACER_LINKS_FAULT_REPORT=0
#   raw capture       capture.c          else -DTRACER_LINKS_CAPTURE=0
# The defines go to every tracer/*.c compiled (and to your files that test
# TRACER_LINKS_*). A file left out whose define is missing fails the link;
# without the table, frame-pointer and DWARF walks have no frame-size
# witness, as in a kernel without CFI.

TRACER_SYMGEN_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
TRACER_DIR ?= $(TRACER_SYMGEN_DIR)/../tracer
TRACER_LINKER_DIR ?= $(TRACER_SYMGEN_DIR)/../linker
TRACER_WORK ?= $(patsubst %/,%,$(dir $(TRACER_ELF)))
TRACER_SYMGEN ?= $(TRACER_WORK)/symgen
TRACER_LINK ?= $(CC) $(CFLAGS) $(filter-out $(CFLAGS),$(LDFLAGS))
TRACER_CC ?= $(CC) $(CFLAGS)
TRACER_HOSTCC ?= cc
TRACER_HOST_CFLAGS ?= -O2
TRACER_BUILD_LIB ?= yes
TRACER_INCLUDE := -I$(TRACER_DIR)
include $(TRACER_SYMGEN_DIR)/tracer_sources.mk

# A short line a step, as `  CC      kernel/main.c`, unless V=1 (make echoes
# the commands) or make -s (silent): prefix a recipe line with
# $(call TRACER_STEP,WHAT,FILE).
TRACER_QUIET := $(if $(filter 1,$(V)),,$(if $(findstring s,$(firstword -$(MAKEFLAGS))),,yes))
TRACER_STEP = $(if $(TRACER_QUIET),@printf '  %-7s %s\n' '$(1)' '$(2)';)
TRACER_Q := $(if $(TRACER_QUIET),@)

# The library, compiled with the kernel's compiler and flags.
ifeq ($(TRACER_BUILD_LIB),yes)
TRACER_LIB_OBJS := $(patsubst $(TRACER_DIR)/%.c,$(TRACER_WORK)/tracer/%.o,$(TRACER_SOURCES))
$(TRACER_WORK)/tracer/%.o: $(TRACER_DIR)/%.c $(wildcard $(TRACER_DIR)/*.h)
	@mkdir -p $(@D)
	$(call TRACER_STEP,CC,$<)$(TRACER_CC) $(TRACER_INCLUDE) $(TRACER_UNWINDER_FLAGS) -c $< -o $@
endif

# symgen reads .eh_frame with the tracer's own parser, and measures frame
# sizes with its prologue decoder, built for the host (TRACER_HOST_VIEW: see
# tracer/memory.h).
TRACER_SYMGEN_LIB_SRCS := $(addprefix $(TRACER_SYMGEN_DIR)/,symgen.c die.c dwarf_inlines.c dwarf_lines.c \
	dwarf_names.c dwarf_read.c dwarf_section.c elf.c fde_index.c functions.c image_end.c \
	image_view.c line_table.c unwind_table.c) \
	$(addprefix $(TRACER_DIR)/,cfi_parse.c cfi_row.c lines.c memory.c prologue_decode.c)
TRACER_SYMGEN_SRCS := $(TRACER_SYMGEN_DIR)/main.c $(TRACER_SYMGEN_LIB_SRCS)
# zlib inflates compressed debugging sections (-gz).
TRACER_SYMGEN_LIBS := -lz
TRACER_SYMGEN_HEADERS := $(wildcard $(TRACER_SYMGEN_DIR)/*.h $(TRACER_DIR)/*.h)
TRACER_SYMGEN_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -DTRACER_HOST_VIEW -I$(TRACER_DIR)

# Built under a name of its own, then renamed: kernels built side by side
# share symgen, and one may run it while another builds it.
$(TRACER_SYMGEN): $(TRACER_SYMGEN_SRCS) $(TRACER_SYMGEN_HEADERS)
	@mkdir -p $(@D)
	$(call TRACER_STEP,HOSTCC,$@)$(TRACER_HOSTCC) $(TRACER_HOST_CFLAGS) $(TRACER_SYMGEN_CFLAGS) $(TRACER_SYMGEN_SRCS) $(TRACER_SYMGEN_LIBS) \
		-o $@.$$$$.tmp && mv -f $@.$$$$.tmp $@

TRACER_STAGE1 := $(TRACER_WORK)/$(basename $(notdir $(TRACER_ELF))).stage1.elf
# Without LTO: the tables are data the code must not be optimized against.
TRACER_TABLE_CC = $(TRACER_CC) $(TRACER_INCLUDE) -fno-lto
TRACER_LINK_ALL = $(TRACER_LINK) -L$(TRACER_LINKER_DIR) -T $(TRACER_LDSCRIPT)

# The tables sit last in the image (linker/tracer.ld), so the second link
# moves no function; symgen on the final image must reproduce them exactly.
$(TRACER_ELF): $(TRACER_OBJS) $(TRACER_LIB_OBJS) $(TRACER_SYMGEN) $(TRACER_LDSCRIPT) $(TRACER_LINK_DEPS)
	@rm -f $@ $@.tmp
	@mkdir -p $(TRACER_WORK)
	$(call TRACER_STEP,SYMGEN,$(TRACER_WORK)/tracer_tables.empty.c)$(TRACER_SYMGEN) --empty $(TRACER_SYMGEN_FLAGS) \
		-o $(TRACER_WORK)/tracer_tables.empty.c
	$(call TRACER_STEP,CC,$(TRACER_WORK)/tracer_tables.empty.c)$(TRACER_TABLE_CC) \
		-c $(TRACER_WORK)/tracer_tables.empty.c -o $(TRACER_WORK)/tracer_tables.empty.o
	$(call TRACER_STEP,LD,$(TRACER_STAGE1))$(TRACER_LINK_ALL) $(TRACER_OBJS) $(TRACER_LIB_OBJS) \
		$(TRACER_WORK)/tracer_tables.empty.o $(TRACER_LIBS) -o $(TRACER_STAGE1)
	$(call TRACER_STEP,SYMGEN,$(TRACER_WORK)/tracer_tables.c)$(TRACER_SYMGEN) $(TRACER_SYMGEN_FLAGS) \
		$(TRACER_SYMGEN_TABLE_FLAGS) -o $(TRACER_WORK)/tracer_tables.c $(TRACER_STAGE1)
	$(call TRACER_STEP,CC,$(TRACER_WORK)/tracer_tables.c)$(TRACER_TABLE_CC) \
		-c $(TRACER_WORK)/tracer_tables.c -o $(TRACER_WORK)/tracer_tables.o
	$(call TRACER_STEP,LD,$@)$(TRACER_LINK_ALL) $(TRACER_OBJS) $(TRACER_LIB_OBJS) \
		$(TRACER_WORK)/tracer_tables.o $(TRACER_LIBS) -o $@.tmp || { rm -f $@.tmp; exit 1; }
	$(call TRACER_STEP,CHECK,$@)$(TRACER_SYMGEN) $(TRACER_SYMGEN_FLAGS) $(TRACER_SYMGEN_TABLE_FLAGS) \
		-o $(TRACER_WORK)/tracer_tables.check.c $@.tmp || { rm -f $@.tmp; exit 1; }
	@cmp -s $(TRACER_WORK)/tracer_tables.c $(TRACER_WORK)/tracer_tables.check.c || { \
		echo "error: function addresses in $@ differ from the embedded symbol table or FDE index:"; \
		diff $(TRACER_WORK)/tracer_tables.c $(TRACER_WORK)/tracer_tables.check.c | head -20; \
		rm -f $@.tmp; exit 1; }
	$(TRACER_Q)mv $@.tmp $@
