/*
 * sbi.h - calls into the SBI firmware (OpenSBI) below us.
 */
#ifndef KERNEL_SBI_H
#define KERNEL_SBI_H

#include <stdbool.h>

void sbi_console_putchar(char c);
/* Powers the machine off (QEMU exits). `failure` reports a system failure. */
_Noreturn void sbi_shutdown(bool failure);

#endif /* KERNEL_SBI_H */
