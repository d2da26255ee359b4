/*
 * trap.c - C side of the trap vector (trap_entry.S). Interrupts are handled
 * and return: the tick, and an IPI (unless another hart's panic sent it:
 * then this hart prints its backtrace and stops). Every exception is fatal:
 * report what the hardware said (first whether the stack itself is the
 * problem), then panic with a backtrace that crosses the trap frame into
 * the interrupted code.
 */
#include <stdint.h>

#include "hart.h"
#include "layout.h"
#include "panic.h"
#include "timer.h"

#define INTERRUPT_BIT	 ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1))
#define IRQ_S_SOFTWARE	 1
#define IRQ_S_TIMER	 5
#define SIP_SSIP	 (1u << 1)
#define CAUSE_LOAD_PAGE	 13
#define CAUSE_STORE_PAGE 15

/* The trap frame trap_entry.S built; see layout.h for its layout. */
struct trap_frame {
	uintptr_t regs[32];
	uintptr_t sepc;
	uintptr_t sstatus;
	uintptr_t scause;
	uintptr_t stval;
};

_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "layout.h and trap_frame disagree");

void trap_handler(struct trap_frame *frame);

/* The interrupted registers the tracer starts from. */
static void interrupted_regs(const struct trap_frame *frame, struct tracer_regs *regs)
{
	regs->pc = frame->sepc;
	regs->ra = frame->regs[1];
	regs->sp = frame->regs[2];
	/* s0, s1 are x8, x9; s2-s11 are x18-x27. */
	for (unsigned i = 0; i < 12; i++)
		regs->s[i] = frame->regs[i < 2 ? 8 + i : 16 + i];
}

static void interrupt(struct trap_frame *frame)
{
	struct tracer_regs regs;

	switch (frame->scause & ~INTERRUPT_BIT) {
	case IRQ_S_TIMER:
		timer_tick();
		break;
	case IRQ_S_SOFTWARE:
		__asm__ volatile("csrc sip, %0" ::"r"(SIP_SSIP));
		if (panic_stop_requested()) {
			interrupted_regs(frame, &regs);
			panic_stop_this_hart(&regs);
		}
		break;
	default:
		break; /* not enabled: nothing to do */
	}
}

/* Whether addr lies in [start - GUARD_SIZE, start): the guard page. */
static bool in_guard_below(uintptr_t start, uintptr_t addr)
{
	return addr < start && start - addr <= GUARD_SIZE;
}

/*
 * Panics if the stack is the problem: an overflow (sp, or the address a
 * page fault hit, in the guard page below the task or interrupt stack), or
 * a garbage sp (on no stack of this hart). Such traps are the ones the
 * entry moved to the panic stack.
 */
static void check_stack(const struct trap_frame *frame)
{
	const struct hart *hart = this_hart();
	uintptr_t sp = frame->regs[2];
	uintptr_t cause = frame->scause;
	const char *what = tracer_trap_cause_name(cause);

	for (unsigned s = HART_TASK; s <= HART_INTERRUPT; s++) {
		uintptr_t start = hart->stacks[s].start;
		bool page_fault = cause == CAUSE_LOAD_PAGE || cause == CAUSE_STORE_PAGE;

		if (sp == start || in_guard_below(start, sp) ||
		    (page_fault && in_guard_below(start, frame->stval)))
			panic("kernel stack overflow: %s sepc=0x%lx stval=0x%lx sp=0x%lx",
			      what, (unsigned long)frame->sepc,
			      (unsigned long)frame->stval, (unsigned long)sp);
	}
	for (unsigned s = 0; s < HART_STACK_TYPES; s++)
		if (hart_sp_on(hart, s, sp))
			return;
	panic("bad kernel stack pointer sp=0x%lx: %s sepc=0x%lx stval=0x%lx",
	      (unsigned long)sp, what, (unsigned long)frame->sepc,
	      (unsigned long)frame->stval);
}

void trap_handler(struct trap_frame *frame)
{
	if (frame->scause & INTERRUPT_BIT) {
		interrupt(frame);
		return;
	}
	if (panic_in_progress())
		panic_nested_fault(frame->scause, frame->sepc, frame->stval);
	check_stack(frame);
	panic("trap: %s (scause=0x%lx) sepc=0x%lx stval=0x%lx",
	      tracer_trap_cause_name(frame->scause), (unsigned long)frame->scause,
	      (unsigned long)frame->sepc, (unsigned long)frame->stval);
}
