/*
 * layout.h - constants shared by C and assembly: the boot stacks and the trap
 * frame that trap_entry.S builds.
 */
#ifndef KERNEL_LAYOUT_H
#define KERNEL_LAYOUT_H

#define HART_COUNT 4	  /* harts with a boot stack; others park */
#define STACK_SIZE 0x4000 /* bytes of stack per hart */

/* Register width: the same sources build for rv32 and rv64. */
#if __riscv_xlen == 64
#define REG_SIZE 8
#else
#define REG_SIZE 4
#endif

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

#endif /* KERNEL_LAYOUT_H */
