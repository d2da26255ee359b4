/*
 * panic.c - the panic path: message, backtrace, the other harts' backtraces,
 * power off.
 *
 * Whatever state the kernel is in, the report comes first:
 *   - panic() masks interrupts, then prints from this hart's panic stack,
 *     which has room for any unwinder however little the stack it was called
 *     on has left (the trace still starts where panic() was called). Called
 *     on the panic stack already (a trap moved there, a panic in code run
 *     there), it prints below its own frame if what is left holds the
 *     unwinder asked for, else from this hart's reserve stack, which does;
 *     called on the reserve (code someone ran there), below its own frame,
 *     with the unwinder asked for or one that fits, saying so;
 *   - the first hart to panic (an atomic claim) prints "panic: ..." and its
 *     trace, then stops the others with an IPI and lets each print its own
 *     backtrace in turn, under a "Backtrace of hart N (...)" line; a hart
 *     that panics meanwhile prints its backtrace when its turn comes. Every
 *     wait is bounded: a hart that does not answer is named, not waited for;
 *   - a fault while panicking gets one more, simpler trace of the original
 *     panic (frame pointers only); a fault in that one ends this hart's
 *     report at once.
 */
#include "panic.h"

#include <stdarg.h>
#include <stdbool.h>

#include "console.h"
#include "hart.h"
#include "kstring.h"
#include "layout.h"
#include "poweroff.h"
#include "sbi.h"
#include "smp.h"
#include "timer.h"
#include "tracer_embedded.h"

/* Provided by the linker script, the boot code and symgen. */
extern char __text_start[], __text_end[];
extern char trap_entry[], trap_entry_end[];

#define NO_HART (~0ul)
/* How long the first hart waits for each other one to print its backtrace,
 * and how long the others wait for their turn (all of the first one's
 * waits, and more). */
#define STOP_WAIT TIMEBASE_HZ
#define TURN_WAIT ((HART_COUNT + 2) * TIMEBASE_HZ)

/* How far a hart's panic path has come. */
enum panic_stage {
	PANIC_NONE,
	PANIC_REPORTING, /* printing its message and trace */
	PANIC_FALLBACK,	 /* a fault interrupted that: the simpler trace */
};

/* Each hart's. Volatile: its trap handler, and the first hart, read them. */
static struct {
	volatile enum panic_stage stage;
	/* Where its trace starts: where it called panic(), or where the IPI
	 * stopped it. The frame holding them lives on: nothing returns. */
	const struct tracer_regs *volatile regs;
	volatile bool done; /* its backtrace is printed */
} panic_harts[HART_COUNT];

static unsigned long panic_owner = NO_HART; /* the first hart to panic */
static volatile unsigned long backtrace_turn = NO_HART;
static volatile bool stop_requested;

/* What a hart prints, from its panic stack. */
struct panic_report {
	const struct tracer_regs *regs; /* where its trace starts */
	const char *fmt; /* the message; NULL: stopped by another hart's panic */
	va_list args;
	uintptr_t stack_left; /* on the stack it prints from */
};

/*
 * What printing a report takes of the panic stack besides the tracer's own
 * figures (tracer.h: the unwinder's TRACER_STACK_*, plus TRACER_STACK_PRINT
 * for tracer_print_backtrace()): the frames of this file and console.c on
 * the way, print_report, print_trace and print_backtrace, then put_line
 * down to the firmware call. tests/stack_usage.py measures them with GCC at
 * -O0, -O2 and -Os, with and without frame pointers: 912 bytes at most
 * (-O0; print_backtrace holds a struct tracer_config); clang 14 -O2: no
 * more (-fstack-usage). Rounded up.
 */
#define PANIC_OWN_STACK 928u

/*
 * tracer.h's figures are GCC -O2's. Unoptimized code keeps its locals in
 * its frames: tests/stack_usage.py measures the tracer's deepest report
 * path at -O0 within 9/5 of them (DWARF's 3,408 bytes against 1,952).
 */
#ifdef __OPTIMIZE__
#define TRACER_FIGURE(bytes) (bytes)
#else
#define TRACER_FIGURE(bytes) (9 * (bytes) / 5)
#endif

/* The room each unwinder needs; the last two are the fallbacks, in order. */
static const struct {
	enum tracer_unwinder unwinder;
	uintptr_t stack;
} unwinder_stacks[] = {
    {TRACER_AUTO, TRACER_STACK_AUTO},
    {TRACER_DWARF, TRACER_STACK_DWARF},
    {TRACER_TABLE, TRACER_STACK_DWARF}, /* its interpreted rows: DWARF's */
    {TRACER_PROLOGUE, TRACER_STACK_PROLOGUE},
    {TRACER_FRAME_POINTER, TRACER_STACK_FRAME_POINTER},
};
#define UNWINDER_COUNT (sizeof(unwinder_stacks) / sizeof(unwinder_stacks[0]))
#define FIRST_FALLBACK (UNWINDER_COUNT - 2)

/* The reserve holds a report with any unwinder (auto's figure is the largest). */
_Static_assert(RESERVE_STACK_SIZE >=
		   TRACER_FIGURE(TRACER_STACK_AUTO + TRACER_STACK_PRINT) +
		       PANIC_OWN_STACK,
	       "layout.h: RESERVE_STACK_SIZE");

static enum tracer_unwinder panic_unwinder = TRACER_AUTO;
/* What a report with it takes of a stack (stack_needed()): panic() reads it
 * without a call, on a stack that may have little left. */
static uintptr_t panic_stack_needed =
    TRACER_FIGURE(TRACER_STACK_AUTO + TRACER_STACK_PRINT) + PANIC_OWN_STACK;

static uintptr_t stack_needed(enum tracer_unwinder unwinder)
{
	for (unsigned i = 0; i < UNWINDER_COUNT; i++)
		if (unwinder_stacks[i].unwinder == unwinder)
			return TRACER_FIGURE(unwinder_stacks[i].stack +
					     TRACER_STACK_PRINT) +
			       PANIC_OWN_STACK;
	return 0;
}

/* Whether this kernel links the unwinder (tracer.h, TRACER_LINKS_*): auto
 * uses those it links. */
bool panic_links_unwinder(enum tracer_unwinder unwinder)
{
	switch (unwinder) {
	case TRACER_FRAME_POINTER:
		return TRACER_LINKS_FRAME_POINTER;
	case TRACER_DWARF:
		return TRACER_LINKS_DWARF;
	case TRACER_PROLOGUE:
		return TRACER_LINKS_PROLOGUE;
	case TRACER_TABLE:
		return TRACER_LINKS_TABLE;
	default:
		return true;
	}
}

/* tracer=all: a trace with each unwinder this kernel links, in turn, of
 * the same registers (to compare them on one panic). */
static bool panic_every_unwinder;

void panic_use_unwinder(enum tracer_unwinder unwinder)
{
	panic_unwinder = unwinder;
	panic_stack_needed = stack_needed(unwinder);
}

void panic_use_every_unwinder(void)
{
	panic_use_unwinder(TRACER_AUTO); /* its stack figure is the largest */
	panic_every_unwinder = true;
}

/* What the tracer may read: this hart's stacks, and where our code, symbols,
 * call-frame information and trap frames are. */
void panic_describe_kernel(struct tracer_config *config, struct tracer_trap_layout *trap)
{
	/* Whole, as a designated initializer sets it: a field left out is 0
	 * (an S-mode entry that saves epc as it was), not what was there. */
	*trap = (struct tracer_trap_layout){
	    .entry = {(uintptr_t)trap_entry, (uintptr_t)trap_entry_end},
	    .epc_offset = TF_SEPC,
	    .ra_offset = TF_REG(1),
	    .sp_offset = TF_REG(2),
	    .cause_offset = TF_SCAUSE,
	    .tval_offset = TF_STVAL,
	    .status_offset = TF_SSTATUS,
	    .frame_size = 0, /* the interrupted sp is saved */
	    .mode = TRACER_TRAP_SUPERVISOR,
	};
	/* s0, s1 are x8, x9; s2-s11 are x18-x27. */
	for (unsigned i = 0; i < 12; i++)
		trap->s_offset[i] = TF_REG(i < 2 ? 8 + i : 16 + i);

	/* As a port does (tracer_embedded.h); the trap entry saves the CSRs,
	 * and no code is entered from user mode. */
	*config = (struct tracer_config){
	    TRACER_EMBEDDED_TABLES,
	    .text = {(uintptr_t)__text_start, (uintptr_t)__text_end},
	    .stacks = this_hart()->stacks,
	    .stack_count = HART_STACK_TYPES,
	    .trap = trap,
	    .fault_report = true,
	};
}

/* Each line the tracer prints starts a line of its own: another hart may
 * have printed a piece of one since. */
static void put_line(void *context, const char *line)
{
	(void)context;
	console_lock();
	console_start_line();
	kprintf("%s\n", line);
	console_unlock();
}

static void print_backtrace(const struct tracer_regs *regs, enum tracer_unwinder unwinder)
{
	struct tracer_config config;
	struct tracer_trap_layout trap;

	panic_describe_kernel(&config, &trap);
	tracer_print_backtrace(&config, regs, unwinder, put_line, NULL);
}

static bool is_first(unsigned long id)
{
	return __atomic_load_n(&panic_owner, __ATOMIC_SEQ_CST) == id;
}

/* This hart's report is over: the first hart powers off; another one says
 * it is done and stays stopped until the first one powers off. */
static _Noreturn void finish(unsigned long id)
{
	if (is_first(id))
		poweroff_after_panic();
	panic_harts[id].done = true;
	for (;;)
		__asm__ volatile("wfi");
}

bool panic_in_progress(void)
{
	return panic_harts[this_hart()->id].stage != PANIC_NONE;
}

bool panic_stop_requested(void)
{
	return stop_requested;
}

void panic_nested_fault(uintptr_t cause, uintptr_t epc, uintptr_t tval)
{
	unsigned long id = this_hart()->id;

	if (panic_harts[id].stage == PANIC_FALLBACK)
		finish(id);
	panic_harts[id].stage = PANIC_FALLBACK;
	console_begin_report(); /* the fault may have cut a line short */
	/* The newline ends whatever line the fault cut short. */
	kprintf("\nnested fault while panicking: %s sepc=0x%lx stval=0x%lx\n",
		tracer_trap_cause_name(cause), (unsigned long)epc, (unsigned long)tval);
	/* The frame-pointer walk needs the least: no CFI, no decoding; a
	 * kernel without it walks with those it links. */
	print_backtrace(panic_harts[id].regs,
			TRACER_LINKS_FRAME_POINTER ? TRACER_FRAME_POINTER : TRACER_AUTO);
	finish(id);
}

/* The first hart, after its own trace: each other hart in turn prints its
 * backtrace, stopped by an IPI where it was, or from its own panic(). */
static void stop_other_harts(unsigned long me)
{
	unsigned long others = smp_online_mask() & ~(1ul << me);

	if (!others)
		return;
	stop_requested = true;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	sbi_send_ipi(others);
	for (unsigned long id = 0; id < HART_COUNT; id++) {
		unsigned long start = time_now();

		if (!(others >> id & 1))
			continue;
		backtrace_turn = id;
		while (!panic_harts[id].done && time_now() - start < STOP_WAIT)
			;
		if (!panic_harts[id].done)
			kprintf("Hart %lu did not stop within 1 s: no backtrace\n", id);
	}
}

/* Another hart: wait until the first one gives us the turn. If it never
 * does, it is stuck: print anyway, then power off ourselves. */
static void wait_for_turn(unsigned long me)
{
	unsigned long start = time_now();

	while (backtrace_turn != me)
		if (time_now() - start > TURN_WAIT)
			return;
}

/* Prints the backtrace with panic_unwinder if `stack_left` holds it; else
 * (only on the reserve: see REPORT_FROM_A_STACK_WITH_ROOM) says so, and uses
 * a fallback that fits, if one does. */
static void print_trace(const struct panic_report *report)
{
	uintptr_t needed = panic_stack_needed;

	if (report->stack_left >= needed) {
		print_backtrace(report->regs, panic_unwinder);
		return;
	}
	kprintf("reserve stack: %lu bytes left, the %s unwinder needs %lu: ",
		(unsigned long)report->stack_left, tracer_unwinder_name(panic_unwinder),
		(unsigned long)needed);
	for (unsigned i = FIRST_FALLBACK; i < UNWINDER_COUNT; i++) {
		enum tracer_unwinder fallback = unwinder_stacks[i].unwinder;

		if (panic_links_unwinder(fallback) &&
		    report->stack_left >= stack_needed(fallback)) {
			kprintf("the %s unwinder instead (%lu)\n",
				tracer_unwinder_name(fallback),
				(unsigned long)stack_needed(fallback));
			print_backtrace(report->regs, fallback);
			return;
		}
	}
	kputs("too few for any: no backtrace\n");
}

/* tracer=all: after a trace, the next unwinder linked, in unwinder_stacks'
 * order; false after the last (or with one unwinder asked for). Out of
 * print_trace, so that the report's deepest path is the same either way. */
static bool next_unwinder(void)
{
	unsigned i = 0;

	if (!panic_every_unwinder)
		return false;
	while (i < UNWINDER_COUNT && unwinder_stacks[i].unwinder != panic_unwinder)
		i++;
	while (++i < UNWINDER_COUNT) {
		if (panic_links_unwinder(unwinder_stacks[i].unwinder)) {
			panic_use_unwinder(unwinder_stacks[i].unwinder);
			return true;
		}
	}
	return false;
}

/* On the panic stack: claim the panic, or wait for the turn, and print. */
static _Noreturn void print_report(void *arg)
{
	struct panic_report *report = arg;
	unsigned long me = this_hart()->id;
	unsigned long no_hart = NO_HART;

	/* A panic() called while panicking would report again, and again. */
	if (panic_harts[me].stage != PANIC_NONE) {
		kputs("\nnested panic while panicking, giving up\n");
		finish(me);
	}
	panic_harts[me].stage = PANIC_REPORTING;
	panic_harts[me].regs = report->regs;
	console_begin_report();
	if (report->fmt)
		__atomic_compare_exchange_n(&panic_owner, &no_hart, me, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	if (is_first(me)) {
		console_lock();
		console_start_line();
		kputs("panic: ");
		kvprintf(report->fmt, report->args);
		kputs("\n");
		if (smp_online_mask() != 1ul << me)
			kprintf("Backtrace of hart %lu (the first to panic):\n", me);
		console_unlock();
		do
			print_trace(report);
		while (next_unwinder());
		stop_other_harts(me);
		poweroff_after_panic();
	}
	wait_for_turn(me);
	console_lock();
	console_start_line();
	if (report->fmt) {
		kprintf("Backtrace of hart %lu (it panicked too: ", me);
		kvprintf(report->fmt, report->args);
		kputs("):\n");
	} else {
		kprintf("Backtrace of hart %lu (stopped by the panic on hart %lu):\n", me,
			__atomic_load_n(&panic_owner, __ATOMIC_SEQ_CST));
	}
	console_unlock();
	do
		print_trace(report);
	while (next_unwinder());
	if (backtrace_turn != me)
		poweroff_after_panic(); /* the first hart is stuck: see wait_for_turn */
	finish(me);
}

/*
 * Prints the report from a stack with room for it: the panic stack's top;
 * if panic() runs on the panic stack already (a trap moved there, a panic
 * in code run there), below its own frame, if what is left holds the
 * report, else the reserve's top; on the reserve (code run there: a report
 * that started there panics no further), below its own frame, whatever is
 * left (print_trace() picks what fits). The trace starts from the registers
 * captured on the old stack all the same. A macro, not a function: panic()
 * uses it, and nothing but panic()'s own frame may take the old stack, so
 * that a panic with 256 bytes of stack left still works (even at -O0).
 */
#define REPORT_FROM_A_STACK_WITH_ROOM(report)                                            \
	do {                                                                             \
		const struct tracer_range *stacks = this_hart()->stacks;                 \
		const struct tracer_range *to = &stacks[HART_PANIC];                     \
		uintptr_t sp;                                                            \
                                                                                         \
		__asm__ volatile("mv %0, sp" : "=r"(sp));                                \
		if (sp > to->start && sp <= to->end) {                                   \
			if (sp - to->start >= panic_stack_needed) {                      \
				(report)->stack_left = sp - to->start;                   \
				print_report(report);                                    \
			}                                                                \
			to = &stacks[HART_RESERVE];                                      \
		} else if (sp > stacks[HART_RESERVE].start &&                            \
			   sp <= stacks[HART_RESERVE].end) {                             \
			(report)->stack_left = sp - stacks[HART_RESERVE].start;          \
			print_report(report);                                            \
		}                                                                        \
		(report)->stack_left = to->end - to->start;                              \
		call_on_stack(print_report, report, to->end);                            \
	} while (0)

void panic_stop_this_hart(const struct tracer_regs *interrupted)
{
	struct panic_report report = {interrupted, NULL, NULL, 0};

	REPORT_FROM_A_STACK_WITH_ROOM(&report);
	poweroff_after_panic(); /* print_report does not return */
}

void panic(const char *fmt, ...)
{
	struct tracer_regs regs;
	struct panic_report report;

	/* First, before any call changes sp or ra: the trace starts here. */
	TRACER_CAPTURE_REGS(&regs);
	/* No interrupt may cut the report short (sstatus.SIE, bit 1). */
	__asm__ volatile("csrci sstatus, 2" ::: "memory");
	report.regs = &regs;
	report.fmt = fmt;
	va_start(report.args, fmt);
	REPORT_FROM_A_STACK_WITH_ROOM(&report);
	poweroff_after_panic(); /* print_report does not return */
}
