/*
 * call_on_stack.S - void call_on_stack(void (*fn)(void *), void *arg,
 * uintptr_t top): calls fn(arg) on the stack whose top is `top` (16-byte
 * aligned), then comes back to the caller's stack. The panic path uses it to print from a stack
 * that has room, whatever is left on the one it was called on: so it takes
 * none of the old stack, keeping ra and the old sp on the new one.
 *
 * No call-frame information: no walk starts inside fn (the panic path walks
 * from the registers it captured before the switch).
 */
#include "layout.h"

	.section .text
	.globl call_on_stack
	.type call_on_stack, @function
call_on_stack:
	addi a2, a2, -16	/* keeps sp 16-byte aligned (psABI), rv32 too */
	STORE ra, REG_SIZE(a2)
	STORE sp, 0(a2)
	mv sp, a2
	mv t0, a0
	mv a0, a1
	jalr t0
	LOAD ra, REG_SIZE(sp)
	LOAD sp, 0(sp)
	ret
	.size call_on_stack, . - call_on_stack
