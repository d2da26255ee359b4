/*
 * console.c - output to the 16550 UART (polled; OpenSBI has set it up),
 * printf with %d %x %p %s %c, and panic.
 */
#include <stdarg.h>

#include "defs.h"
#include "param.h"

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
_Noreturn void panic(const char *s)
{
	printf("panic: %s\n", s);
	poweroff();
}
