/*
 * console.c - a small printf over the SBI console, enough for boot messages
 * and panics. No buffering: each character goes straight to the firmware, so
 * output survives whatever happens next.
 *
 * Harts take turns by a lock around each call (and around a whole line with
 * console_lock()), so that their characters do not interleave. A panicking
 * hart must never wait forever for it: the holder may have stopped for good
 * (a fault while printing, a hart stuck with interrupts masked). So the wait
 * is bounded; past it the lock is taken over. The holding hart may take it
 * again (a fault while it prints).
 */
#include "console.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hart.h"
#include "sbi.h"
#include "timer.h"

#define CONSOLE_WAIT (TIMEBASE_HZ / 10) /* 100 ms: many lines' worth */

/* The holder: its struct hart's address, or 1 before hart_init(); 0: free. */
static uintptr_t console_owner;
static unsigned console_depth;

static uintptr_t console_me(void)
{
	uintptr_t hart = (uintptr_t)this_hart();

	return hart ? hart : 1;
}

void console_lock(void)
{
	uintptr_t me = console_me();
	unsigned long start = time_now();
	uintptr_t expected = 0;

	if (__atomic_load_n(&console_owner, __ATOMIC_ACQUIRE) == me) {
		console_depth++;
		return;
	}
	while (!__atomic_compare_exchange_n(&console_owner, &expected, me, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		if (time_now() - start > CONSOLE_WAIT) {
			__atomic_store_n(&console_owner, me, __ATOMIC_SEQ_CST);
			break;
		}
		expected = 0;
	}
	console_depth = 1;
}

void console_unlock(void)
{
	if (__atomic_load_n(&console_owner, __ATOMIC_RELAXED) != console_me())
		return; /* taken over meanwhile */
	if (--console_depth == 0)
		__atomic_store_n(&console_owner, 0, __ATOMIC_RELEASE);
}

static void put_string(const char *s)
{
	while (*s)
		sbi_console_putchar(*s++);
}

void kputs(const char *s)
{
	console_lock();
	put_string(s);
	console_unlock();
}

static void put_number(unsigned long long value, unsigned base, bool negative,
		       unsigned width, char pad)
{
	char digits[24];
	unsigned n = 0;

	do {
		digits[n++] = "0123456789abcdef"[value % base];
		value /= base;
	} while (value != 0);
	if (negative)
		digits[n++] = '-';
	while (n < width && n < sizeof(digits))
		digits[n++] = pad;
	while (n > 0)
		sbi_console_putchar(digits[--n]);
}

static void format(const char *fmt, va_list args)
{
	for (; *fmt; fmt++) {
		unsigned width = 0;
		char pad = ' ';
		int size = 0; /* 0 int, 1 long, 2 size_t */
		unsigned long long value;

		if (*fmt != '%') {
			sbi_console_putchar(*fmt);
			continue;
		}
		fmt++;
		if (*fmt == '0')
			pad = '0';
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (unsigned)(*fmt++ - '0');
		if (*fmt == 'l') {
			size = 1;
			fmt++;
		} else if (*fmt == 'z') {
			size = 2;
			fmt++;
		}
		switch (*fmt) {
		case 'c':
			sbi_console_putchar((char)va_arg(args, int));
			break;
		case 's': {
			const char *s = va_arg(args, const char *);

			put_string(s ? s : "(null)");
			break;
		}
		case 'd': {
			long long v = size == 1	  ? va_arg(args, long)
				      : size == 2 ? (long long)va_arg(args, size_t)
						  : va_arg(args, int);

			put_number(v < 0 ? 0ull - (unsigned long long)v
					 : (unsigned long long)v,
				   10, v < 0, width, pad);
			break;
		}
		case 'u':
		case 'x':
			value = size == 1   ? va_arg(args, unsigned long)
				: size == 2 ? va_arg(args, size_t)
					    : va_arg(args, unsigned);
			put_number(value, *fmt == 'u' ? 10 : 16, false, width, pad);
			break;
		case 'p':
			put_string("0x");
			put_number((uintptr_t)va_arg(args, void *), 16, false,
				   2 * sizeof(void *), '0');
			break;
		case '%':
			sbi_console_putchar('%');
			break;
		default: /* unknown conversion: show it rather than guess */
			sbi_console_putchar('%');
			if (*fmt == '\0')
				return;
			sbi_console_putchar(*fmt);
			break;
		}
	}
}

void kprintf(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	kvprintf(fmt, args);
	va_end(args);
}

void kvprintf(const char *fmt, va_list args)
{
	console_lock();
	format(fmt, args);
	console_unlock();
}
