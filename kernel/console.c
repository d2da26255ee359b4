/*
 * console.c - a small printf over the SBI console, enough for boot messages
 * and panics. No buffering: each character goes straight to the firmware, so
 * output survives whatever happens next.
 *
 * Harts take turns by a lock around each call (and around a whole line with
 * console_lock()), so that their characters do not interleave. A panicking
 * hart must never wait forever for it: the holder may have stopped for good
 * (a fault while printing, a hart stuck with interrupts masked). So every
 * wait is bounded; past it the lock is taken over. A hart the lock was taken
 * from prints no more characters; a character it was already handing to the
 * firmware goes out before the new holder's, which then starts a line of its
 * own. The holding hart may take it again (a fault while it prints).
 *
 * Nothing lands inside a line of a panic report: once one began, harts that
 * print no report drop their text (as Linux does with other CPUs' printk),
 * and a hart printing one, which holds the lock a line or two at a time and
 * is always about to release it, loses it only to another report, and only
 * after STOPPED_WAIT (it stopped).
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
/* Ten times that: only a hart that stopped (or that the host did not run for
 * that long) takes longer to hand one character to the firmware, or to print
 * one line of a report. */
#define STOPPED_WAIT   TIMEBASE_HZ
#define SSTATUS_SIE    2ul
#define SLOW_CHAR_WAIT (3 * TIMEBASE_HZ / 10) /* console_slow_char's */

/*
 * The holder, in one word, so that taking the console over is one
 * compare-and-swap on the holder's very take that was watched: its hart
 * (id + 1; HART_COUNT + 1 before hart_init()), whether that hart prints a
 * report, and the take's number (the same hart may let go and take it again
 * between two looks). 0: free.
 */
static uintptr_t console_owner;
#define OWNER_HART	0xful
#define OWNER_REPORTING 0x10ul
#define OWNER_TAKE	0x20ul /* one take */
_Static_assert(HART_COUNT + 1 <= OWNER_HART, "OWNER_HART");
static uintptr_t console_takes;
/* Each hart's nesting of the lock (console_lock()), by OWNER_HART: a hart
 * robbed as it counts changes only its own. */
static unsigned console_depth[HART_COUNT + 2];
/* Whether the last character printed did not end its line. */
static volatile bool line_open;
/* Harts printing a panic report (console_begin_report()), and whether any
 * one began. */
static volatile bool reporting[HART_COUNT];
static volatile bool report_begun;
/* Characters each hart has begun and finished handing to the firmware
 * (put_char): odd while one is on its way. */
static unsigned long printing[HART_COUNT];
volatile char console_slow_char;

/* This hart, as OWNER_HART and OWNER_REPORTING say. */
static uintptr_t console_me(void)
{
	const struct hart *hart = this_hart();

	if (!hart)
		return HART_COUNT + 1;
	return (hart->id + 1) | (reporting[hart->id] ? OWNER_REPORTING : 0);
}

static bool holds_console(void)
{
	return (__atomic_load_n(&console_owner, __ATOMIC_SEQ_CST) & OWNER_HART) ==
	       (console_me() & OWNER_HART);
}

static void put_char(char c);

/*
 * After taking the console over: waits for the characters other harts are
 * handing to the firmware (the robbed hart's, or one robbed before it), so
 * that they go out before ours, then ends the line they left open. Every
 * hart's, not the robbed one's only: a hart robbed while it waited for one
 * passes it on. A character that is on its way is always about to arrive
 * (put_char() masks interrupts): only a hart that stopped in the firmware
 * keeps one past STOPPED_WAIT.
 */
static void take_over(void)
{
	unsigned long start = time_now();

	for (unsigned id = 0; id < HART_COUNT; id++) {
		unsigned long count = __atomic_load_n(&printing[id], __ATOMIC_SEQ_CST);

		while (count % 2 == 1 &&
		       __atomic_load_n(&printing[id], __ATOMIC_SEQ_CST) == count &&
		       time_now() - start < STOPPED_WAIT)
			;
	}
	if (line_open)
		put_char('\n');
}

/*
 * Takes the console: at once if it is free or ours already; else when its
 * holder lets it go, or from a holder that kept it past CONSOLE_WAIT
 * (stalled, or stopped for good), except a report's: a hart printing one
 * holds the console a line or two at a time, about to let it go; only
 * another report takes it over, from a take that lasted STOPPED_WAIT. Once
 * a report began, other harts print nothing. False: not taken; the caller
 * prints nothing.
 */
static bool take_console(void)
{
	uintptr_t me = console_me(), take, seen = 0;
	unsigned long start = time_now(), since = start;

	if (holds_console()) {
		++console_depth[me & OWNER_HART];
		return true;
	}
	take = me | __atomic_add_fetch(&console_takes, OWNER_TAKE, __ATOMIC_SEQ_CST);
	for (;;) {
		uintptr_t holder = 0;
		unsigned long now;

		/* Other text would only get in a report's way (and its hart is
		 * about to be stopped). */
		if (report_begun && !(me & OWNER_REPORTING))
			return false;
		if (__atomic_compare_exchange_n(&console_owner, &holder, take, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			break;
		now = time_now();
		if (holder != seen) {
			seen = holder;
			since = now;
		}
		/* Bounded even if the holder keeps changing. */
		if (now - start > 2 * STOPPED_WAIT)
			return false;
		/* From a report's take only once it lasted STOPPED_WAIT (watched
		 * all along: the same hart may have taken it again since). */
		if (holder & OWNER_REPORTING ? now - since <= STOPPED_WAIT
					     : now - start <= CONSOLE_WAIT)
			continue;
		if (__atomic_compare_exchange_n(&console_owner, &holder, take, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			take_over();
			break;
		}
	}
	console_depth[me & OWNER_HART] = 1;
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
	if (!holds_console())
		return; /* taken over meanwhile, or never taken */
	if (--console_depth[console_me() & OWNER_HART] == 0)
		__atomic_store_n(&console_owner, 0, __ATOMIC_SEQ_CST);
}

/*
 * This hart prints a report from now on. If it holds the console, the code
 * it interrupted will never let it go: it takes it afresh, as a report's
 * take, depth 0 (the next console_unlock() frees it).
 */
void console_begin_report(void)
{
	const struct hart *hart = this_hart();
	uintptr_t held = __atomic_load_n(&console_owner, __ATOMIC_SEQ_CST);

	if (!hart)
		return;
	report_begun = true;
	reporting[hart->id] = true;
	/* A fault inside put_char() left the count odd; nothing of this
	 * hart's is on its way now. */
	__atomic_store_n(&printing[hart->id], printing[hart->id] + printing[hart->id] % 2,
			 __ATOMIC_SEQ_CST);
	if ((held & OWNER_HART) == hart->id + 1 &&
	    __atomic_compare_exchange_n(&console_owner, &held, held | OWNER_REPORTING,
					false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		console_depth[hart->id + 1] = 0;
}

/*
 * Prints c if this hart still holds the console: a hart it was taken from
 * (stalled past the wait, then resumed) prints no more of its text. The
 * count first, then the check: a hart that takes the console over sees the
 * count odd, or this one sees the new holder. Each side stores, then loads,
 * so both are sequentially consistent (a full fence between them).
 * Interrupts are masked between the two counts: a handler that ran there
 * would hold the character back as long as it ran, or for ever (a panic).
 */
static void put_char(char c)
{
	const struct hart *hart = this_hart();
	unsigned long *count = hart ? &printing[hart->id] : NULL;
	unsigned long sstatus;

	__asm__ volatile("csrrc %0, sstatus, %1"
			 : "=r"(sstatus)
			 : "r"(SSTATUS_SIE)
			 : "memory");
	if (count)
		__atomic_store_n(count, *count + 1, __ATOMIC_SEQ_CST);
	if (holds_console()) {
		if (c && c == console_slow_char) {
			unsigned long start = time_now();

			console_slow_char = 0;
			while (time_now() - start < SLOW_CHAR_WAIT)
				;
		}
		sbi_console_putchar(c);
		line_open = c != '\n';
	}
	if (count)
		__atomic_store_n(count, *count + 1, __ATOMIC_SEQ_CST);
	__asm__ volatile("csrs sstatus, %0" ::"r"(sstatus & SSTATUS_SIE) : "memory");
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
