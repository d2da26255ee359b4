/*
 * console.c - a small printf over the SBI console, enough for boot messages
 * and panics. No buffering: each character goes straight to the firmware, so
 * output survives whatever happens next.
 *
 * Harts take turns by a lock around each call (and around a whole line with
 * console_lock()), so that their characters do not interleave. A panicking
 * hart must never wait forever for it: the holder may have stopped for good
 * (a fault while printing, a hart stuck with interrupts masked). So every
 * wait is bounded; past it the lock is taken over, unless that would put
 * text inside a line of a panic report: then the waiting hart prints
 * nothing. A hart the lock was taken from prints no more characters. The
 * holding hart may take it again (a fault while it prints).
 *
 * A panic report starts on a line of its own (console_start_line()). A
 * hart that panics while it holds the lock (an interrupt handler that cut
 * its own line short) takes the lock afresh: the code it interrupted never
 * resumes to release it (console_begin_report()).
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
/* Whether the last character printed did not end its line. */
static volatile bool line_open;
/* Harts printing a panic report (console_begin_report()). */
static volatile bool reporting[HART_COUNT];
/* Harts inside put_char(), between its check and the firmware's return. */
static bool in_putchar[HART_COUNT];

static uintptr_t console_me(void)
{
	uintptr_t hart = (uintptr_t)this_hart();

	return hart ? hart : 1;
}

/* The hart `owner` names (a struct hart's address), or NULL (1: before
 * hart_init()). */
static const struct hart *owner_hart(uintptr_t owner)
{
	return owner > 1 ? (const struct hart *)owner : NULL;
}

/* Whether taking the console from `owner` could cut a report's line. */
static bool inside_report_line(uintptr_t owner)
{
	const struct hart *hart = owner_hart(owner);

	return hart && reporting[hart->id] && line_open;
}

/* After taking the console over from `victim`: the character it may be
 * handing to the firmware right now goes out before ours (put_char). */
static void wait_for_victim(uintptr_t victim)
{
	const struct hart *hart = owner_hart(victim);
	unsigned long start = time_now();

	while (hart && in_putchar[hart->id] && time_now() - start < CONSOLE_WAIT)
		;
}

/*
 * Takes the console: at once if it is free or ours already; else when its
 * holder releases it, or, past CONSOLE_WAIT, from the holder (stalled, or
 * stopped for good) unless that is in the middle of a report's line. False:
 * not taken; the caller prints nothing.
 */
static bool take_console(void)
{
	uintptr_t me = console_me();
	unsigned long start = time_now();

	if (__atomic_load_n(&console_owner, __ATOMIC_ACQUIRE) == me) {
		console_depth++;
		return true;
	}
	for (;;) {
		uintptr_t expected = 0;
		unsigned long waited;

		if (__atomic_compare_exchange_n(&console_owner, &expected, me, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			break;
		waited = time_now() - start;
		if (waited <= CONSOLE_WAIT)
			continue;
		/* Bounded even if the holder keeps changing. */
		if (waited > 2 * CONSOLE_WAIT || inside_report_line(expected))
			return false;
		if (__atomic_compare_exchange_n(&console_owner, &expected, me, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			wait_for_victim(expected);
			break;
		}
	}
	console_depth = 1;
	return true;
}

void console_lock(void)
{
	/* If not taken, each call under it tries again, and prints only
	 * if it gets the console. */
	(void)take_console();
}

void console_unlock(void)
{
	if (__atomic_load_n(&console_owner, __ATOMIC_RELAXED) != console_me())
		return; /* taken over meanwhile, or never taken */
	if (--console_depth == 0)
		__atomic_store_n(&console_owner, 0, __ATOMIC_RELEASE);
}

void console_begin_report(void)
{
	const struct hart *hart = this_hart();

	if (hart)
		reporting[hart->id] = true;
	/* Held by the code this hart interrupted: it will never release it.
	 * Depth 0: the next console_unlock() frees it. */
	if (__atomic_load_n(&console_owner, __ATOMIC_RELAXED) == console_me())
		console_depth = 0;
}

/*
 * Prints c if this hart still holds the console: a hart it was taken from
 * (stalled past the wait, then resumed) prints no more of its text. The
 * flag first, then the check: a hart that takes the console over sees the
 * flag, or this one sees the new holder (both sequentially consistent).
 */
static void put_char(char c)
{
	const struct hart *me = owner_hart(console_me());

	if (me)
		__atomic_store_n(&in_putchar[me->id], true, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&console_owner, __ATOMIC_SEQ_CST) == console_me()) {
		sbi_console_putchar(c);
		line_open = c != '\n';
	}
	if (me)
		__atomic_store_n(&in_putchar[me->id], false, __ATOMIC_SEQ_CST);
}

void console_start_line(void)
{
	if (take_console()) {
		if (line_open)
			put_char('\n');
		console_unlock();
	}
}

static void put_string(const char *s)
{
	while (*s)
		put_char(*s++);
}

void kputs(const char *s)
{
	if (take_console()) {
		put_string(s);
		console_unlock();
	}
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
		put_char(digits[--n]);
}

static void format(const char *fmt, va_list args)
{
	for (; *fmt; fmt++) {
		unsigned width = 0;
		char pad = ' ';
		int size = 0; /* 0 int, 1 long, 2 size_t */
		unsigned long long value;

		if (*fmt != '%') {
			put_char(*fmt);
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
			put_char((char)va_arg(args, int));
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
			put_char('%');
			break;
		default: /* unknown conversion: show it rather than guess */
			put_char('%');
			if (*fmt == '\0')
				return;
			put_char(*fmt);
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
	if (take_console()) {
		format(fmt, args);
		console_unlock();
	}
}
