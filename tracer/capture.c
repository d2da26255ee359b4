/*
 * capture.c - raw capture: the pcs of a walk into an array, for hot paths
 * (allocation sites, lock checking, profiling). No symbolization, no
 * formatting, and no table validation on each call: tracer_prepare() does
 * it once, every block of every table and of .eh_frame. The walk is the iterator's
 * (walk.c), step for step, checks included; the frame-pointer and table unwinders (auto
 * too, whose first choice is the table) run their common frames in one tight loop
 * (frame_pointer_run, table_run), the others step as they always do.
 */
#include "walk.h"
#include "verify.h"

TRACER_COLD void tracer_prepare(struct tracer_prepared *caller_prepared,
				const struct tracer_config *config)
{
	struct prepared *prepared = prepared_of(caller_prepared);

	prepared->config = config;
	prepared->symtab_status =
	    TRACER_LINKS_SYMBOLS ? tracer_symtab_check(config) : TRACER_TABLE_ABSENT;
	/* The tables of an unwinder not linked are not read. */
	prepared->fde_index_status =
	    TRACER_LINKS_DWARF ? tracer_fde_index_check(config) : TRACER_TABLE_ABSENT;
	prepared->unwind_table_status =
	    TRACER_LINKS_TABLE ? tracer_unwind_table_check(config) : TRACER_TABLE_ABSENT;
	prepared->eh_frame_status =
	    TRACER_LINKS_DWARF ? tracer_eh_frame_check(config) : TRACER_TABLE_ABSENT;
}

size_t tracer_capture(const struct tracer_prepared *caller_prepared,
		      enum tracer_unwinder unwinder, const struct tracer_regs *regs,
		      uintptr_t *pcs, size_t max, enum tracer_stop *stop)
{
	const struct prepared *prepared =
	    prepared_of((struct tracer_prepared *)caller_prepared);
	struct walk walk;
	size_t count = 0;

	walk_begin(&walk, unwinder, prepared->config, regs, prepared->symtab_status,
		   prepared->fde_index_status, prepared->unwind_table_status,
		   prepared->eh_frame_status, true);
	while (walk.stop == TRACER_RUNNING) {
		if (count == max) {
			walk.stop = TRACER_STOP_DEPTH_LIMIT;
			break;
		}
		pcs[count++] = walk.next.pc;
#if TRACER_LINKS_FRAME_POINTER
		if (unwinder == TRACER_FRAME_POINTER)
			count += frame_pointer_run(&walk, pcs + count, max - count);
#endif
#if TRACER_LINKS_TABLE
		if (unwinder == TRACER_TABLE || unwinder == TRACER_AUTO)
			count += table_run(&walk, pcs + count, max - count);
#endif
		walk_advance(&walk);
	}
	if (stop)
		*stop = walk.stop;
	return count;
}
