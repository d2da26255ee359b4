/*
 * panic.c - the panic path: message, backtrace, power off. A fault while
 * panicking (a bad pointer in the message, say) gets one more, simpler
 * trace of the original panic; a fault in that one powers off at once.
 */
#include "panic.h"

#include <stdarg.h>
#include <stdbool.h>

#include "console.h"
#include "layout.h"
#include "sbi.h"

/* Provided by the linker script, the boot code and symgen. */
extern char __text_start[], __text_end[];
extern char __stacks_start[], __stacks_end[];
extern char trap_entry[], trap_entry_end[];
extern const struct tracer_symtab tracer_symtab;
extern const struct tracer_fde_index tracer_fde_index;
extern char __eh_frame_start[], __eh_frame_end[];
extern char __tracer_symtab_start[], __tracer_symtab_end[];

static enum tracer_unwinder panic_unwinder = TRACER_AUTO;

/* How far the panic path has come. Volatile: a trap handler reads it. */
enum panic_stage {
	PANIC_NONE,
	PANIC_REPORTING, /* printing the message and the trace */
	PANIC_FALLBACK,	 /* a fault interrupted that: the simpler trace */
};
static volatile enum panic_stage panic_stage;
/* Where the first panic() was called: the fallback trace starts there. Its
 * frame lives on, below the fault's: panic() never returns. */
static const struct tracer_regs *panic_regs;

void panic_use_unwinder(enum tracer_unwinder unwinder)
{
	panic_unwinder = unwinder;
}

/* What the tracer may read: this hart's boot stack (found from sp), and
 * where our code, symbols, call-frame information and trap frames are. */
void panic_describe_kernel(struct tracer_config *config, struct tracer_trap_layout *trap,
			   uintptr_t sp)
{
	/* The walk keeps a pointer to its list: one entry per hart, so that
	 * harts panicking at once do not share it. */
	static struct tracer_range hart_stack[HART_COUNT];
	uintptr_t stacks = (uintptr_t)__stacks_start;

	trap->entry.start = (uintptr_t)trap_entry;
	trap->entry.end = (uintptr_t)trap_entry_end;
	trap->epc_offset = TF_SEPC;
	trap->ra_offset = TF_REG(1);
	trap->sp_offset = TF_REG(2);
	/* s0, s1 are x8, x9; s2-s11 are x18-x27. */
	for (unsigned i = 0; i < 12; i++)
		trap->s_offset[i] = TF_REG(i < 2 ? 8 + i : 16 + i);
	trap->cause_offset = TF_SCAUSE;
	trap->tval_offset = TF_STVAL;

	config->text.start = (uintptr_t)__text_start;
	config->text.end = (uintptr_t)__text_end;
	if (sp > stacks && sp <= (uintptr_t)__stacks_end) {
		/* sp == a stack's top still belongs to that stack. */
		uintptr_t hart = (sp - stacks - 1) / STACK_SIZE;

		hart_stack[hart].start = stacks + hart * STACK_SIZE;
		hart_stack[hart].end = hart_stack[hart].start + STACK_SIZE;
		config->stacks = &hart_stack[hart];
		config->stack_count = 1;
	} else {
		/* sp is on no boot stack: declare none, so that the walk stops
		 * at once instead of reading wherever sp points. */
		config->stacks = NULL;
		config->stack_count = 0;
	}
	config->symtab = &tracer_symtab;
	config->eh_frame.start = (uintptr_t)__eh_frame_start;
	config->eh_frame.end = (uintptr_t)__eh_frame_end;
	config->fde_index = &tracer_fde_index;
	config->tables.start = (uintptr_t)__tracer_symtab_start;
	config->tables.end = (uintptr_t)__tracer_symtab_end;
	config->trap = trap;
	config->max_depth = 0;
}

static void print_backtrace(const struct tracer_regs *regs, enum tracer_unwinder unwinder)
{
	struct tracer_config config;
	struct tracer_trap_layout trap;
	struct tracer_walk walk;
	struct tracer_frame frame;
	char line[TRACER_LINE_MAX];

	panic_describe_kernel(&config, &trap, regs->sp);
	kprintf("%s\n", tracer_format_header(line, sizeof(line), unwinder));
	tracer_start(&walk, unwinder, &config, regs);
	if (tracer_format_note(line, sizeof(line), &walk))
		kprintf("%s\n", line);
	while (tracer_next(&walk, &frame)) {
		if (frame.after_trap)
			kprintf("%s\n", tracer_format_trap(line, sizeof(line), &frame));
		kprintf("%s\n", tracer_format_frame(line, sizeof(line), &frame));
	}
	kprintf("%s\n", tracer_format_end(line, sizeof(line), walk.stop));
}

bool panic_in_progress(void)
{
	return panic_stage != PANIC_NONE;
}

void panic_nested_fault(uintptr_t cause, uintptr_t epc, uintptr_t tval)
{
	if (panic_stage == PANIC_FALLBACK)
		sbi_shutdown(true);
	panic_stage = PANIC_FALLBACK;
	/* The newline ends whatever line the fault cut short. */
	kprintf("\nnested fault while panicking: %s sepc=0x%lx stval=0x%lx\n",
		tracer_trap_cause_name(cause), (unsigned long)epc, (unsigned long)tval);
	/* The frame-pointer walk needs the least: no CFI, no decoding. */
	print_backtrace(panic_regs, TRACER_FRAME_POINTER);
	sbi_shutdown(true);
}

void panic(const char *fmt, ...)
{
	struct tracer_regs regs;
	va_list args;

	/* First, before any call changes sp or ra: the trace starts here. */
	TRACER_CAPTURE_REGS(&regs);
	/* No interrupt may cut the report short (sstatus.SIE, bit 1). */
	__asm__ volatile("csrci sstatus, 2" ::: "memory");
	/* A panic() called while panicking would report again, and again. */
	if (panic_stage != PANIC_NONE) {
		kputs("\npanic: nested panic, giving up\n");
		sbi_shutdown(true);
	}
	panic_stage = PANIC_REPORTING;
	panic_regs = &regs;
	kputs("panic: ");
	va_start(args, fmt);
	kvprintf(fmt, args);
	va_end(args);
	kputs("\n");
	print_backtrace(&regs, panic_unwinder);
	sbi_shutdown(true);
}
