/*
 * entry.S - first instructions of each hart. OpenSBI enters _start in S-mode
 * on one hart with a0 = hart id and a1 = physical address of the device
 * tree; SBI HSM hart_start sends the others to secondary_start with a0 =
 * hart id. Paging is off and interrupts are masked in both.
 */
#include "layout.h"

/* sp = the top of hart a0's task stack (layout.h). Clobbers t0. */
.macro TASK_STACK_TOP
	li t0, HART_STACKS_SIZE
	mul t0, a0, t0
	la sp, __stacks_start
	add sp, sp, t0
	li t0, TASK_STACK_OFFSET + TASK_STACK_SIZE
	add sp, sp, t0
.endm

/* What every hart does first: a stack, no frame above it, a trap vector. */
.macro HART_SETUP
	/* A hart beyond HART_COUNT has no stacks. */
	li t0, HART_COUNT
	bgeu a0, t0, park
	/* Until hart_init() points sscratch at this hart's area, a trap
	 * powers off with a message (trap_entry.S). */
	csrw sscratch, zero
	TASK_STACK_TOP
	/* s0 = 0 marks the outermost frame for frame-pointer walks. */
	li s0, 0
	/* Traps go to trap_entry (direct mode: low bits 0, hence .balign 4). */
	la t0, trap_entry
	csrw stvec, t0
.endm

	.section .text.entry, "ax"
	.globl _start
	.type _start, @function
_start:
	/* Call-frame information for the DWARF unwinder (and GDB): ra is
	 * undefined here, so _start is the outermost frame. */
	.cfi_startproc
	.cfi_undefined ra
	/* OpenSBI 1.1 may send a second hart here: one that was slow to set up
	 * its scratch space overwrites the address hart_start() gave it with
	 * the boot address (seen in about 0.7% of multi-hart boots). Only the
	 * first hart to arrive boots; a later one is a started hart, and must
	 * not clear .bss under the running kernel. */
	li t0, 1
	la t1, boot_claimed
	amoswap.w.aqrl t0, t0, (t1)
	bnez t0, secondary_start
	HART_SETUP
	/* Zero .bss: the loader is not required to. */
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	sb zero, 0(t0)
	addi t0, t0, 1
	j 1b
2:
	call kmain		/* kmain(hartid, dtb) does not return */
park:
	wfi
	j park
	.cfi_endproc
	.size _start, . - _start

	.globl secondary_start
	.type secondary_start, @function
secondary_start:
	.cfi_startproc
	.cfi_undefined ra
	HART_SETUP
	call secondary_main	/* secondary_main(hartid) does not return */
	j park
	.cfi_endproc
	.size secondary_start, . - secondary_start

	/* Set by the first hart in _start; in .data, which .bss clearing
	 * leaves alone. */
	.section .data
	.balign 4
boot_claimed:
	.word 0

	/* The stacks and their guard pages; __stacks_start/__stacks_end bound
	 * them (kernel.ld). Page-aligned: a guard is a whole unmapped page. */
	.section .stacks, "aw", @nobits
	.balign PAGE_SIZE
	.globl hart_stacks
hart_stacks:
	.space HART_COUNT * HART_STACKS_SIZE
