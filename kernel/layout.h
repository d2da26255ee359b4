/*
 * layout.h - constants shared by C and assembly: the harts, their stacks,
 * the per-hart area the trap entry finds through sscratch, and the trap
 * frame that trap_entry.S builds.
 */
#ifndef KERNEL_LAYOUT_H
#define KERNEL_LAYOUT_H

#define HART_COUNT 8 /* harts with stacks (hart ids 0-7); others park */

/* Register width: the same sources build for rv32 and rv64. */
#if __riscv_xlen == 64
#define REG_SIZE 8
#define STORE	 sd
#define LOAD	 ld
#else
#define REG_SIZE 4
#define STORE	 sw
#define LOAD	 lw
#endif

/*
 * Each hart has four stacks, each with an unmapped guard page below it
 * (vm.c), so that running off the bottom faults instead of overwriting what
 * lies below:
 *   task       kmain or the hart's idle loop, and the scenarios
 *   interrupt  the trap entry moves here for every interrupt
 *   panic      panic() moves here to print, and the trap entry moves here
 *              when sp is not on a stack of this hart with room for a trap
 *              (a stack overflow, a garbage sp)
 *   reserve    panic() moves here to print when it is called on the panic
 *              stack already with too little of it left (panic.c)
 * All sizes are multiples of the page size, and the stacks page-aligned.
 */
#define PAGE_SIZE	     0x1000
#define GUARD_SIZE	     PAGE_SIZE
#define TASK_STACK_SIZE	     0x4000
#define INTERRUPT_STACK_SIZE 0x2000
#define PANIC_STACK_SIZE     0x4000
#define RESERVE_STACK_SIZE   0x2000
#define HART_STACKS_SIZE                                                                 \
	(4 * GUARD_SIZE + TASK_STACK_SIZE + INTERRUPT_STACK_SIZE + PANIC_STACK_SIZE +    \
	 RESERVE_STACK_SIZE)
/* Where each stack starts inside its hart's block (a guard page below each). */
#define TASK_STACK_OFFSET      GUARD_SIZE
#define INTERRUPT_STACK_OFFSET (TASK_STACK_OFFSET + TASK_STACK_SIZE + GUARD_SIZE)
#define PANIC_STACK_OFFSET     (INTERRUPT_STACK_OFFSET + INTERRUPT_STACK_SIZE + GUARD_SIZE)
#define RESERVE_STACK_OFFSET   (PANIC_STACK_OFFSET + PANIC_STACK_SIZE + GUARD_SIZE)

/*
 * The trap entry keeps a trap on the current stack only if, below sp, the
 * trap frame and this much more fit: enough for trap_handler to reach
 * panic(), which moves to the panic stack. Less, and a fault in the handler
 * would hit the guard page and lose the first report.
 */
#define TRAP_HEADROOM 1024

/*
 * Trap frame: x0..x31 at index i (the x0 slot is unused), then the CSRs the
 * trap set. 36 words: a multiple of 16 bytes, so sp stays aligned.
 */
#define TF_REG(i)  ((i)*REG_SIZE)
#define TF_SEPC	   (32 * REG_SIZE)
#define TF_SSTATUS (33 * REG_SIZE)
#define TF_SCAUSE  (34 * REG_SIZE)
#define TF_STVAL   (35 * REG_SIZE)
#define TF_SIZE	   (36 * REG_SIZE)

/*
 * struct hart (hart.h), as the trap entry reads it: two words to spill t1
 * and t2 into, then, for the task, interrupt, panic and reserve stacks, the
 * lowest sp that leaves room for a trap (start + TF_SIZE + TRAP_HEADROOM)
 * and the top. sscratch holds the hart's struct hart at all times, except
 * between the trap entry's first instruction and its return of the value. Each
 * struct hart takes HART_SIZE bytes, aligned to that, so that the entry can
 * check a pointer to one without touching memory (HART_COUNT must fit a
 * 12-bit immediate).
 */
#define HART_SIZE_SHIFT	 8
#define HART_SIZE	 (1 << HART_SIZE_SHIFT)
#define HART_SPILL_T1	 (0 * REG_SIZE)
#define HART_SPILL_T2	 (1 * REG_SIZE)
#define HART_TRAP_LIMITS (2 * REG_SIZE) /* 4 x {lowest sp, top} */
#define HART_LIMIT_SIZE	 (2 * REG_SIZE)
#define HART_TASK	 0
#define HART_INTERRUPT	 1
#define HART_PANIC	 2
#define HART_RESERVE	 3
#define HART_STACK_TYPES 4

#endif /* KERNEL_LAYOUT_H */
