# The test tools (tests/tools/), included by the top Makefile: host programs
# that run the tracer's code on a linked image, for make test. They read the
# image through the tracer's host view (TRACER_HOST_VIEW, symgen/image_view.c), so
# they run under AddressSanitizer; they share symgen's ELF reader.
#
#   cfi_rows        the tracer's CFI rows, against readelf (tests/cfi_differential.py)
#   prologue_check  the prologue decoder against the image's CFI
#                   (tests/prologue_crosscheck.py)
#   table_check     the unwind table against the interpreter, row by row
#                   (tests/table_proof.py)
#   line_lookup     the tracer's line lookup on an image's table, against
#                   addr2line -i (tests/line_oracle.py)
#   line_rows       symgen's line table, to explain the oracle's differences
#                   (tests/line_oracle.py), and GDB's bt (tests/frame_lines.py)
#   inline_rows     symgen's inlined calls, to explain the oracle's differences
#                   (tests/line_oracle.py), and GDB's bt (tests/frame_lines.py)

TEST_TOOLS_CFLAGS := $(HOST_ASAN_VIEW_CFLAGS)
TEST_TOOLS_COMMON := symgen/image_view.c symgen/die.c symgen/dwarf_names.c symgen/dwarf_read.c \
	symgen/elf.c symgen/fde_index.c $(wildcard tracer/*.c)
TEST_TOOLS := $(HOST_BUILD)/cfi_rows $(HOST_BUILD)/prologue_check $(HOST_BUILD)/table_check \
	$(HOST_BUILD)/line_rows $(HOST_BUILD)/inline_rows $(HOST_BUILD)/line_lookup
# One object per source, shared by the tools and symgen-asan (the top
# Makefile's rule: one set of flags).
TEST_TOOLS_OBJ := $(HOST_ASAN_VIEW_OBJ)
TEST_TOOLS_COMMON_OBJS := $(patsubst %.c,$(TEST_TOOLS_OBJ)/%.o,$(TEST_TOOLS_COMMON))

$(HOST_BUILD)/cfi_rows: $(TEST_TOOLS_OBJ)/tests/tools/cfi_rows.o $(TEST_TOOLS_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(TEST_TOOLS_CFLAGS) $^ -o $@

$(HOST_BUILD)/prologue_check: $(TEST_TOOLS_OBJ)/tests/tools/prologue_check.o \
		$(TEST_TOOLS_OBJ)/symgen/functions.o $(TEST_TOOLS_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(TEST_TOOLS_CFLAGS) $^ -o $@

$(HOST_BUILD)/table_check: $(TEST_TOOLS_OBJ)/tests/tools/table_check.o \
		$(TEST_TOOLS_OBJ)/symgen/functions.o $(TEST_TOOLS_OBJ)/symgen/unwind_table.o \
		$(TEST_TOOLS_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(TEST_TOOLS_CFLAGS) $^ -o $@

# line_rows: symgen's line table (tests/line_oracle.py). The line reader inflates compressed debug sections with zlib.
$(HOST_BUILD)/line_rows: $(TEST_TOOLS_OBJ)/tests/tools/line_rows.o \
		$(TEST_TOOLS_OBJ)/symgen/dwarf_lines.o $(TEST_TOOLS_OBJ)/symgen/dwarf_section.o \
		$(TEST_TOOLS_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(TEST_TOOLS_CFLAGS) $^ -lz -o $@

# inline_rows: symgen's inlined calls (tests/line_oracle.py).
$(HOST_BUILD)/inline_rows: $(TEST_TOOLS_OBJ)/tests/tools/inline_rows.o \
		$(TEST_TOOLS_OBJ)/symgen/dwarf_inlines.o $(TEST_TOOLS_OBJ)/symgen/dwarf_lines.o \
		$(TEST_TOOLS_OBJ)/symgen/dwarf_section.o $(TEST_TOOLS_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(TEST_TOOLS_CFLAGS) $^ -lz -o $@

# line_lookup (issue 19): the tracer's line lookup over symgen's encoding,
# against the rows of symgen/dwarf_lines.c and the inlined calls of
# symgen/dwarf_inlines.c; its --answers for tests/line_oracle.py.
$(HOST_BUILD)/line_lookup: $(TEST_TOOLS_OBJ)/tests/tools/line_lookup.o \
		$(TEST_TOOLS_OBJ)/symgen/line_table.o $(TEST_TOOLS_OBJ)/symgen/dwarf_inlines.o \
		$(TEST_TOOLS_OBJ)/symgen/dwarf_lines.o \
		$(TEST_TOOLS_OBJ)/symgen/dwarf_section.o $(TEST_TOOLS_COMMON_OBJS)
	$(call TRACER_STEP,HOSTLD,$@)$(HOSTCC) $(TEST_TOOLS_CFLAGS) $^ -lz -o $@
