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
 * harts wait, at most 100 ms. Nests. */
void console_lock(void);
void console_unlock(void);

#endif /* KERNEL_CONSOLE_H */
