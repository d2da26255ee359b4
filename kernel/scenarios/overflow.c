/*
 * overflow.c - scenarios where the stack itself is the problem.
 *
 *   stack-overflow  unbounded recursion, 512 bytes a level, runs off the
 *                   bottom of the task stack into its guard page
 *   bad-sp          sp set to 0x1000 (unmapped), then a store through it
 *   small-stack     panic() called with 256 bytes of stack left
 */
#include <stdint.h>

#include "hart.h"
#include "panic.h"
#include "scenarios.h"

#define LEVEL_BYTES   512
#define LEFT_AT_PANIC 256

/* Every path faults or panics by design: tell the compiler that is intended. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"

/* Each level keeps a buffer the next one writes into: no compiler can turn
 * this recursion into a loop, or drop the buffer. */
SCENARIO_FN unsigned overflow_recurse(volatile unsigned char *parent)
{
	volatile unsigned char buffer[LEVEL_BYTES];

	buffer[0] = parent[0] + 1;
	buffer[LEVEL_BYTES - 1] = parent[LEVEL_BYTES - 1];
	return overflow_recurse(buffer) + buffer[1];
}

void scenario_stack_overflow(void)
{
	volatile unsigned char first[LEVEL_BYTES];

	first[0] = 0;
	first[LEVEL_BYTES - 1] = 0;
	overflow_recurse(first);
}

/* A store through sp = 0x1000: nothing is mapped there. sw, not sd: the
 * same code builds for rv32. */
SCENARIO_FN void smash_stack_pointer(void)
{
	__asm__ volatile("li sp, 0x1000\n\t"
			 "sw zero, -4(sp)" ::
			     : "memory");
}

void scenario_bad_sp(void)
{
	smash_stack_pointer();
}

static uintptr_t stack_left(void)
{
	uintptr_t sp;

	__asm__ volatile("mv %0, sp" : "=r"(sp));
	return sp - this_hart()->stacks[HART_TASK].start;
}

/* Takes all but LEFT_AT_PANIC bytes of the task stack (a variable-length
 * array: sp stays 16-byte aligned), then panics. panic()'s own frame, all
 * it takes of this stack before it moves to the panic stack, is 224 bytes
 * (GCC -O2), 240 (clang -O2) or 272 (GCC -O0; there stack_left() is a call
 * whose own frame lowers sp: 288 bytes remain at the call to panic()). */
SCENARIO_FN void panic_with_little_stack(void)
{
	volatile char padding[(stack_left() - LEFT_AT_PANIC) & ~(uintptr_t)15];

	/* The array must exist: its address goes where the compiler cannot see. */
	__asm__ volatile("" ::"r"(padding) : "memory");
	panic("%lu bytes of stack left", (unsigned long)stack_left());
}

SCENARIO_FN void small_stack_caller(void)
{
	panic_with_little_stack();
}

void scenario_small_stack(void)
{
	small_stack_caller();
}
