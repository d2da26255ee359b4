/*
 * hart.h - what each hart keeps for itself: its stacks and the area the trap
 * entry reaches through sscratch.
 */
#ifndef KERNEL_HART_H
#define KERNEL_HART_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "tracer.h"

struct hart {
	/* Read by trap_entry.S: the offsets are in layout.h. */
	uintptr_t spill_t1;
	uintptr_t spill_t2;
	struct {
		uintptr_t lowest_sp; /* start + TF_SIZE + TRAP_HEADROOM */
		uintptr_t top;
	} trap_limits[HART_STACK_TYPES];
	/* The same stacks for the tracer ([start, top), indexed by HART_TASK,
	 * HART_INTERRUPT, HART_PANIC, HART_RESERVE), guard pages excluded. */
	struct tracer_range stacks[HART_STACK_TYPES];
	unsigned long id;
} __attribute__((aligned(HART_SIZE)));

extern struct hart harts[HART_COUNT];

/* The calling hart's area: sscratch holds it once hart_init() ran (and tp,
 * a second copy the trap entry checks sscratch against). Always
 * inline, even at -O0: panic() uses it with its caller's stack nearly full. */
static inline __attribute__((always_inline)) struct hart *this_hart(void)
{
	struct hart *hart;

	__asm__ volatile("csrr %0, sscratch" : "=r"(hart));
	return hart;
}

/* Sets up hart `id`'s area and points sscratch and tp at it.
 * id < HART_COUNT. */
void hart_init(unsigned long id);

/* The lowest address of hart `id`'s block of stacks and guard pages. */
uintptr_t hart_stacks_base(unsigned long id);

/* Whether sp lies on `stack` of the calling hart: a stack's top still
 * belongs to it (an empty stack). */
bool hart_sp_on(const struct hart *hart, unsigned stack, uintptr_t sp);

/* Calls fn(arg) on the stack whose top is `top` (16-byte aligned), then
 * comes back to the caller's stack (call_on_stack.S). */
void call_on_stack(void (*fn)(void *), void *arg, uintptr_t top);

#endif /* KERNEL_HART_H */
