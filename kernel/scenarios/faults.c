/*
 * faults.c - scenarios that trap: the backtrace must cross the trap frame
 * into the function that caused it. Each fault sits two calls deep.
 */
#include <stdint.h>

#include "scenarios.h"

/* Nothing is mapped at 0 (vm.c): a load there is a load page fault.
 * Read from a volatile so the compiler cannot see (and "optimize") the NULL. */
static volatile uintptr_t unmapped_address = 0;

SCENARIO_FN unsigned long read_unmapped(void)
{
	unsigned long value = *(volatile unsigned long *)unmapped_address;

	/*
	 * Keep the epilogue after the load. Without this barrier GCC -O2 may
	 * restore s0 before the load, so the fault would hit a frame that has
	 * already handed s0 back to its caller: no frame-pointer unwinder can
	 * see that (docs/design.md, "Limits"); the DWARF unwinder can.
	 */
	__asm__ volatile("" ::: "memory");
	return value;
}

SCENARIO_FN unsigned long load_fault_caller(void)
{
	return read_unmapped() + 1;
}

void scenario_load_fault(void)
{
	load_fault_caller();
}

SCENARIO_FN void execute_illegal(void)
{
	__asm__ volatile("unimp");
}

SCENARIO_FN int illegal_caller(void)
{
	execute_illegal();
	return 1;
}

void scenario_illegal(void)
{
	illegal_caller();
}

SCENARIO_FN void execute_ebreak(void)
{
	__asm__ volatile("ebreak");
}

SCENARIO_FN int ebreak_caller(void)
{
	execute_ebreak();
	return 2;
}

void scenario_ebreak(void)
{
	ebreak_caller();
}
