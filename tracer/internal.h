/*
 * internal.h - declarations shared by the tracer's own files; not for users.
 */
#ifndef TRACER_INTERNAL_H
#define TRACER_INTERNAL_H

#include "tracer.h"

/* The psABI keeps sp 16-byte aligned at calls, so every frame address is too. */
#define TRACER_STACK_ALIGN 16u

static inline bool range_contains(struct tracer_range range, uintptr_t addr)
{
	return addr >= range.start && addr < range.end;
}

/*
 * The one reader all unwinders use: reads the machine word at addr if it lies,
 * whole and aligned, inside the declared stack. Returns false instead of
 * faulting.
 */
bool memory_read_word(const struct tracer_config *config, uintptr_t addr,
		      uintptr_t *value);

/*
 * One unwinding step: from the frame in walk->next (already returned to the
 * caller), computes its caller into walk->next, or sets walk->stop.
 */
void frame_pointer_step(struct tracer_walk *walk);

#endif /* TRACER_INTERNAL_H */
