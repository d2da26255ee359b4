/*
 * panic.h - stop the kernel with a message and a backtrace.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "tracer.h"

/* The unwinder panic() uses (tracer=... on the command line). */
void panic_use_unwinder(enum tracer_unwinder unwinder);

/* Fills *config (and *trap, which it points to) with what a walk from sp may
 * read: this hart's boot stack, the kernel's code, symbols, CFI and trap
 * frames. The benchmark (tests/bench/) walks with the same description. */
void panic_describe_kernel(struct tracer_config *config, struct tracer_trap_layout *trap,
			   uintptr_t sp);

/* Whether panic() has begun: a trap now is a fault while panicking. */
bool panic_in_progress(void);

/* For the trap handler, on a fault while panicking: prints "nested fault
 * while panicking: <cause> sepc=.. stval=..", then the frame-pointer trace
 * of the original panic, and powers off; a second fault powers off at once. */
_Noreturn void panic_nested_fault(uintptr_t cause, uintptr_t epc, uintptr_t tval);

/* Prints "panic: <message>", the backtrace from the caller, and powers off. */
_Noreturn void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* KERNEL_PANIC_H */
