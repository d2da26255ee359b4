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

#endif /* KERNEL_CONSOLE_H */
