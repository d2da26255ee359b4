/*
 * console.c - output to the 16550 UART (polled; OpenSBI has set it up),
 * printf with %d %x %p %s %c, and panic.
 */
#include <stdarg.h>

#include "defs.h"
#include "param.h"
#include "proc.h"
#include "riscv.h"
#include "tracer_embedded.h"

#define THR	     0 /* transmit holding register */
#define LSR	     5 /* line status register */
#define LSR_TX_IDLE  (1 << 5)
#define UART_REG(r)  ((volatile uchar *)(UART0 + (r)))
#define TEST_POWEROFF 0x5555

void consputc(int c)
{
	while ((*UART_REG(LSR) & LSR_TX_IDLE) == 0)
		;
	*UART_REG(THR) = (uchar)c;
}

static void printint(long value, int base, int sign)
{
	static const char digits[] = "0123456789abcdef";
	char buf[24];
	unsigned long x = (sign && value < 0) ? -(unsigned long)value : (unsigned long)value;
	int i = 0;

	do {
		buf[i++] = digits[x % (unsigned)base];
		x /= (unsigned)base;
	} while (x != 0);
	if (sign && value < 0)
		buf[i++] = '-';
	while (--i >= 0)
		consputc(buf[i]);
}

void printf(const char *fmt, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, fmt);
	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			consputc(*fmt);
			continue;
		}
		switch (*++fmt) {
		case 'd':
			printint(va_arg(ap, int), 10, 1);
			break;
		case 'x':
			printint(va_arg(ap, int), 16, 0);
			break;
		case 'p':
			consputc('0');
			consputc('x');
			printint((long)va_arg(ap, uint64), 16, 0);
			break;
		case 's':
			for (s = va_arg(ap, const char *); s && *s; s++)
				consputc(*s);
			break;
		case 'c':
			consputc(va_arg(ap, int));
			break;
		case '\0':
			fmt--;
			break;
		default:
			consputc('%');
			consputc(*fmt);
			break;
		}
	}
	va_end(ap);
}

_Noreturn void poweroff(void)
{
	*(volatile uint *)VIRT_TEST = TEST_POWEROFF;
	for (;;)
		;
}

/* PORT GLUE: the backtrace goes here, between the message and poweroff(). */
extern char _entry[], etext[], stack0[], kernelvec[];
void usertrap(void);

static void put_line(void *context, const char *line)
{
	(void)context;
	printf("%s\n", line);
}

_Noreturn void panic(const char *s)
{
	struct tracer_regs regs;
	TRACER_CAPTURE_REGS(&regs);
	struct tracer_trap_csrs csrs = {r_sepc(), r_scause(), r_stval()};
	/* kernelvec saves sp after `addi sp, sp, -256`; no sepc/scause/stval/sstatus. */
	struct tracer_trap_layout trap = {
	    .ra_offset = 0, .sp_offset = TRACER_TRAP_NOT_SAVED, .frame_size = 256,
	    .s_offset = {56, 64, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208},
	    .epc_offset = TRACER_TRAP_NOT_SAVED, .cause_offset = TRACER_TRAP_NOT_SAVED,
	    .tval_offset = TRACER_TRAP_NOT_SAVED, .status_offset = TRACER_TRAP_NOT_SAVED};
	struct tracer_range stacks[NCPU + 1] = {{0, 0}}, user_entry; /* + kstack */
	struct tracer_config config = {
	    TRACER_EMBEDDED_TABLES, .text = {(uintptr_t)_entry, (uintptr_t)etext},
	    .stacks = stacks, .stack_count = NCPU + 1, .trap = &trap, .trap_csrs = &csrs,
	    .entry_points = &user_entry, .entry_point_count = 1};

	for (int i = 0; i < NCPU; i++)
		stacks[i] = (struct tracer_range){(uintptr_t)stack0 + i * PGSIZE,
						  (uintptr_t)stack0 + (i + 1) * PGSIZE};
	if (myproc())
		stacks[NCPU] = (struct tracer_range){myproc()->kstack,
						     myproc()->kstack + PGSIZE};
	/* Neither has an end symbol: their sizes from the symbol table. */
	trap.entry = tracer_function_range(&config, (uintptr_t)kernelvec);
	user_entry = tracer_function_range(&config, (uintptr_t)usertrap);
	printf("panic: %s\n", s);
	/* Every unwinder, for tests/port_kernel_tests.py; a port prints TRACER_AUTO's. */
	for (enum tracer_unwinder u = 0; u < TRACER_UNWINDER_COUNT; u++)
		tracer_print_backtrace(&config, &regs, u, put_line, 0);
	poweroff();
}
