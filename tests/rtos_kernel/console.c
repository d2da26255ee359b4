/*
 * console.c - the 16550 UART (polled), the SiFive test device's power-off,
 * memset() and panic().
 */
#include "kernel.h"
#include "tracer_embedded.h"

#define UART_THR      0
#define UART_LSR      5
#define LSR_TX_IDLE   (1u << 5)
#define TEST_POWEROFF 0x5555u

static void putc_uart(char c)
{
	volatile uint8_t *uart = (volatile uint8_t *)UART0;

	while ((uart[UART_LSR] & LSR_TX_IDLE) == 0)
		;
	uart[UART_THR] = (uint8_t)c;
}

void puts_uart(const char *s)
{
	while (*s)
		putc_uart(*s++);
}

void put_hex(uint32_t value)
{
	puts_uart("0x");
	for (int shift = 28; shift >= 0; shift -= 4)
		putc_uart("0123456789abcdef"[value >> shift & 0xf]);
}

/* The compiler may call it for a structure's initializer. */
void *memset(void *dest, int c, size_t n)
{
	uint8_t *bytes = dest;

	while (n--)
		*bytes++ = (uint8_t)c;
	return dest;
}

_Noreturn void poweroff(void)
{
	*(volatile uint32_t *)TEST_DEVICE = TEST_POWEROFF;
	for (;;)
		;
}

/* PORT GLUE: the backtrace, between the message and poweroff(). */
extern char _start[], etext[], trap_vector[];

static void put_line(void *context, const char *line)
{
	(void)context;
	puts_uart(line);
	puts_uart("\n");
}

_Noreturn void panic(const char *message)
{
	struct tracer_regs regs;
	TRACER_CAPTURE_REGS(&regs);
	/* clang-format off */
	struct tracer_trap_csrs csrs = {csr_read(mepc), csr_read(mcause), csr_read(mtval)};
	/* portasm.S's frame: slot n holds xn, slot 0 mepc (+ 4 for an exception),
	 * slot 2 mstatus; no sp (the frame is 128 bytes below it), mcause, mtval. */
	struct tracer_trap_layout trap = {
	    .mode = TRACER_TRAP_MACHINE, .exception_epc_added = 4, .epc_offset = 0,
	    .ra_offset = 4, .status_offset = 8, .sp_offset = TRACER_TRAP_NOT_SAVED,
	    .frame_size = 128, .s_offset = {32, 36, 72, 76, 80, 84, 88, 92, 96, 100, 104, 108},
	    .cause_offset = TRACER_TRAP_NOT_SAVED, .tval_offset = TRACER_TRAP_NOT_SAVED};
	struct tracer_range stacks[MAX_TASKS + 2] = {
	    {(uintptr_t)isr_stack, (uintptr_t)isr_stack_top},
	    {(uintptr_t)boot_stack, (uintptr_t)boot_stack_top}};
	struct tracer_range entries[MAX_TASKS];
	struct tracer_config config = {
	    TRACER_EMBEDDED_TABLES, .text = {(uintptr_t)_start, (uintptr_t)etext},
	    .stacks = stacks, .stack_count = task_count + 2, .trap = &trap,
	    .trap_csrs = &csrs, .trap_frame = current_tcb ? (uintptr_t)current_tcb->top : 0,
	    .task_entries = entries, .task_entry_count = task_count};
	/* clang-format on */

	for (unsigned i = 0; i < task_count; i++) {
		uintptr_t stack = (uintptr_t)tasks[i]->stack;

		stacks[i + 2] =
		    (struct tracer_range){stack, stack + tasks[i]->stack_size};
		entries[i] = tracer_function_range(&config, (uintptr_t)tasks[i]->entry);
	}
	trap.entry = tracer_function_range(&config, (uintptr_t)trap_vector);
	/* No tick may switch tasks under the panic. */
	csr_clear(mstatus, MSTATUS_MIE);
	puts_uart("panic: ");
	puts_uart(message);
	puts_uart("\n");
	/* Every unwinder, for tests/rtos_kernel_tests.py; a port prints TRACER_AUTO's. */
	for (enum tracer_unwinder u = 0; u < TRACER_UNWINDER_COUNT; u++)
		tracer_print_backtrace(&config, &regs, u, put_line, 0);
	poweroff();
}
