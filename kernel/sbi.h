/*
 * sbi.h - calls into the SBI firmware (OpenSBI) below us.
 */
#ifndef KERNEL_SBI_H
#define KERNEL_SBI_H

#include <stdbool.h>
#include <stdint.h>

/* HSM hart states (sbi_hart_status). */
#define SBI_HSM_STARTED 0
#define SBI_HSM_STOPPED 1

void sbi_console_putchar(char c);
/* The next timer interrupt of this hart, in timebase ticks (rdtime). */
void sbi_set_timer(uint64_t when);
/* A supervisor software interrupt to every hart whose bit is set. */
void sbi_send_ipi(unsigned long hart_mask);
/* SBI_HSM_STARTED, SBI_HSM_STOPPED, ..., or a negative error (no such hart). */
long sbi_hart_status(unsigned long hartid);
/* Starts a stopped hart at `start` (physical), a0 = hartid, a1 = opaque. */
bool sbi_hart_start(unsigned long hartid, uintptr_t start, unsigned long opaque);
/* Powers the machine off (QEMU exits). `failure` reports a system failure,
 * which QEMU's exit status does not show: poweroff.h gives one. */
_Noreturn void sbi_shutdown(bool failure);

#endif /* KERNEL_SBI_H */
