/*
 * kernel.h - the RTOS kernel's shared declarations (README.md): tasks, the
 * trap frame its vector saves, the machine's devices and CSRs.
 */
#ifndef KERNEL_H
#define KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* QEMU virt */
#define UART0	       0x10000000u
#define TEST_DEVICE    0x100000u
#define CLINT_MTIMECMP 0x2004000u
#define CLINT_MTIME    0x200bff8u
#define TICK_CYCLES    10000u /* 1 ms of the 10 MHz timebase */

#define MSTATUS_MIE	 (1u << 3)
#define MSTATUS_MPIE	 (1u << 7)
#define MSTATUS_MPP_M	 (3u << 11)
#define MIE_MTIE	 (1u << 7)
#define MCAUSE_INTERRUPT 0x80000000u
#define MCAUSE_MTIMER	 (MCAUSE_INTERRUPT | 7u)

/* The trap frame portasm.S saves on the interrupted stack: a word per slot,
 * slot n holds xn (no sp, gp, tp), slot 0 mepc, slot 2 mstatus. */
#define FRAME_WORDS   32
#define FRAME_MEPC    0
#define FRAME_RA      1
#define FRAME_MSTATUS 2
#define FRAME_A0      10

struct tcb {
	uint32_t *top; /* first word: the saved frame's address (portasm.S) */
	uint8_t *stack;
	size_t stack_size;
	void (*entry)(void *);
	const char *name;
};

#define MAX_TASKS 4
extern struct tcb *tasks[MAX_TASKS];
extern unsigned task_count;
extern struct tcb *current_tcb;
extern volatile unsigned ticks;
extern char isr_stack[], isr_stack_top[], boot_stack[], boot_stack_top[];

#define csr_read(name)                                                                   \
	({                                                                               \
		uint32_t value_;                                                         \
		__asm__ volatile("csrr %0, " #name : "=r"(value_));                      \
		value_;                                                                  \
	})
#define csr_set(name, bits)   __asm__ volatile("csrs " #name ", %0" ::"r"(bits))
#define csr_clear(name, bits) __asm__ volatile("csrc " #name ", %0" ::"r"(bits))

void *memset(void *dest, int c, size_t n);
void puts_uart(const char *s);
void put_hex(uint32_t value);
_Noreturn void panic(const char *message);
_Noreturn void poweroff(void);

struct tcb *task_create(const char *name, void (*entry)(void *), void *arg,
			size_t stack_size);
_Noreturn void scheduler_start(void);
_Noreturn void start_first_task(void);
void tick_hook(unsigned tick);

#endif /* KERNEL_H */
