/*
 * interrupts.c - scenarios in interrupt context: the timer tick (timer.c)
 * calls a hook that panics, or faults. The backtrace runs from the handler,
 * on the interrupt stack, across the trap frame into the interrupted code on
 * the task stack.
 */
#include <stdint.h>

#include "panic.h"
#include "scenarios.h"
#include "timer.h"

/* Nothing is mapped at 0 (vm.c): a load there is a load page fault. */
static volatile uintptr_t unmapped_address = 0;

SCENARIO_FN void tick_panics(void)
{
	panic("panic in the timer interrupt handler");
}

SCENARIO_FN void tick_faults(void)
{
	(void)*(volatile unsigned long *)unmapped_address;
	/* Keep the epilogue after the load, so that the frame pointer still
	 * describes this frame when it faults (as in faults.c). */
	__asm__ volatile("" ::: "memory");
}

/* The code the tick interrupts: it waits for interrupts, forever. */
SCENARIO_FN void wait_for_ticks(void)
{
	for (;;)
		__asm__ volatile("wfi");
}

SCENARIO_FN void interrupted_caller(void)
{
	wait_for_ticks();
}

void scenario_timer_panic(void)
{
	timer_tick_hook = tick_panics;
	interrupted_caller();
}

void scenario_timer_fault(void)
{
	timer_tick_hook = tick_faults;
	interrupted_caller();
}
