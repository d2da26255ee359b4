/*
 * smp.h - every hart: started through SBI HSM, then idle with ticks until
 * given work.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdbool.h>

/* Starts every other hart the firmware holds stopped (hart ids below
 * HART_COUNT), and waits until each runs. Returns how many run in all. */
unsigned smp_start_harts(void);

/* Bit h set: hart h runs this kernel (its trap entry and stacks are set). */
unsigned long smp_online_mask(void);

/* Has hart `id`, idle, run fn once (soon after its next tick). False if it
 * is not online. */
bool smp_run_on(unsigned long id, void (*fn)(void));

/* The calling hart takes ticks and IPIs from now on (sie, sstatus.SIE). */
void hart_interrupts_on(void);

/* Interrupts on, then sleep between interrupts, running work as it comes. */
_Noreturn void hart_idle(void);

#endif /* KERNEL_SMP_H */
