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

TEST_TOOLS_CFLAGS := $(HOST_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
	$(HOST_VIEW_CFLAGS) -Isymgen -Itests/tools
TEST_TOOLS_COMMON := symgen/image_view.c symgen/die.c symgen/dwarf_names.c symgen/elf.c \
	symgen/fde_index.c $(wildcard tracer/*.c)
TEST_TOOLS_HEADERS := $(wildcard tests/tools/*.h symgen/*.h tracer/*.h)
TEST_TOOLS := $(HOST_BUILD)/cfi_rows $(HOST_BUILD)/prologue_check $(HOST_BUILD)/table_check

$(HOST_BUILD)/cfi_rows: tests/tools/cfi_rows.c $(TEST_TOOLS_COMMON) $(TEST_TOOLS_HEADERS) | deps
	@mkdir -p $(@D)
	$(HOSTCC) $(TEST_TOOLS_CFLAGS) tests/tools/cfi_rows.c $(TEST_TOOLS_COMMON) -o $@

$(HOST_BUILD)/prologue_check: tests/tools/prologue_check.c symgen/functions.c \
		$(TEST_TOOLS_COMMON) $(TEST_TOOLS_HEADERS) | deps
	@mkdir -p $(@D)
	$(HOSTCC) $(TEST_TOOLS_CFLAGS) tests/tools/prologue_check.c symgen/functions.c \
		$(TEST_TOOLS_COMMON) -o $@

$(HOST_BUILD)/table_check: tests/tools/table_check.c symgen/functions.c symgen/unwind_table.c \
		$(TEST_TOOLS_COMMON) $(TEST_TOOLS_HEADERS) | deps
	@mkdir -p $(@D)
	$(HOSTCC) $(TEST_TOOLS_CFLAGS) tests/tools/table_check.c symgen/functions.c \
		symgen/unwind_table.c $(TEST_TOOLS_COMMON) -o $@
