/*
 * timer.c - a tick on every hart, 100 times a second, through the SBI timer:
 * sbi_set_timer() asks the firmware for a supervisor timer interrupt when
 * rdtime reaches a value; each tick asks for the next one.
 */
#include "timer.h"

#include "hart.h"
#include "sbi.h"

#define TICK_INTERVAL (TIMEBASE_HZ / 100)
#define SIE_STIE      (1u << 5) /* sie: supervisor timer interrupts */

void (*volatile timer_tick_hook)(void);

static volatile unsigned long ticks[HART_COUNT];

void timer_start(void)
{
	sbi_set_timer(time_now() + TICK_INTERVAL);
	__asm__ volatile("csrs sie, %0" ::"r"(SIE_STIE));
}

void timer_tick(void)
{
	void (*hook)(void) = timer_tick_hook;

	ticks[this_hart()->id]++;
	sbi_set_timer(time_now() + TICK_INTERVAL);
	if (hook)
		hook();
}

unsigned long timer_ticks(void)
{
	return ticks[this_hart()->id];
}
