/*
 * smp.c - the other harts. OpenSBI enters the kernel on one hart; the others
 * wait in the firmware until an SBI HSM hart_start sends them to
 * secondary_start (entry.S), with their own boot stack.
 */
#include "smp.h"

#include <stdint.h>

#include "console.h"
#include "hart.h"
#include "sbi.h"
#include "timer.h"
#include "vm.h"

#define SSTATUS_SIE (1u << 1)
#define SIE_SSIE    (1u << 1) /* sie: supervisor software interrupts (IPIs) */
#define START_WAIT  (TIMEBASE_HZ / 2)

extern char secondary_start[];

static volatile unsigned long online_mask;
static void (*volatile work[HART_COUNT])(void);

_Noreturn void secondary_main(unsigned long id);

static void mark_online(unsigned long id)
{
	__atomic_fetch_or(&online_mask, 1ul << id, __ATOMIC_SEQ_CST);
}

unsigned long smp_online_mask(void)
{
	return __atomic_load_n(&online_mask, __ATOMIC_SEQ_CST);
}

unsigned smp_start_harts(void)
{
	unsigned long me = this_hart()->id;
	unsigned long wanted = 1ul << me;
	unsigned long start = time_now();
	unsigned count = 0;

	mark_online(me);
	for (unsigned long id = 0; id < HART_COUNT; id++) {
		if (id != me && sbi_hart_status(id) == SBI_HSM_STOPPED &&
		    sbi_hart_start(id, (uintptr_t)secondary_start, 0))
			wanted |= 1ul << id;
	}
	/* Bounded: a hart that never arrives is reported, not waited for. */
	while ((smp_online_mask() & wanted) != wanted && time_now() - start < START_WAIT)
		;
	for (unsigned long id = 0; id < HART_COUNT; id++) {
		if (wanted >> id & 1 && !(smp_online_mask() >> id & 1))
			kprintf("hart %lu was started but never ran\n", id);
		count += smp_online_mask() >> id & 1;
	}
	return count;
}

bool smp_run_on(unsigned long id, void (*fn)(void))
{
	if (id >= HART_COUNT || !(smp_online_mask() >> id & 1))
		return false;
	work[id] = fn;
	return true;
}

void hart_interrupts_on(void)
{
	__asm__ volatile("csrs sie, %0" ::"r"(SIE_SSIE));
	__asm__ volatile("csrs sstatus, %0" ::"r"(SSTATUS_SIE) : "memory");
}

void hart_idle(void)
{
	unsigned long id = this_hart()->id;

	hart_interrupts_on();
	for (;;) {
		void (*fn)(void) = work[id];

		if (fn) {
			work[id] = 0;
			fn();
		}
		__asm__ volatile("wfi");
	}
}

/* A started hart, from secondary_start on its task stack: the same setup as
 * the boot hart's, then idle. */
void secondary_main(unsigned long id)
{
	hart_init(id);
	vm_enable();
	timer_start();
	mark_online(id);
	hart_idle();
}
