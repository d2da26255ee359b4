/*
 * hart.c - each hart's stacks and the area sscratch points to.
 */
#include "hart.h"

#include <stddef.h>

_Static_assert(offsetof(struct hart, spill_t1) == HART_SPILL_T1,
	       "layout.h: HART_SPILL_T1");
_Static_assert(offsetof(struct hart, spill_t2) == HART_SPILL_T2,
	       "layout.h: HART_SPILL_T2");
_Static_assert(offsetof(struct hart, trap_limits) == HART_TRAP_LIMITS,
	       "layout.h: HART_TRAP_LIMITS");
_Static_assert(sizeof(((struct hart *)0)->trap_limits[0]) == HART_LIMIT_SIZE,
	       "layout.h: HART_LIMIT_SIZE");
_Static_assert(sizeof(struct hart) == HART_SIZE, "layout.h: HART_SIZE");

extern char __stacks_start[]; /* kernel.ld: HART_COUNT blocks of HART_STACKS_SIZE */

struct hart harts[HART_COUNT];

uintptr_t hart_stacks_base(unsigned long id)
{
	return (uintptr_t)__stacks_start + id * HART_STACKS_SIZE;
}

static void set_stack(struct hart *hart, unsigned stack, uintptr_t start, uintptr_t size)
{
	hart->stacks[stack].start = start;
	hart->stacks[stack].end = start + size;
	hart->trap_limits[stack].lowest_sp = start + TF_SIZE + TRAP_HEADROOM;
	hart->trap_limits[stack].top = start + size;
}

void hart_init(unsigned long id)
{
	struct hart *hart = &harts[id];
	uintptr_t base = hart_stacks_base(id);

	hart->id = id;
	set_stack(hart, HART_TASK, base + TASK_STACK_OFFSET, TASK_STACK_SIZE);
	set_stack(hart, HART_INTERRUPT, base + INTERRUPT_STACK_OFFSET,
		  INTERRUPT_STACK_SIZE);
	set_stack(hart, HART_PANIC, base + PANIC_STACK_OFFSET, PANIC_STACK_SIZE);
	set_stack(hart, HART_RESERVE, base + RESERVE_STACK_OFFSET, RESERVE_STACK_SIZE);
	/* From here on, a trap finds this area (trap_entry.S), in sscratch,
	 * and checks it against tp: tp first. */
	__asm__ volatile("mv tp, %0" ::"r"(hart) : "memory");
	__asm__ volatile("csrw sscratch, %0" ::"r"(hart) : "memory");
}

bool hart_sp_on(const struct hart *hart, unsigned stack, uintptr_t sp)
{
	return sp > hart->stacks[stack].start && sp <= hart->stacks[stack].end;
}
