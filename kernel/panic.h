/*
 * panic.h - stop the kernel with a message and a backtrace.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include "tracer.h"

/* Whether this kernel links the unwinder (make UNWINDERS=...; auto: always). */
bool panic_links_unwinder(enum tracer_unwinder unwinder);
/* The unwinder panic() uses (tracer=... on the command line). */
void panic_use_unwinder(enum tracer_unwinder unwinder);
/* tracer=all: each linked unwinder in turn, auto first. */
void panic_use_every_unwinder(void);

/* Fills *config (and *trap, which it points to) with what a walk on this
 * hart may read: its stacks, the kernel's code, symbols, CFI and trap
 * frames. The benchmark (tests/bench/) walks with the same description. */
void panic_describe_kernel(struct tracer_config *config, struct tracer_trap_layout *trap);

/* Whether panic() has begun on this hart: a trap now is a fault while
 * panicking. */
bool panic_in_progress(void);

/* Whether another hart's panic asks this one to stop (its IPI). */
bool panic_stop_requested(void);

/* For the IPI handler, once a panic asked to stop: prints this hart's
 * backtrace from the interrupted registers when its turn comes, and stops. */
_Noreturn void panic_stop_this_hart(const struct tracer_regs *interrupted);

/* For the trap handler, on a fault while panicking: prints "nested fault
 * while panicking: <cause> sepc=.. stval=..", then the frame-pointer trace
 * of the original panic, and ends this hart's report (the first hart to
 * panic powers off); a second fault ends it at once. */
_Noreturn void panic_nested_fault(uintptr_t cause, uintptr_t epc, uintptr_t tval);

/* Prints "panic: <message>", the backtrace from the caller, the other
 * harts' backtraces, and powers off. On a hart that is not the first to
 * panic: its backtrace, under "Backtrace of hart N (it panicked too: ...)",
 * when the first one asks for it. */
_Noreturn void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* KERNEL_PANIC_H */
