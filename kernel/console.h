/*
 * console.h - formatted output on the SBI console.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdarg.h>

void kputs(const char *s); /* no newline added */
/* printf subset: %c %s %d %u %x %p %%, with a 0/width flag and l/z sizes. */
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kvprintf(const char *fmt, va_list args);
/* Holds the console across several calls (a line made of pieces): other
 * harts wait, at most 100 ms. Nests. Past the wait a holder is taken over
 * from, except a hart printing a panic report, which only another report's
 * hart takes it from, after 1 s (it stopped). Once a report began, a hart
 * that prints none prints nothing. */
void console_lock(void);
void console_unlock(void);
/* Under console_lock(): ends the line another call left open, so that what
 * follows starts a line of its own. */
void console_start_line(void);
/* The calling hart begins a panic report: no other hart takes the console
 * from it (but a report's, after 1 s), and if it holds the console already
 * (it interrupted its own output, which never resumes), the next
 * console_unlock() releases it. */
void console_begin_report(void);
/* A scenario's: the next time a hart hands this character to the firmware,
 * that takes 300 ms, as on a hart the host does not run; 0 once it is on
 * its way. */
extern volatile char console_slow_char;

#endif /* KERNEL_CONSOLE_H */
