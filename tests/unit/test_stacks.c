/*
 * test_stacks.c - walks over several declared stacks (config.stacks): the
 * stack a walk starts on, the switch across a trap frame, reads confined to
 * the current stack, loops between stacks, an sp overflowed below its
 * stack, an sp on no stack, and lists that declare none.
 *
 * The stacks are carved from one heap block, lowest first: TASK, IRQ, SPARE,
 * with poisoned gaps below and between them, so that AddressSanitizer
 * reports any read outside a stack. The task stack lies below the interrupt
 * stack, as nothing but a stack switch lets a walk go down: a walk that
 * treats the declared stacks as one region, or ignores the trap's switch,
 * fails these tests. Frame-pointer records, as in test_frame_pointer.c.
 */
#include <sanitizer/asan_interface.h>
#include <stdlib.h>
#include <string.h>

#include "fake_stack.h"
#include "harness.h"

#define STACK_WORDS 256
#define GAP_WORDS   8 /* below each stack: its guard, poisoned */
#define BLOCK_WORDS (STACK_KINDS * (GAP_WORDS + STACK_WORDS) + GAP_WORDS)

enum { TASK, IRQ, SPARE, STACK_KINDS };

struct stacks {
	struct fake_stack s; /* text, trap layout, config, regs and results */
	uintptr_t *block;
	struct tracer_range range[STACK_KINDS];		 /* by kind */
	struct tracer_range list[TRACER_MAX_STACKS + 2]; /* what config.stacks declares */
};

/* Address of word `index` of a stack; index STACK_WORDS is its top. */
static uintptr_t at(const struct stacks *t, int kind, size_t index)
{
	return t->range[kind].start + index * WORD;
}

static void put(uintptr_t addr, uintptr_t value)
{
	*(uintptr_t *)addr = value;
}

static void record(uintptr_t fp, uintptr_t caller_fp, uintptr_t ra)
{
	put(fp - 2 * WORD, caller_fp);
	put(fp - WORD, ra);
}

static void trap_frame(uintptr_t tf, uintptr_t pc, uintptr_t ra, uintptr_t sp,
		       uintptr_t s0)
{
	put(tf + TF_EPC * WORD, pc);
	put(tf + TF_RA * WORD, ra);
	put(tf + TF_SP * WORD, sp);
	put(tf + TF_S0 * WORD, s0);
	put(tf + TF_CAUSE * WORD, 5);
	put(tf + TF_TVAL * WORD, 0x10);
}

/* Declares the stacks of `kinds`, in that order. */
static void declare(struct stacks *t, const int *kinds, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		t->list[i] = t->range[kinds[i]];
	t->s.config.stacks = t->list;
	t->s.config.stack_count = count;
}

static void stacks_init(struct stacks *t)
{
	static const int all[] = {TASK, IRQ, SPARE};

	fake_stack_init(&t->s);
	fake_enable_traps(&t->s);
	t->block = aligned_alloc(16, BLOCK_WORDS * WORD);
	memset(t->block, 0, BLOCK_WORDS * WORD);
	ASAN_POISON_MEMORY_REGION(t->block, BLOCK_WORDS * WORD);
	for (int kind = 0; kind < STACK_KINDS; kind++) {
		uintptr_t *words =
		    t->block + GAP_WORDS + kind * (GAP_WORDS + STACK_WORDS);

		ASAN_UNPOISON_MEMORY_REGION(words, STACK_WORDS * WORD);
		t->range[kind].start = (uintptr_t)words;
		t->range[kind].end = (uintptr_t)(words + STACK_WORDS);
	}
	declare(t, all, STACK_KINDS);
}

static void stacks_free(struct stacks *t)
{
	ASAN_UNPOISON_MEMORY_REGION(t->block, BLOCK_WORDS * WORD);
	free(t->block);
	fake_stack_free(&t->s);
}

static bool frame_is(const struct stacks *t, size_t i, uintptr_t pc, uintptr_t sp)
{
	return t->s.frames[i].pc == pc && t->s.frames[i].sp == sp;
}

/*
 * On the interrupt stack: panic (fp IRQ 100) <- handler (fp IRQ 140, the
 * trap frame) <- trap entry. The trap frame holds the task's registers:
 * interrupted sp and s0 on the task stack, at `task_sp` and `task_fp`.
 */
static void build_interrupt(struct stacks *t, uintptr_t task_sp, uintptr_t task_fp)
{
	uintptr_t tf = at(t, IRQ, 140);

	record(at(t, IRQ, 100), tf, FAKE_TEXT_START + 0x500);
	record(tf, task_fp, FAKE_ENTRY_START + 0x40);
	trap_frame(tf, FAKE_TEXT_START + 0x600, FAKE_TEXT_START + 0x704, task_sp,
		   task_fp);
	t->s.regs.pc = FAKE_TEXT_START + 0x100;
	t->s.regs.ra = 0;
	t->s.regs.sp = at(t, IRQ, 90);
	t->s.regs.s[0] = at(t, IRQ, 100);
}

/*
 * The interrupted task: a GCC leaf (sp TASK 196, s0 TASK 200, only s0 saved;
 * ra live in the trap frame) <- its caller, whose frame address is the top
 * of the task stack, where the boot code's s0 = 0 is.
 */
static void build_task(struct stacks *t)
{
	put(at(t, TASK, 199), at(t, TASK, STACK_WORDS));
	record(at(t, TASK, STACK_WORDS), 0, FAKE_TEXT_START + 0x908);
}

/* The frames of build_interrupt + build_task, from the panic to the top. */
static bool interrupt_walk_is_complete(const struct stacks *t, size_t n)
{
	return n == 6 && t->s.stop == TRACER_STOP_OUTERMOST &&
	       frame_is(t, 0, FAKE_TEXT_START + 0x100, at(t, IRQ, 90)) &&
	       frame_is(t, 1, FAKE_TEXT_START + 0x500, at(t, IRQ, 100)) &&
	       frame_is(t, 2, FAKE_ENTRY_START + 0x40, at(t, IRQ, 140)) &&
	       frame_is(t, 3, FAKE_TEXT_START + 0x600, at(t, TASK, 196)) &&
	       t->s.frames[3].after_trap && !t->s.frames[3].is_return_address &&
	       t->s.frames[3].fp == at(t, TASK, 200) &&
	       frame_is(t, 4, FAKE_TEXT_START + 0x704, at(t, TASK, 200)) &&
	       frame_is(t, 5, FAKE_TEXT_START + 0x908, at(t, TASK, STACK_WORDS));
}

/* A one-entry list is the single stack of old: the walk stays on it, says
 * "outermost" at its top, and a trap frame whose sp is not above it on that
 * stack is a loop. Entries past stack_count are not declared. */
void stacks_one_entry_list(void)
{
	static const int task[] = {TASK};
	static const int irq[] = {IRQ};
	struct stacks t;

	stacks_init(&t);
	build_task(&t);
	declare(&t, task, 1);
	t.s.regs.pc = FAKE_TEXT_START + 0x600;
	t.s.regs.ra = FAKE_TEXT_START + 0x704;
	t.s.regs.sp = at(&t, TASK, 196);
	t.s.regs.s[0] = at(&t, TASK, 200);
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 2, FAKE_TEXT_START + 0x908, at(&t, TASK, STACK_WORDS)));
	/* Only the interrupt stack declared: the task's sp, below it, is an
	 * overflow of that stack, below the trap frame: no caller. */
	build_interrupt(&t, at(&t, TASK, 196), at(&t, TASK, 200));
	declare(&t, irq, 1);
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_NOT_ASCENDING);
	/* The task stack follows in the array, but the count says one. */
	t.list[1] = t.range[TASK];
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_NOT_ASCENDING);
	stacks_free(&t);
}

/* A walk from the interrupt stack crosses the trap frame to the task stack
 * (below it) and goes on to the task stack's top, whatever the order of the
 * list, with each unwinder that can (auto falls back to frame pointers). */
void stacks_interrupt_to_task(void)
{
	static const int orders[][STACK_KINDS] = {
	    {TASK, IRQ, SPARE}, {SPARE, IRQ, TASK}, {IRQ, SPARE, TASK}};
	struct stacks t;

	stacks_init(&t);
	build_interrupt(&t, at(&t, TASK, 196), at(&t, TASK, 200));
	build_task(&t);
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		declare(&t, orders[i], STACK_KINDS);
		CHECK(interrupt_walk_is_complete(&t, fake_walk(&t.s)));
		CHECK(interrupt_walk_is_complete(&t, fake_walk_with(&t.s, TRACER_AUTO)));
	}
	stacks_free(&t);
}

/* Without a trap frame, a frame record pointing into another declared stack
 * ends the walk: reads stay on the current stack, even where another stack
 * holds a valid record above. */
void stacks_reads_stay_on_current(void)
{
	struct stacks t;

	stacks_init(&t);
	record(at(&t, IRQ, 100), at(&t, SPARE, 100), FAKE_TEXT_START + 0x500);
	record(at(&t, SPARE, 100), at(&t, SPARE, STACK_WORDS), FAKE_TEXT_START + 0x600);
	record(at(&t, SPARE, STACK_WORDS), 0, FAKE_TEXT_START + 0x908);
	t.s.regs.pc = FAKE_TEXT_START + 0x100;
	t.s.regs.sp = at(&t, IRQ, 90);
	t.s.regs.s[0] = at(&t, IRQ, 100);
	CHECK(fake_walk(&t.s) == 2 && t.s.stop == TRACER_STOP_OUTSIDE_STACK);
	/* The same records walked from the spare stack are fine. */
	t.s.regs.sp = at(&t, SPARE, 90);
	t.s.regs.s[0] = at(&t, SPARE, 100);
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_OUTERMOST);
	stacks_free(&t);
}

/*
 * An interrupt handler that is a GCC leaf, reached from the trap entry by
 * tail calls: first frame (exact), ra still the trap entry's return
 * address, and the one word below its frame pointer is the interrupted
 * code's s0, on the task stack. The frame-pointer unwinder must read that
 * word as a frame address (of another declared stack), not as a return
 * address, to reach the trap frame and the task below it.
 */
void stacks_leaf_saves_other_stack_s0(void)
{
	struct stacks t;
	uintptr_t tf;

	stacks_init(&t);
	tf = at(&t, IRQ, 100);
	put(tf - WORD, at(&t, TASK, 200));
	trap_frame(tf, FAKE_TEXT_START + 0x600, FAKE_TEXT_START + 0x704,
		   at(&t, TASK, 196), at(&t, TASK, 200));
	build_task(&t);
	t.s.regs.pc = FAKE_TEXT_START + 0x100;
	t.s.regs.ra = FAKE_ENTRY_START + 0x40;
	t.s.regs.sp = at(&t, IRQ, 90);
	t.s.regs.s[0] = tf;
	CHECK(fake_walk(&t.s) == 5 && t.s.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 1, FAKE_ENTRY_START + 0x40, tf));
	CHECK(frame_is(&t, 2, FAKE_TEXT_START + 0x600, at(&t, TASK, 196)) &&
	      t.s.frames[2].after_trap);
	CHECK(frame_is(&t, 4, FAKE_TEXT_START + 0x908, at(&t, TASK, STACK_WORDS)));
	stacks_free(&t);
}

/* A trap frame on the task stack whose sp points back into the interrupt
 * stack, which the walk left: a loop, although that sp is above. */
void stacks_trap_back_to_left_stack(void)
{
	struct stacks t;
	uintptr_t second_tf;

	stacks_init(&t);
	second_tf = at(&t, TASK, 200);
	build_interrupt(&t, at(&t, TASK, 196), at(&t, TASK, 200));
	/* The interrupted code is the trap entry again (its live ra). */
	trap_frame(at(&t, IRQ, 140), FAKE_TEXT_START + 0x600, FAKE_ENTRY_START + 0x40,
		   at(&t, TASK, 196), at(&t, TASK, 200));
	put(at(&t, TASK, 199), at(&t, TASK, 220));
	trap_frame(second_tf, FAKE_TEXT_START + 0x100, 0, at(&t, IRQ, 90),
		   at(&t, IRQ, 100));
	CHECK(fake_walk(&t.s) == 5 && t.s.stop == TRACER_STOP_NOT_ASCENDING);
	CHECK(frame_is(&t, 4, FAKE_ENTRY_START + 0x40, second_tf));
	/* To the spare stack instead, left by no one: the walk goes on. */
	put(second_tf + TF_SP * WORD, at(&t, SPARE, 90));
	put(second_tf + TF_S0 * WORD, 0);
	CHECK(fake_walk(&t.s) == 6 && t.s.stop == TRACER_STOP_FP_ZERO);
	CHECK(frame_is(&t, 5, FAKE_TEXT_START + 0x100, at(&t, SPARE, 90)));
	stacks_free(&t);
}

/*
 * The task overflowed: the interrupted sp lies 16 bytes below the task
 * stack's start, in its guard, and the function's frame record (s0 = TASK
 * 4) inside it. The walk shows that frame from the trap frame's registers
 * and goes on on the task stack. An empty entry between the sp and the
 * task stack is no stack.
 */
void stacks_overflow_below_start(void)
{
	static const int with_empty[] = {IRQ, SPARE, TASK, SPARE};
	struct stacks t;
	uintptr_t below;

	stacks_init(&t);
	below = t.range[TASK].start - 16;
	build_interrupt(&t, below, at(&t, TASK, 4));
	record(at(&t, TASK, 4), at(&t, TASK, STACK_WORDS), FAKE_TEXT_START + 0x704);
	record(at(&t, TASK, STACK_WORDS), 0, FAKE_TEXT_START + 0x908);
	declare(&t, with_empty, 4);
	t.list[3].start = t.list[3].end = t.range[TASK].start - 8;
	CHECK(fake_walk(&t.s) == 6 && t.s.stop == TRACER_STOP_OUTERMOST);
	CHECK(frame_is(&t, 3, FAKE_TEXT_START + 0x600, below));
	CHECK(t.s.frames[3].after_trap && t.s.frames[3].fp == at(&t, TASK, 4));
	CHECK(frame_is(&t, 4, FAKE_TEXT_START + 0x704, at(&t, TASK, 4)));
	CHECK(frame_is(&t, 5, FAKE_TEXT_START + 0x908, at(&t, TASK, STACK_WORDS)));
	/* A walk that starts there, from the overflowed function itself. */
	t.s.regs.pc = FAKE_TEXT_START + 0x600;
	t.s.regs.sp = below;
	t.s.regs.s[0] = at(&t, TASK, 4);
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_OUTERMOST);
	stacks_free(&t);
}

/* sp above every stack: no stack to read. The first frame is shown from the
 * registers, and every unwinder stops there, even with s0 at a valid record.
 * An sp at a stack's very top still belongs to it. */
void stacks_sp_above_every_stack(void)
{
	struct stacks t;

	stacks_init(&t);
	record(at(&t, SPARE, 100), 0, FAKE_TEXT_START + 0x500);
	t.s.regs.pc = FAKE_TEXT_START + 0x100;
	t.s.regs.sp = t.range[SPARE].end + 16;
	t.s.regs.s[0] = at(&t, SPARE, 100);
	for (int unwinder = 0; unwinder < TRACER_UNWINDER_COUNT; unwinder++) {
		CHECK(fake_walk_with(&t.s, (enum tracer_unwinder)unwinder) == 1);
		CHECK(t.s.stop == TRACER_STOP_OUTSIDE_STACK);
		CHECK(frame_is(&t, 0, FAKE_TEXT_START + 0x100, t.range[SPARE].end + 16));
	}
	t.s.regs.sp = t.range[SPARE].end;
	t.s.regs.s[0] = 0;
	CHECK(fake_walk(&t.s) == 1 && t.s.stop == TRACER_STOP_OUTERMOST);
	stacks_free(&t);
}

/* No stack declared (NULL, or a count of 0), or the only stack that holds sp
 * past TRACER_MAX_STACKS: the first frame, then OUTSIDE_STACK. */
void stacks_none_declared(void)
{
	struct stacks t;

	stacks_init(&t);
	build_task(&t);
	t.s.regs.pc = FAKE_TEXT_START + 0x600;
	t.s.regs.ra = FAKE_TEXT_START + 0x704;
	t.s.regs.sp = at(&t, TASK, 196);
	t.s.regs.s[0] = at(&t, TASK, 200);
	t.s.config.stacks = NULL;
	t.s.config.stack_count = 3;
	CHECK(fake_walk(&t.s) == 1 && t.s.stop == TRACER_STOP_OUTSIDE_STACK);
	t.s.config.stacks = t.list;
	t.s.config.stack_count = 0;
	CHECK(fake_walk(&t.s) == 1 && t.s.stop == TRACER_STOP_OUTSIDE_STACK);
	/* Entries 0 to 16 empty, the task stack at 17: ignored. */
	for (unsigned i = 0; i <= TRACER_MAX_STACKS; i++)
		t.list[i].start = t.list[i].end = 0;
	t.list[TRACER_MAX_STACKS + 1] = t.range[TASK];
	t.s.config.stack_count = TRACER_MAX_STACKS + 2;
	CHECK(fake_walk(&t.s) == 1 && t.s.stop == TRACER_STOP_OUTSIDE_STACK);
	/* At 15, the last one looked at, it counts. */
	t.list[TRACER_MAX_STACKS - 1] = t.range[TASK];
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_OUTERMOST);
	stacks_free(&t);
}

/* A word of the trap frame past the fake layout's: the saved status, where
 * a test declares one. */
#define TF_STATUS TF_WORDS

/*
 * Which field of the saved status says "from user mode" follows the
 * layout's mode: sstatus.SPP (bit 8) in S-mode, mstatus.MPP (bits 11-12)
 * in M-mode. A trap from user mode ends the walk after the interrupted
 * frame; one from the kernel goes on to the task stack's top.
 */
void stacks_trap_mode_status(void)
{
	const uintptr_t spp = (uintptr_t)1 << 8, mpp_machine = (uintptr_t)3 << 11;
	static const struct {
		uint8_t mode;
		uintptr_t status;
		bool from_user;
	} cases[] = {
	    {TRACER_TRAP_SUPERVISOR, 1u << 8, false},
	    {TRACER_TRAP_SUPERVISOR, 3u << 11, true},
	    {TRACER_TRAP_MACHINE, 3u << 11, false},
	    {TRACER_TRAP_MACHINE, 1u << 11, false},
	    {TRACER_TRAP_MACHINE, 1u << 8, true},
	    {TRACER_TRAP_MACHINE, 0, true},
	};
	struct stacks t;

	stacks_init(&t);
	build_interrupt(&t, at(&t, TASK, 196), at(&t, TASK, 200));
	build_task(&t);
	t.s.trap.status_offset = TF_STATUS * WORD;
	CHECK(spp == 1u << 8 && mpp_machine == 3u << 11);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n;

		t.s.trap.mode = cases[i].mode;
		put(at(&t, IRQ, 140) + TF_STATUS * WORD, cases[i].status);
		n = fake_walk(&t.s);
		if (cases[i].from_user)
			CHECK(
			    n == 4 && t.s.stop == TRACER_STOP_USER_ENTRY &&
			    frame_is(&t, 3, FAKE_TEXT_START + 0x600, at(&t, TASK, 196)));
		else
			CHECK(interrupt_walk_is_complete(&t, n));
	}
	stacks_free(&t);
}

/*
 * An RTOS-style entry: it saves the trap frame on the task stack, then
 * moves sp to the top of the interrupt stack and calls its handler. The
 * handler's frames are on the interrupt stack; config.trap_frame says where
 * the frame is. Without it, the walk looks for the frame at the handler's
 * sp (the interrupt stack's top) and stops there; a frame on no declared
 * stack is not read.
 */
void stacks_trap_frame_elsewhere(void)
{
	static uintptr_t nowhere[TF_WORDS];
	struct stacks t;
	uintptr_t tf;

	stacks_init(&t);
	tf = at(&t, TASK, 170);
	record(at(&t, IRQ, 100), at(&t, IRQ, STACK_WORDS), FAKE_TEXT_START + 0x500);
	record(at(&t, IRQ, STACK_WORDS), 0x1230, FAKE_ENTRY_START + 0x40);
	trap_frame(tf, FAKE_TEXT_START + 0x600, FAKE_TEXT_START + 0x704,
		   at(&t, TASK, 196), at(&t, TASK, 200));
	build_task(&t);
	t.s.regs.pc = FAKE_TEXT_START + 0x100;
	t.s.regs.sp = at(&t, IRQ, 90);
	t.s.regs.s[0] = at(&t, IRQ, 100);
	t.s.config.trap_frame = tf;
	CHECK(fake_walk(&t.s) == 6 && t.s.stop == TRACER_STOP_OUTERMOST &&
	      frame_is(&t, 2, FAKE_ENTRY_START + 0x40, at(&t, IRQ, STACK_WORDS)) &&
	      frame_is(&t, 3, FAKE_TEXT_START + 0x600, at(&t, TASK, 196)) &&
	      t.s.frames[3].after_trap && t.s.frames[3].trap_cause == 5 &&
	      frame_is(&t, 5, FAKE_TEXT_START + 0x908, at(&t, TASK, STACK_WORDS)));
	t.s.config.trap_frame = 0;
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_OUTSIDE_STACK);
	t.s.config.trap_frame = (uintptr_t)nowhere;
	CHECK(fake_walk(&t.s) == 3 && t.s.stop == TRACER_STOP_OUTSIDE_STACK);
	stacks_free(&t);
}

/* An entry that saved epc + 4 for exceptions (FreeRTOS returns past an
 * ecall so): the walk takes 4 off for an exception, not for an interrupt,
 * and not from the CSRs read at panic time. */
void stacks_exception_epc_added(void)
{
	const uintptr_t interrupt = (uintptr_t)1 << (8 * sizeof(uintptr_t) - 1);
	struct tracer_trap_csrs csrs;
	struct stacks t;
	uintptr_t tf;

	stacks_init(&t);
	csrs = (struct tracer_trap_csrs){FAKE_TEXT_START + 0x600, 5, 0x10};
	build_interrupt(&t, at(&t, TASK, 196), at(&t, TASK, 200));
	build_task(&t);
	tf = at(&t, IRQ, 140);
	t.s.trap.exception_epc_added = 4;
	put(tf + TF_EPC * WORD, FAKE_TEXT_START + 0x604);
	CHECK(interrupt_walk_is_complete(&t, fake_walk(&t.s)));
	put(tf + TF_EPC * WORD, FAKE_TEXT_START + 0x600);
	put(tf + TF_CAUSE * WORD, interrupt | 7);
	CHECK(interrupt_walk_is_complete(&t, fake_walk(&t.s)) &&
	      t.s.frames[3].trap_cause == (interrupt | 7));
	/* Not saved: epc is the CSR's, as the hart reported it. */
	t.s.trap.epc_offset = TRACER_TRAP_NOT_SAVED;
	t.s.trap.cause_offset = TRACER_TRAP_NOT_SAVED;
	t.s.config.trap_csrs = &csrs;
	CHECK(interrupt_walk_is_complete(&t, fake_walk(&t.s)));
	stacks_free(&t);
}

/* A task's first function, started by a context restore with ra = 0: the
 * walk ends there at the outermost frame if the function is a declared
 * task entry, and as before (ra 0 is outside the text) if it is not. */
void stacks_task_entry_outermost(void)
{
	struct tracer_range entries[2];
	struct stacks t;

	stacks_init(&t);
	record(at(&t, TASK, 200), 0, 0);
	t.s.regs.pc = FAKE_TEXT_START + 0x600;
	t.s.regs.sp = at(&t, TASK, 196);
	t.s.regs.s[0] = at(&t, TASK, 200);
	entries[0] =
	    (struct tracer_range){FAKE_TEXT_START + 0x100, FAKE_TEXT_START + 0x200};
	entries[1] =
	    (struct tracer_range){FAKE_TEXT_START + 0x5f0, FAKE_TEXT_START + 0x680};
	CHECK(fake_walk(&t.s) == 1 && t.s.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	t.s.config.task_entries = entries;
	t.s.config.task_entry_count = 1;
	CHECK(fake_walk(&t.s) == 1 && t.s.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	t.s.config.task_entry_count = 2;
	CHECK(fake_walk(&t.s) == 1 && t.s.stop == TRACER_STOP_OUTERMOST);
	CHECK(fake_walk_with(&t.s, TRACER_AUTO) == 1 &&
	      t.s.stop == TRACER_STOP_OUTERMOST);
	/* A return address that is not 0 is a caller's, task entry or not. */
	record(at(&t, TASK, 200), 0, FAKE_TEXT_START + 0x908);
	CHECK(fake_walk(&t.s) == 2 && t.s.stop == TRACER_STOP_FP_ZERO);
	stacks_free(&t);
}
