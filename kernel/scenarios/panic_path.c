/*
 * panic_path.c - scenarios that attack the panic path itself.
 *
 *   bad-sscratch       sscratch set to 0x1000, then a load fault: the trap
 *                      entry must not trust it (trap_entry.S)
 *   bad-sscratch-tick  the same, then the next timer interrupt
 *   bad-sscratch-tp    sscratch and tp both 0x1000, then a load fault: they
 *                      agree, but point at no struct hart
 *   misaligned-sscratch  sscratch and tp both harts + 8: inside harts[],
 *                      but at no struct hart
 *   panic-mid-line     a tick panics while its hart is in the middle of a
 *                      kprintf line; the other harts print with interrupts
 *                      masked meanwhile (-smp 2 or more)
 *   panic-slow-char    the boot hart panics while another hart is handing a
 *                      character to the firmware, slowly (300 ms: longer
 *                      than the console's wait, as a hart the host does
 *                      not run); that character must go out first (-smp 2)
 *   panic-stack-1500   panic() entered on the panic stack with 1,500 bytes
 *                      of it left: too few for any unwinder, so the report
 *                      moves to the reserve stack (panic.c)
 *   panic-stack-2000   the same with 2,000 bytes
 *   panic-stack-fault  the same with 1,500 bytes and a message that faults:
 *                      a fault while printing on the reserve stack
 *   reserve-stack-1500 panic() entered on the reserve stack with 1,500 bytes
 *                      of it left: nowhere else to go, too few for any
 *                      unwinder
 *   reserve-stack-2700 the same with 2,700 bytes: enough for the
 *                      frame-pointer unwinder only
 */
#include <stdbool.h>
#include <stdint.h>

#include "console.h"
#include "hart.h"
#include "panic.h"
#include "poweroff.h"
#include "scenarios.h"
#include "smp.h"
#include "timer.h"

#define SSTATUS_SIE  (1u << 1)
#define BAD_SSCRATCH 0x1000

/* The hart whose tick panics, and whether it is inside its line. */
static volatile unsigned long line_hart;
static volatile bool mid_line;

/* t0 holds the garbage too: the trap entry's first instruction swaps t0
 * with sscratch, so a second trap inside the entry finds the same garbage. */
SCENARIO_FN void load_with_bad_sscratch(void)
{
	__asm__ volatile("li t0, %0\n\t"
			 "csrw sscratch, t0\n\t"
			 "lw t1, 0(zero)" ::"i"(BAD_SSCRATCH)
			 : "t0", "t1", "memory");
}

void scenario_bad_sscratch(void)
{
	load_with_bad_sscratch();
}

/* The same garbage in tp, which the entry checks sscratch against. */
SCENARIO_FN void load_with_bad_sscratch_and_tp(void)
{
	__asm__ volatile("li t0, %0\n\t"
			 "csrw sscratch, t0\n\t"
			 "mv tp, t0\n\t"
			 "lw t1, 0(zero)" ::"i"(BAD_SSCRATCH)
			 : "t0", "t1", "memory");
}

void scenario_bad_sscratch_tp(void)
{
	load_with_bad_sscratch_and_tp();
}

SCENARIO_FN void load_with_misaligned_sscratch(void)
{
	__asm__ volatile("la t0, harts + 8\n\t"
			 "csrw sscratch, t0\n\t"
			 "mv tp, t0\n\t"
			 "lw t1, 0(zero)" ::
			     : "t0", "t1", "memory");
}

void scenario_misaligned_sscratch(void)
{
	load_with_misaligned_sscratch();
}

/* The next tick traps with the garbage in sscratch. */
SCENARIO_FN void wait_with_bad_sscratch(void)
{
	__asm__ volatile("li t0, %0\n\t"
			 "csrw sscratch, t0\n"
			 "1:\twfi\n\t"
			 "j 1b" ::"i"(BAD_SSCRATCH)
			 : "t0", "memory");
	__builtin_unreachable();
}

void scenario_bad_sscratch_tick(void)
{
	wait_with_bad_sscratch();
}

SCENARIO_FN void tick_panics_mid_line(void)
{
	if (mid_line && this_hart()->id == line_hart)
		panic("panic in a tick that cut its hart's line short");
}

/* The other harts: line after line, interrupts masked while each prints
 * (as a kernel's printk under a spinlock does). */
SCENARIO_FN void print_lines_masked(void)
{
	for (;;) {
		__asm__ volatile("csrc sstatus, %0" ::"r"(SSTATUS_SIE) : "memory");
		kprintf("hart %lu prints with interrupts masked\n", this_hart()->id);
		__asm__ volatile("csrs sstatus, %0" ::"r"(SSTATUS_SIE) : "memory");
	}
}

/* This hart: long lines, each held open across two calls, so that the
 * tick that panics lands in the middle of one. */
SCENARIO_FN void print_lines_until_tick(void)
{
	for (;;) {
		console_lock();
		kputs("a line the tick cuts short: ");
		mid_line = true;
		kprintf("%s %s %s\n", "0123456789abcdef0123456789abcdef",
			"0123456789abcdef0123456789abcdef",
			"0123456789abcdef0123456789abcdef");
		mid_line = false;
		console_unlock();
	}
}

void scenario_panic_mid_line(void)
{
	for (unsigned long id = 0; id < HART_COUNT; id++)
		if (id != this_hart()->id)
			smp_run_on(id, print_lines_masked);
	line_hart = this_hart()->id;
	timer_tick_hook = tick_panics_mid_line;
	print_lines_until_tick();
}

SCENARIO_FN void print_slow_char(void)
{
	kprintf("a slow character: #\n");
}

void scenario_panic_slow_char(void)
{
	unsigned long online = smp_online_mask() & ~(1ul << this_hart()->id);
	unsigned long other = online ? (unsigned long)__builtin_ctzl(online) : HART_COUNT;

	console_slow_char = '#';
	if (!smp_run_on(other, print_slow_char)) {
		console_slow_char = 0;
		kprintf("panic-slow-char needs another hart: run QEMU with -smp 2\n");
		poweroff(EXIT_USAGE);
	}
	while (console_slow_char)
		;
	panic("panic while another hart hands a character to the firmware");
}

/* The stack panic() is called on, how much of it is left then, and whether
 * its message faults. */
static unsigned stack_at_panic;
static uintptr_t left_at_panic;
static bool message_faults;

static uintptr_t stack_left(void)
{
	uintptr_t sp;

	__asm__ volatile("mv %0, sp" : "=r"(sp));
	return sp - this_hart()->stacks[stack_at_panic].start;
}

/* On that stack: takes all but left_at_panic bytes of it (a variable-length
 * array keeps sp 16-byte aligned), then panics. */
SCENARIO_FN void panic_with_little_stack_left(void *unused)
{
	volatile char padding[(stack_left() - left_at_panic) & ~(uintptr_t)15];

	(void)unused;
	/* The array must exist: its address goes where the compiler cannot see. */
	__asm__ volatile("" ::"r"(padding) : "memory");
	if (message_faults)
		panic("%s", (char *)8);
	panic("%lu bytes of the %s stack left", (unsigned long)stack_left(),
	      stack_at_panic == HART_PANIC ? "panic" : "reserve");
}

static void panic_on_stack(unsigned stack, uintptr_t left)
{
	stack_at_panic = stack;
	left_at_panic = left;
	call_on_stack(panic_with_little_stack_left, 0, this_hart()->stacks[stack].end);
}

void scenario_panic_stack_1500(void)
{
	panic_on_stack(HART_PANIC, 1500);
}

void scenario_panic_stack_2000(void)
{
	panic_on_stack(HART_PANIC, 2000);
}

void scenario_panic_stack_fault(void)
{
	message_faults = true;
	panic_on_stack(HART_PANIC, 1500);
}

void scenario_reserve_stack_1500(void)
{
	panic_on_stack(HART_RESERVE, 1500);
}

void scenario_reserve_stack_2700(void)
{
	panic_on_stack(HART_RESERVE, 2700);
}
