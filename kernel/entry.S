/*
 * entry.S - first instructions. OpenSBI enters here in S-mode with
 * a0 = hart id and a1 = physical address of the device tree.
 */
#include "layout.h"

	.section .text.entry, "ax"
	.globl _start
	.type _start, @function
_start:
	/* Call-frame information for the DWARF unwinder (and GDB): ra is
	 * undefined here, so _start is the outermost frame. */
	.cfi_startproc
	.cfi_undefined ra
	/* One boot stack per hart; a hart beyond HART_COUNT has none. */
	li t0, HART_COUNT
	bgeu a0, t0, park
	la sp, __stacks_start
	li t0, STACK_SIZE
	addi t1, a0, 1
	mul t1, t1, t0
	add sp, sp, t1

	/* s0 = 0 marks the outermost frame for frame-pointer walks. */
	li s0, 0

	/* Traps go to trap_entry (direct mode: low bits 0, hence .balign 4). */
	la t0, trap_entry
	csrw stvec, t0

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

	/* The boot stacks; __stacks_start/__stacks_end bound them (kernel.ld). */
	.section .stacks, "aw", @nobits
	.balign 16
	.globl boot_stacks
boot_stacks:
	.space HART_COUNT * STACK_SIZE
