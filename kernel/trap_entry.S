/*
 * trap_entry.S - the trap vector. Picks a stack, saves every register into
 * a trap frame (layout.h) on it, and calls trap_handler(frame); when that
 * returns (interrupts), restores the registers and returns to the
 * interrupted code.
 *
 * sscratch holds this hart's struct hart, and tp the same pointer: the entry
 * checks that they agree and that it is one of harts[] before it stores
 * anything through it (else it reports and powers off, below).
 *
 * Which stack (struct hart, found through sscratch):
 *   - an interrupt: the top of this hart's interrupt stack (interrupts never
 *     nest here: the handler runs with sstatus.SIE clear);
 *   - an exception with sp on a stack of this hart and room below it for the
 *     frame and TRAP_HEADROOM: that stack, below sp;
 *   - otherwise (a stack overflow into a guard page, a garbage sp): the top
 *     of this hart's panic stack, unless sp is on or just below that one
 *     already, or the reserve (where panic() prints when the panic stack is
 *     short): nothing is left to report with; say so and power off.
 * The trap frame keeps the interrupted sp, so a backtrace crosses from the
 * new stack back to the interrupted one.
 *
 * Contract with the tracer (struct tracer_trap_layout): trap_handler is
 * called with sp pointing at the trap frame, so an unwinder that reaches a
 * return address inside [trap_entry, trap_entry_end) finds the interrupted
 * registers at that frame's sp.
 */
#include "layout.h"

#define SBI_EXT_LEGACY_PUTCHAR 0x01
#define SBI_EXT_SRST	       0x53525354

/* Below a stack's lowest usable sp: its guard page and what a trap needs. */
#define STACK_GUARDED (GUARD_SIZE + TF_SIZE + TRAP_HEADROOM)

/* Continue at `stay` if sp lies on this hart's stack `index` with room. */
.macro ROOM_ON stack, stay
	LOAD t2, HART_TRAP_LIMITS + \stack * HART_LIMIT_SIZE(t0)
	bltu sp, t2, 1f
	LOAD t2, HART_TRAP_LIMITS + \stack * HART_LIMIT_SIZE + REG_SIZE(t0)
	bleu sp, t2, \stay
1:
.endm

/* Continue at `target` if the interrupted sp (t1) lies on this hart's stack
 * `stack` or in the guard page below it. Uses sp. */
.macro ON_OR_BELOW stack, target
	LOAD t2, HART_TRAP_LIMITS + \stack * HART_LIMIT_SIZE(t0)
	li sp, STACK_GUARDED
	sub t2, t2, sp
	bltu t1, t2, 1f
	LOAD t2, HART_TRAP_LIMITS + \stack * HART_LIMIT_SIZE + REG_SIZE(t0)
	bleu t1, t2, \target
1:
.endm

	.section .text
	.balign 4		/* stvec ignores the two low bits */
	.globl trap_entry
	.type trap_entry, @function
trap_entry:
	/* Every general register still holds its interrupted value. */
	csrrw t0, sscratch, t0	/* t0 = struct hart; sscratch = the interrupted t0 */
	beqz t0, trap_before_setup
	/*
	 * Before the first store through it, make sure t0 is this hart's
	 * struct hart: a stray csrw sscratch would otherwise send every trap
	 * into a store that traps again, forever, and print nothing. tp holds
	 * the same pointer (hart_init; the compiler never allocates tp), and
	 * it must be one of harts[], whose entries are HART_SIZE bytes and
	 * aligned to that. Once both agree, tp is free for the range check.
	 */
	bne t0, tp, trap_bad_sscratch
	andi tp, t0, HART_SIZE - 1
	bnez tp, trap_bad_hart
	la tp, harts
	sub tp, t0, tp
	srli tp, tp, HART_SIZE_SHIFT
	sltiu tp, tp, HART_COUNT
	beqz tp, trap_bad_hart
	mv tp, t0
	STORE t1, HART_SPILL_T1(t0)
	STORE t2, HART_SPILL_T2(t0)
	mv t1, sp		/* the interrupted sp, for the trap frame */
	csrr t2, scause
	bgez t2, exception	/* interrupts have the top bit set */
	LOAD sp, HART_TRAP_LIMITS + HART_INTERRUPT * HART_LIMIT_SIZE + REG_SIZE(t0)
	j save
exception:
	ROOM_ON HART_TASK, save
	ROOM_ON HART_INTERRUPT, save
	ROOM_ON HART_PANIC, save
	ROOM_ON HART_RESERVE, save
	/* No room: is it the panic stack, or the reserve, that ran out? */
	ON_OR_BELOW HART_PANIC, trap_without_stack
	ON_OR_BELOW HART_RESERVE, trap_without_stack
	LOAD sp, HART_TRAP_LIMITS + HART_PANIC * HART_LIMIT_SIZE + REG_SIZE(t0)
save:
	addi sp, sp, -TF_SIZE
	STORE t1, TF_REG(2)(sp)
	LOAD t1, HART_SPILL_T1(t0)
	STORE t1, TF_REG(6)(sp)
	LOAD t1, HART_SPILL_T2(t0)
	STORE t1, TF_REG(7)(sp)
	csrrw t1, sscratch, t0	/* sscratch = struct hart again */
	STORE t1, TF_REG(5)(sp)
	STORE x1, TF_REG(1)(sp)
	STORE x3, TF_REG(3)(sp)
	STORE x4, TF_REG(4)(sp)
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
	csrr t0, sepc
	STORE t0, TF_SEPC(sp)
	csrr t0, sstatus
	STORE t0, TF_SSTATUS(sp)
	csrr t0, scause
	STORE t0, TF_SCAUSE(sp)
	csrr t0, stval
	STORE t0, TF_STVAL(sp)

	mv a0, sp
	call trap_handler
	/* Only interrupts come back: faults panic. */
	LOAD t0, TF_SEPC(sp)
	csrw sepc, t0
	LOAD t0, TF_SSTATUS(sp)
	csrw sstatus, t0
	LOAD x1, TF_REG(1)(sp)
	LOAD x3, TF_REG(3)(sp)
	LOAD x4, TF_REG(4)(sp)
	LOAD x5, TF_REG(5)(sp)
	LOAD x6, TF_REG(6)(sp)
	LOAD x7, TF_REG(7)(sp)
	LOAD x8, TF_REG(8)(sp)
	LOAD x9, TF_REG(9)(sp)
	LOAD x10, TF_REG(10)(sp)
	LOAD x11, TF_REG(11)(sp)
	LOAD x12, TF_REG(12)(sp)
	LOAD x13, TF_REG(13)(sp)
	LOAD x14, TF_REG(14)(sp)
	LOAD x15, TF_REG(15)(sp)
	LOAD x16, TF_REG(16)(sp)
	LOAD x17, TF_REG(17)(sp)
	LOAD x18, TF_REG(18)(sp)
	LOAD x19, TF_REG(19)(sp)
	LOAD x20, TF_REG(20)(sp)
	LOAD x21, TF_REG(21)(sp)
	LOAD x22, TF_REG(22)(sp)
	LOAD x23, TF_REG(23)(sp)
	LOAD x24, TF_REG(24)(sp)
	LOAD x25, TF_REG(25)(sp)
	LOAD x26, TF_REG(26)(sp)
	LOAD x27, TF_REG(27)(sp)
	LOAD x28, TF_REG(28)(sp)
	LOAD x29, TF_REG(29)(sp)
	LOAD x30, TF_REG(30)(sp)
	LOAD x31, TF_REG(31)(sp)
	LOAD x2, TF_REG(2)(sp)
	sret
	.globl trap_entry_end
trap_entry_end:
	.size trap_entry, . - trap_entry

/*
 * The traps nothing can be reported from in C: before hart_init() set
 * sscratch, with sscratch not pointing at this hart's struct hart, and with
 * the panic stack itself exhausted. Print what the trap CSRs say through
 * the firmware, which needs no memory of ours (nothing is stored but the
 * test device's word; the only loads are of the messages and of poweroff.c's
 * two words), and power off.
 */
trap_before_setup:
	la t1, before_setup_message
	j say_and_power_off
trap_bad_hart:
	mv tp, t0		/* tp agreed with sscratch: give it back */
trap_bad_sscratch:
	la t1, bad_sscratch_message
	jal t3, fatal_put_string
	mv t2, t0		/* what sscratch held */
	jal t3, fatal_put_hex
	la t1, tp_message
	jal t3, fatal_put_string
	mv t2, tp
	jal t3, fatal_put_hex
	la t1, colon_message
	j say_and_power_off
trap_without_stack:
	la t1, without_stack_message
/* Prints the message at t1, then scause, sepc and stval, and powers off. */
say_and_power_off:
	jal t3, fatal_put_string
	la t1, scause_message
	jal t3, fatal_put_string
	csrr t2, scause
	jal t3, fatal_put_hex
	la t1, sepc_message
	jal t3, fatal_put_string
	csrr t2, sepc
	jal t3, fatal_put_hex
	la t1, stval_message
	jal t3, fatal_put_string
	csrr t2, stval
	jal t3, fatal_put_hex
	la t1, newline_message
	jal t3, fatal_put_string
	/* QEMU's test device, if poweroff_init() found one, ends QEMU with
	 * the status poweroff_after_panic() would give; else the firmware
	 * powers off (QEMU exits 0). */
	la t0, poweroff_device
	LOAD t0, 0(t0)
	beqz t0, 1f
	la t1, poweroff_panic_word
	lw t1, 0(t1)
	sw t1, 0(t0)
1:	li a7, SBI_EXT_SRST
	li a6, 0		/* system reset */
	li a0, 0		/* shutdown */
	li a1, 1		/* reason: system failure */
	ecall
2:	wfi
	j 2b

/*
 * For the paths above, which have no stack: subroutines that return
 * through t3, not ra. The firmware's ecall changes only a0 (and a1) here.
 */

/* Prints the NUL-terminated string at t1. */
fatal_put_string:
	lbu a0, 0(t1)
	beqz a0, 1f
	li a7, SBI_EXT_LEGACY_PUTCHAR
	ecall
	addi t1, t1, 1
	j fatal_put_string
1:	jr t3

/* Prints t2 as 0x and a digit for each of its 4 bits, most significant first. */
fatal_put_hex:
	li a7, SBI_EXT_LEGACY_PUTCHAR
	li a0, '0'
	ecall
	li a0, 'x'
	ecall
	li t4, REG_SIZE * 8 - 4	/* the shift of the top digit */
1:	srl a0, t2, t4
	andi a0, a0, 15
	addi a0, a0, '0'
	li t5, '9'
	bleu a0, t5, 2f
	addi a0, a0, 'a' - '9' - 1
2:	ecall
	addi t4, t4, -4
	bgez t4, 1b
	jr t3

	.section .rodata
before_setup_message:
	.asciz "\npanic: trap before this hart's trap state was set up:"
bad_sscratch_message:
	.asciz "\npanic: trap with a bad sscratch="
tp_message:
	.asciz " tp="
colon_message:
	.asciz ":"
without_stack_message:
	.asciz "\nfatal: trap with the panic stack exhausted: powering off:"
scause_message:
	.asciz " scause="
sepc_message:
	.asciz " sepc="
stval_message:
	.asciz " stval="
newline_message:
	.asciz "\n"
