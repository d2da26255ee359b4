/*
 * trap.c - C side of the trap vector (trap_entry.S). Every trap is fatal
 * here: report what the hardware said, then panic with a backtrace that
 * crosses the trap frame into the interrupted code.
 */
#include <stdint.h>

#include "layout.h"
#include "panic.h"

/* The trap frame trap_entry.S built; see layout.h for its layout. */
struct trap_frame {
	uintptr_t regs[32];
	uintptr_t sepc;
	uintptr_t sstatus;
	uintptr_t scause;
	uintptr_t stval;
};

_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "layout.h and trap_frame disagree");

_Noreturn void trap_handler(struct trap_frame *frame);

void trap_handler(struct trap_frame *frame)
{
	if (panic_in_progress())
		panic_nested_fault(frame->scause, frame->sepc, frame->stval);
	panic("trap: %s (scause=0x%lx) sepc=0x%lx stval=0x%lx",
	      tracer_trap_cause_name(frame->scause), (unsigned long)frame->scause,
	      (unsigned long)frame->sepc, (unsigned long)frame->stval);
}
