/*
 * harts.c - scenarios on several harts (QEMU -smp N).
 *
 *   secondary-panic  the last hart panics; the others (this one included)
 *                    idle, and are stopped by its IPI
 *   all-harts        every hart at once: even hart ids panic, odd ones take
 *                    a load page fault
 */
#include <stdint.h>

#include "console.h"
#include "hart.h"
#include "panic.h"
#include "poweroff.h"
#include "scenarios.h"
#include "smp.h"

static volatile uintptr_t unmapped_address = 0;
static volatile unsigned arrived;

SCENARIO_FN void secondary_panics(void)
{
	panic("panic on hart %lu", this_hart()->id);
}

SCENARIO_FN void secondary_work(void)
{
	secondary_panics();
}

/* The highest online hart other than this one, or HART_COUNT. */
static unsigned long other_hart(void)
{
	unsigned long online = smp_online_mask();

	for (unsigned long id = HART_COUNT; id-- > 0;)
		if (id != this_hart()->id && online >> id & 1)
			return id;
	return HART_COUNT;
}

void scenario_secondary_panic(void)
{
	if (!smp_run_on(other_hart(), secondary_work)) {
		kprintf(
		    "secondary-panic needs another hart: run QEMU with -smp 2 or more\n");
		poweroff(EXIT_USAGE);
	}
	hart_idle();
}

SCENARIO_FN void all_harts_fail(unsigned long id)
{
	if (id % 2 == 0)
		panic("hart %lu panics on purpose", id);
	(void)*(volatile unsigned long *)unmapped_address;
}

/* Every hart waits until all have arrived, then fails at once. Interrupts
 * masked: the first panic's IPI cannot stop the others before they fail,
 * so every hart really panics or faults. */
SCENARIO_FN void all_harts_work(void)
{
	unsigned long online = (unsigned long)__builtin_popcountl(smp_online_mask());

	__asm__ volatile("csrci sstatus, 2" ::: "memory");
	__atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
	while (arrived < online)
		;
	all_harts_fail(this_hart()->id);
}

void scenario_all_harts(void)
{
	for (unsigned long id = 0; id < HART_COUNT; id++)
		if (id != this_hart()->id)
			smp_run_on(id, all_harts_work);
	all_harts_work();
}
