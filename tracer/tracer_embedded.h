/*
 * tracer_embedded.h - what the build embeds in the image for the tracer:
 * the tables symgen writes, and the symbols linker/tracer.ld and
 * linker/tracer_symtab.ld define around them. Include it in the file that
 * fills struct tracer_config, and start the config with
 *
 *     struct tracer_config config = {TRACER_EMBEDDED_TABLES, .text = ..., ...};
 *
 * TRACER_EMBEDDED_TABLES: a kernel that INCLUDEs tracer.ld (and runs symgen
 * --cfi): the symbol table, .eh_frame, the FDE index, the unwind table,
 * the line table (empty without -g).
 * TRACER_EMBEDDED_SYMTAB: one that INCLUDEs tracer_symtab.ld alone (no
 * .eh_frame): the symbol and line tables only, the rest left NULL; the prologue and
 * frame-pointer unwinders apply (docs/porting.md, step 3).
 */
#ifndef TRACER_EMBEDDED_H
#define TRACER_EMBEDDED_H

#include "tracer_tables.h"

extern const struct tracer_symtab tracer_symtab;
extern const struct tracer_fde_index tracer_fde_index;
extern const struct tracer_unwind_table tracer_unwind_table;
extern const struct tracer_lines tracer_lines;
extern char __eh_frame_start[], __eh_frame_end[];
extern char __tracer_symtab_start[], __tracer_symtab_end[];

#define TRACER_EMBEDDED_SYMTAB                                                           \
	.symtab = &tracer_symtab, .lines = &tracer_lines,                                \
	.tables = {(uintptr_t)__tracer_symtab_start, (uintptr_t)__tracer_symtab_end}
#define TRACER_EMBEDDED_TABLES                                                           \
	TRACER_EMBEDDED_SYMTAB,                                                          \
	    .eh_frame = {(uintptr_t)__eh_frame_start, (uintptr_t)__eh_frame_end},        \
	    .fde_index = &tracer_fde_index, .unwind_table = &tracer_unwind_table

#endif /* TRACER_EMBEDDED_H */
