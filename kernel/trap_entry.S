/*
 * trap_entry.S - the trap vector. Saves every register into a trap frame
 * (layout.h) on the current stack and calls trap_handler(frame).
 *
 * Contract with the tracer (struct tracer_trap_layout): trap_handler is
 * called with sp pointing at the trap frame, so an unwinder that reaches a
 * return address inside [trap_entry, trap_entry_end) finds the interrupted
 * registers at that frame's sp.
 */
#include "layout.h"

#if __riscv_xlen == 64
#define STORE sd
#else
#define STORE sw
#endif

	.section .text
	.balign 4		/* stvec ignores the two low bits */
	.globl trap_entry
	.type trap_entry, @function
trap_entry:
	addi sp, sp, -TF_SIZE
	STORE x1, TF_REG(1)(sp)
	STORE x3, TF_REG(3)(sp)
	STORE x4, TF_REG(4)(sp)
	STORE x5, TF_REG(5)(sp)
	STORE x6, TF_REG(6)(sp)
	STORE x7, TF_REG(7)(sp)
	STORE x8, TF_REG(8)(sp)
	STORE x9, TF_REG(9)(sp)
	STORE x10, TF_REG(10)(sp)
	STORE x11, TF_REG(11)(sp)
	STORE x12, TF_REG(12)(sp)
	STORE x13, TF_REG(13)(sp)
	STORE x14, TF_REG(14)(sp)
	STORE x15, TF_REG(15)(sp)
	STORE x16, TF_REG(16)(sp)
	STORE x17, TF_REG(17)(sp)
	STORE x18, TF_REG(18)(sp)
	STORE x19, TF_REG(19)(sp)
	STORE x20, TF_REG(20)(sp)
	STORE x21, TF_REG(21)(sp)
	STORE x22, TF_REG(22)(sp)
	STORE x23, TF_REG(23)(sp)
	STORE x24, TF_REG(24)(sp)
	STORE x25, TF_REG(25)(sp)
	STORE x26, TF_REG(26)(sp)
	STORE x27, TF_REG(27)(sp)
	STORE x28, TF_REG(28)(sp)
	STORE x29, TF_REG(29)(sp)
	STORE x30, TF_REG(30)(sp)
	STORE x31, TF_REG(31)(sp)
	/* The interrupted sp is the one before our adjustment. */
	addi t0, sp, TF_SIZE
	STORE t0, TF_REG(2)(sp)
	csrr t0, sepc
	STORE t0, TF_SEPC(sp)
	csrr t0, sstatus
	STORE t0, TF_SSTATUS(sp)
	csrr t0, scause
	STORE t0, TF_SCAUSE(sp)
	csrr t0, stval
	STORE t0, TF_STVAL(sp)

	mv a0, sp
	/* Every trap is fatal in this kernel: trap_handler panics and never
	 * returns, so there is no register restore and no sret. */
	call trap_handler
	.globl trap_entry_end
trap_entry_end:
	.size trap_entry, . - trap_entry
