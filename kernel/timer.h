/*
 * timer.h - the time and the periodic tick of each hart (SBI TIME).
 */
#ifndef KERNEL_TIMER_H
#define KERNEL_TIMER_H

#include <stdint.h>

/* QEMU virt's timebase-frequency (the device tree's /cpus): rdtime counts
 * at 10 MHz. */
#define TIMEBASE_HZ 10000000ul

/* The timebase counter (rdtime). On rv32, its low half: enough to time the
 * short waits of the panic path (they compare differences). */
static inline unsigned long time_now(void)
{
	unsigned long now;

	__asm__ volatile("rdtime %0" : "=r"(now));
	return now;
}

/* Ticks every 10 ms on the calling hart from now on (interrupts stay as they
 * are: sstatus.SIE is the caller's). */
void timer_start(void);

/* The timer interrupt: count the tick, arm the next one, call the hook. */
void timer_tick(void);

/* Ticks this hart has taken. */
unsigned long timer_ticks(void);

/* Called from every tick while set (a scenario's, in interrupt context). */
extern void (*volatile timer_tick_hook)(void);

#endif /* KERNEL_TIMER_H */
