# symgen/tracer_sources.mk - the tracer/*.c files a kernel compiles, and the
# defines they need, for the unwinders it links. tracer.mk includes it; a
# Makefile that compiles tracer/ itself (TRACER_BUILD_LIB=no) may include it
# first, to list the files (the demo's Makefile does). No rules.
#
#   TRACER_UNWINDERS   the unwinders linked, any of: frame-pointer table
#                      dwarf prologue (default: all four). auto uses those.
#   TRACER_LINES       yes (default): frames print their file:line and the
#                      calls inlined into them, from the image's debugging
#                      information (-g); no: lines.c left out, and symgen
#                      --no-lines (TRACER_SYMGEN_TABLE_FLAGS) embeds no table
#   TRACER_SYMBOLS     yes (default): frames print their function, from the
#                      symbol table symgen embeds (symtab.c); no: frames
#                      print raw, " [<pc>]", for the host to name from the
#                      image (addr2line): symtab.c (tracer_function_range())
#                      left out, and symgen --no-symbols embeds no table.
#                      Needs TRACER_LINES=no and no prologue (which reads it)
#   TRACER_FAULT_REPORT yes (default): the fault report after an exception's
#                      trap line, for a config that asks (fault.c); no: left
#                      out, and config.fault_report prints nothing
#   TRACER_CAPTURE     yes (default): the raw capture (tracer_prepare(),
#                      tracer_capture(): capture.c, and the unwinders' loops
#                      for it) and what trusts a table checked whole (the
#                      tracer_*_check() functions, tracer_symtab_lookup(),
#                      tracer_symtab_find()); no: left out
# Sets:
#   TRACER_SOURCES         the tracer/*.c files to compile
#   TRACER_UNWINDER_FLAGS  -DTRACER_LINKS_<UNWINDER>=0 for each one left out:
#                          tracer/*.c must be compiled with them, and files
#                          of yours that test TRACER_LINKS_* (tracer.h)
#   TRACER_NEEDS_CFI       yes when dwarf or table is linked: symgen then
#                          needs --cfi and the image .eh_frame

TRACER_DIR ?= $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))/../tracer
TRACER_UNWINDERS ?= frame-pointer table dwarf prologue

TRACER_ALL_UNWINDERS := frame-pointer table dwarf prologue
ifneq ($(filter-out $(TRACER_ALL_UNWINDERS),$(TRACER_UNWINDERS)),)
$(error TRACER_UNWINDERS: unknown '$(filter-out $(TRACER_ALL_UNWINDERS),$(TRACER_UNWINDERS))'; choose from $(TRACER_ALL_UNWINDERS))
endif
ifeq ($(strip $(TRACER_UNWINDERS)),)
$(error TRACER_UNWINDERS is empty; choose from $(TRACER_ALL_UNWINDERS))
endif

# Every walk: the iterator and auto, stacks and traps, the tables' checks,
# formatting (the symbols and lines are options below). The unwind table,
# when linked, is also the frame-size witness of frame-pointer and DWARF
# walks; without it they have none (as in a kernel built without CFI).
TRACER_CORE_FILES := entry_points.c format.c memory.c print.c stacks.c \
	tables.c verify.c walk.c
TRACER_FILES_frame-pointer := frame_pointer.c
TRACER_FILES_table := unwind_table.c
TRACER_FILES_dwarf := dwarf.c cfi_parse.c cfi_row.c cfi_expression.c
TRACER_FILES_prologue := prologue.c prologue_decode.c
TRACER_MACRO_frame-pointer := TRACER_LINKS_FRAME_POINTER
TRACER_MACRO_table := TRACER_LINKS_TABLE
TRACER_MACRO_dwarf := TRACER_LINKS_DWARF
TRACER_MACRO_prologue := TRACER_LINKS_PROLOGUE

# The options (above), each yes unless set, and nothing but yes or no.
TRACER_OPTIONS := TRACER_LINES TRACER_FAULT_REPORT TRACER_CAPTURE TRACER_SYMBOLS
$(foreach option,$(TRACER_OPTIONS),$(eval $(option) ?= yes)$(if \
	$(filter-out yes no,$($(option))),$(error $(option): '$($(option))'; choose yes or no)))
ifeq ($(TRACER_SYMBOLS)$(TRACER_LINES),noyes)
$(error TRACER_SYMBOLS=no needs TRACER_LINES=no: frames are named and placed on the host)
endif
ifeq ($(TRACER_SYMBOLS)$(filter prologue,$(TRACER_UNWINDERS)),noprologue)
$(error TRACER_SYMBOLS=no leaves out the symbol table, which the prologue unwinder reads: drop it from TRACER_UNWINDERS)
endif

TRACER_SOURCES := $(addprefix $(TRACER_DIR)/,$(sort $(TRACER_CORE_FILES) \
	$(foreach u,$(TRACER_ALL_UNWINDERS),$(if $(filter $(u),$(TRACER_UNWINDERS)),$(TRACER_FILES_$(u)))) \
	$(if $(filter yes,$(TRACER_LINES)),lines.c) $(if $(filter yes,$(TRACER_FAULT_REPORT)),fault.c) \
	$(if $(filter yes,$(TRACER_CAPTURE)),capture.c) $(if $(filter yes,$(TRACER_SYMBOLS)),symtab.c)))
TRACER_UNWINDER_FLAGS := $(foreach u,$(filter-out $(TRACER_UNWINDERS),$(TRACER_ALL_UNWINDERS)),\
	-D$(TRACER_MACRO_$(u))=0) $(if $(filter no,$(TRACER_LINES)),-DTRACER_LINKS_LINES=0) \
	$(if $(filter no,$(TRACER_FAULT_REPORT)),-DTRACER_LINKS_FAULT_REPORT=0) \
	$(if $(filter no,$(TRACER_CAPTURE)),-DTRACER_LINKS_CAPTURE=0) \
	$(if $(filter no,$(TRACER_SYMBOLS)),-DTRACER_LINKS_SYMBOLS=0)
TRACER_SYMGEN_TABLE_FLAGS := $(if $(filter no,$(TRACER_LINES)),--no-lines) \
	$(if $(filter no,$(TRACER_SYMBOLS)),--no-symbols)
TRACER_NEEDS_CFI := $(if $(filter dwarf table,$(TRACER_UNWINDERS)),yes,no)
