/*
 * test_frame_pointer.c - the frame-pointer unwinder on synthetic stacks. Each test
 * lays out frame records by hand the way the prologues do (tracer/
 * frame_pointer.c) and checks every frame and the stop reason.
 */
#include <stdlib.h>

#include "fake_stack.h"
#include "harness.h"
#include "prologue.h"

/*
 * The fake text, as the check every unwinder makes of a return address
 * (it must follow a call) sees it: every even address follows c.jalr ra,
 * nothing before the block is read, and the helpers place other code.
 */
void fp_fake_text_follows_calls(void)
{
	struct fake_stack s;
	uintptr_t ra;

	fake_stack_init(&s);
	ra = FAKE_TEXT_START + 0x204;
	CHECK(code_follows_call(&s.config, FAKE_TEXT_START + 2, WORD));
	CHECK(code_follows_call(&s.config, ra, WORD));
	CHECK(code_follows_call(&s.config, FAKE_TEXT_END, WORD));
	CHECK(!code_follows_call(&s.config, FAKE_TEXT_START, WORD));
	CHECK(!code_follows_call(&s.config, ra + 1, WORD));
	fake_text_put16(&s, ra - 2, FAKE_NOT_CALL_PARCEL);
	CHECK(!code_follows_call(&s.config, ra, WORD));
	fake_text_put32(&s, ra - 4, 0x000000ef); /* jal ra, 0 */
	CHECK(code_follows_call(&s.config, ra, WORD));
	fake_stack_free(&s);
}

/* A three-deep chain of standard records (GCC non-leaf functions, every clang
 * function): fps at words 100, 200, 300; the last caller's saved fp is 0, as
 * the boot code leaves it, and word 300 is the top of the stack, where the
 * boot code's frame is. */
static void build_chain(struct fake_stack *s)
{
	s->range.end = fake_addr(s, 300);
	fake_record(s, fake_addr(s, 100), fake_addr(s, 200), FAKE_TEXT_START + 0x204);
	fake_record(s, fake_addr(s, 200), fake_addr(s, 300), FAKE_TEXT_START + 0x308);
	fake_record(s, fake_addr(s, 300), 0, FAKE_TEXT_START + 0x40c);
	s->regs.pc = FAKE_TEXT_START + 0x100;
	s->regs.ra = FAKE_TEXT_START + 0xabc; /* stale: a non-leaf's ra is not used */
	s->regs.sp = fake_addr(s, 90);
	s->regs.s[0] = fake_addr(s, 100);
}

void fp_normal_chain(void)
{
	struct fake_stack s;
	size_t n;

	fake_stack_init(&s);
	build_chain(&s);
	n = fake_walk(&s);
	CHECK(n == 4);
	CHECK(s.stop == TRACER_STOP_OUTERMOST);
	CHECK(s.frames[0].pc == FAKE_TEXT_START + 0x100 &&
	      !s.frames[0].is_return_address);
	CHECK(s.frames[0].sp == fake_addr(&s, 90) &&
	      s.frames[0].fp == fake_addr(&s, 100));
	CHECK(s.frames[1].pc == FAKE_TEXT_START + 0x204 && s.frames[1].is_return_address);
	CHECK(s.frames[1].sp == fake_addr(&s, 100) &&
	      s.frames[1].fp == fake_addr(&s, 200));
	CHECK(s.frames[2].pc == FAKE_TEXT_START + 0x308 &&
	      s.frames[2].fp == fake_addr(&s, 300));
	CHECK(s.frames[3].pc == FAKE_TEXT_START + 0x40c && s.frames[3].fp == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(!s.frames[i].after_trap && s.frames[i].name == NULL);
	fake_stack_free(&s);
}

/* GCC leaf: only the caller's s0 is saved, at fp - 8; ra is live. */
void fp_gcc_leaf_first_frame(void)
{
	struct fake_stack s;
	size_t n;

	fake_stack_init(&s);
	build_chain(&s);
	fake_put(&s, fake_addr(&s, 99), fake_addr(&s, 200));
	fake_put(&s, fake_addr(&s, 98), 0x1234); /* caller's data, not a record */
	s.regs.ra = FAKE_TEXT_START + 0x204;
	s.regs.sp = fake_addr(&s, 98);
	n = fake_walk(&s);
	CHECK(n == 4);
	CHECK(s.stop == TRACER_STOP_OUTERMOST);
	CHECK(s.frames[1].pc == FAKE_TEXT_START + 0x204 &&
	      s.frames[1].fp == fake_addr(&s, 200));
	CHECK(s.frames[2].pc == FAKE_TEXT_START + 0x308 &&
	      s.frames[3].pc == FAKE_TEXT_START + 0x40c);
	fake_stack_free(&s);
}

/* clang saves ra and s0 even in leaf functions: the standard record. The
 * live ra is then ignored, because the word at fp - 8 is code, not stack. */
void fp_clang_leaf_first_frame(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	s.regs.ra = FAKE_TEXT_START + 0x204;
	CHECK(fake_walk(&s) == 4);
	CHECK(s.frames[1].pc == FAKE_TEXT_START + 0x204 &&
	      s.frames[1].fp == fake_addr(&s, 200));
	/* A live ra that disagrees with the record loses: the record wins. */
	s.regs.ra = FAKE_TEXT_START + 0x777;
	CHECK(fake_walk(&s) == 4);
	CHECK(s.frames[1].pc == FAKE_TEXT_START + 0x204 &&
	      s.stop == TRACER_STOP_OUTERMOST);
	fake_stack_free(&s);
}

/* The leaf rule needs a live ra: deeper frames never use it, so a stack
 * address where ra belongs ends the walk as a bad return address. */
void fp_leaf_rule_only_first_frame(void)
{
	struct fake_stack s;
	size_t n;

	fake_stack_init(&s);
	build_chain(&s);
	fake_put(&s, fake_addr(&s, 199), fake_addr(&s, 300));
	n = fake_walk(&s);
	CHECK(n == 2);
	CHECK(s.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

void fp_cycle(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 200), FAKE_TEXT_START + 0x308);
	/* The record's return address is shown; its saved fp then fails. */
	CHECK(fake_walk(&s) == 3);
	CHECK(s.stop == TRACER_STOP_NOT_ASCENDING);
	fake_stack_free(&s);
}

void fp_descending(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 50), FAKE_TEXT_START + 0x308);
	CHECK(fake_walk(&s) == 3);
	CHECK(s.stop == TRACER_STOP_NOT_ASCENDING);
	fake_stack_free(&s);
}

void fp_misaligned(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	s.regs.s[0] += 4;
	CHECK(fake_walk(&s) == 1);
	CHECK(s.stop == TRACER_STOP_MISALIGNED);
	/* Word-aligned but not 16-byte aligned, deeper in the chain. */
	build_chain(&s);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 201), FAKE_TEXT_START + 0x204);
	CHECK(fake_walk(&s) == 2);
	CHECK(s.stop == TRACER_STOP_MISALIGNED);
	fake_stack_free(&s);
}

void fp_outside_stack(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	/* Above the stack. */
	fake_record(&s, fake_addr(&s, 200), s.range.end + 0x1000,
		    FAKE_TEXT_START + 0x308);
	CHECK(fake_walk(&s) == 3);
	CHECK(s.stop == TRACER_STOP_OUTSIDE_STACK);
	/* Record straddling the bottom of the stack. */
	s.regs.sp = fake_addr(&s, 0) - 64;
	s.regs.s[0] = fake_addr(&s, 0);
	CHECK(fake_walk(&s) == 1);
	CHECK(s.stop == TRACER_STOP_OUTSIDE_STACK);
	fake_stack_free(&s);
}

/* The outermost function's frame address is the stack's very end. */
void fp_record_at_stack_top(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	s.range.end = fake_addr(&s, FAKE_STACK_WORDS);
	fake_record(&s, fake_addr(&s, 300), fake_addr(&s, FAKE_STACK_WORDS),
		    FAKE_TEXT_START + 0x40c);
	fake_record(&s, fake_addr(&s, FAKE_STACK_WORDS), 0, FAKE_TEXT_START + 0x510);
	CHECK(fake_walk(&s) == 5);
	CHECK(s.stop == TRACER_STOP_OUTERMOST);
	CHECK(s.frames[4].pc == FAKE_TEXT_START + 0x510);
	fake_stack_free(&s);
}

/* A saved ra in text but after no call is no caller. */
void fp_ra_not_after_call(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	fake_text_put16(&s, FAKE_TEXT_START + 0x308 - 2, FAKE_NOT_CALL_PARCEL);
	CHECK(fake_walk(&s) == 2);
	CHECK(s.stop == TRACER_STOP_NOT_A_CALL);
	/* A 4-byte call there is one. */
	fake_text_put32(&s, FAKE_TEXT_START + 0x308 - 4, 0x000000ef);
	CHECK(fake_walk(&s) == 4);
	CHECK(s.stop == TRACER_STOP_OUTERMOST);
	fake_stack_free(&s);
}

/* s0 = 0 below the top of the stack is a lost frame pointer (a record
 * overwritten, or code built without frame pointers), not the boot code's
 * mark: callers remain. */
void fp_zero_below_top(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	fake_record(&s, fake_addr(&s, 200), 0, FAKE_TEXT_START + 0x308);
	CHECK(fake_walk(&s) == 3);
	CHECK(s.stop == TRACER_STOP_FP_ZERO);
	/* The first frame's s0 is 0 (FP=0 code): one frame. */
	build_chain(&s);
	s.regs.s[0] = 0;
	CHECK(fake_walk(&s) == 1);
	CHECK(s.stop == TRACER_STOP_FP_ZERO);
	fake_stack_free(&s);
}

void fp_ra_outside_text(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 300), FAKE_TEXT_END + 1);
	CHECK(fake_walk(&s) == 2);
	CHECK(s.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

/* A call to a noreturn function can be the last instruction of the text:
 * its return address is the end of text, and still valid. */
void fp_return_address_at_text_end(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_END);
	CHECK(fake_walk(&s) == 4);
	CHECK(s.frames[1].pc == FAKE_TEXT_END);
	CHECK(s.stop == TRACER_STOP_OUTERMOST);
	/* One past it is not code any more. */
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_END + 1);
	CHECK(fake_walk(&s) == 1);
	CHECK(s.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

/* A pc from a register set is always shown, even outside text (a jump to
 * a bad address); the walk cannot go on from it. */
void fp_first_pc_outside_text(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_chain(&s);
	s.regs.pc = 0;
	CHECK(fake_walk(&s) == 1);
	CHECK(s.frames[0].pc == 0 && !s.frames[0].is_return_address);
	CHECK(s.stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

void fp_depth_limit(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	/* 100 frames, 4 words apart, each returning to a distinct address;
	 * the last one's frame address is the top of the stack. */
	s.range.end = fake_addr(&s, 8 + 4 * 99);
	for (size_t i = 0; i < 100; i++)
		fake_record(&s, fake_addr(&s, 8 + 4 * i),
			    i == 99 ? 0 : fake_addr(&s, 12 + 4 * i),
			    FAKE_TEXT_START + 0x4 + 4 * i);
	s.regs.pc = FAKE_TEXT_START + 0x100;
	s.regs.ra = 0;
	s.regs.sp = fake_addr(&s, 2);
	s.regs.s[0] = fake_addr(&s, 8);
	CHECK(fake_walk(&s) == TRACER_DEFAULT_DEPTH);
	CHECK(s.stop == TRACER_STOP_DEPTH_LIMIT);
	s.config.max_depth = 4;
	CHECK(fake_walk(&s) == 4);
	CHECK(s.stop == TRACER_STOP_DEPTH_LIMIT);
	s.config.max_depth = 101;
	CHECK(fake_walk(&s) == 101);
	CHECK(s.stop == TRACER_STOP_OUTERMOST);
	fake_stack_free(&s);
}

/*
 * panic (fp 100) <- handler (fp 140) <- trap entry, whose trap frame sits at
 * the handler's CFA (word 140) <- interrupted leaf (s0 = word 300, only s0
 * saved) <- its caller (fp 400) <- outermost, at the top of the stack.
 */
static void build_trap(struct fake_stack *s, uintptr_t entry_return)
{
	uintptr_t tf = fake_addr(s, 140);

	fake_enable_traps(s);
	fake_record(s, fake_addr(s, 100), tf, FAKE_TEXT_START + 0x500);
	fake_record(s, tf, fake_addr(s, 300), entry_return);
	fake_put(s, tf + TF_EPC * WORD, FAKE_TEXT_START + 0x600);
	fake_put(s, tf + TF_RA * WORD, FAKE_TEXT_START + 0x704);
	fake_put(s, tf + TF_SP * WORD, fake_addr(s, 296));
	fake_put(s, tf + TF_S0 * WORD, fake_addr(s, 300));
	fake_put(s, tf + TF_CAUSE * WORD, 5);
	fake_put(s, tf + TF_TVAL * WORD, 0x10);
	fake_put(s, fake_addr(s, 299), fake_addr(s, 400));
	fake_record(s, fake_addr(s, 400), 0, FAKE_TEXT_START + 0x908);
	s->range.end = fake_addr(s, 400);
	s->regs.pc = FAKE_TEXT_START + 0x100;
	s->regs.ra = 0;
	s->regs.sp = fake_addr(s, 90);
	s->regs.s[0] = fake_addr(s, 100);
}

void fp_trap_crossing(void)
{
	struct fake_stack s;
	/* From FAKE_TEXT_START; 0x840 is FAKE_ENTRY_START + 0x40. */
	static const uintptr_t expected_offsets[] = {0x100, 0x500, 0x840,
						     0x600, 0x704, 0x908};

	fake_stack_init(&s);
	build_trap(&s, FAKE_ENTRY_START + 0x40);
	CHECK(fake_walk(&s) == 6);
	CHECK(s.stop == TRACER_STOP_OUTERMOST);
	for (size_t i = 0; i < 6; i++) {
		CHECK(s.frames[i].pc == FAKE_TEXT_START + expected_offsets[i]);
		CHECK(s.frames[i].after_trap == (i == 3));
		CHECK(s.frames[i].is_return_address == (i != 0 && i != 3));
		/* The trap's cause and value only with its frame. */
		CHECK(i == 3 ||
		      (s.frames[i].trap_cause == 0 && s.frames[i].trap_tval == 0));
	}
	CHECK(s.frames[3].trap_cause == 5 && s.frames[3].trap_tval == 0x10);
	CHECK(s.frames[3].sp == fake_addr(&s, 296) &&
	      s.frames[3].fp == fake_addr(&s, 300));
	fake_stack_free(&s);
}

/* The handler call may be the entry's last instruction: its return address
 * is then the entry's end, which must still count as inside the entry. */
void fp_trap_return_at_entry_end(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_trap(&s, FAKE_ENTRY_END);
	CHECK(fake_walk(&s) == 6);
	CHECK(s.frames[3].after_trap && s.frames[3].pc == FAKE_TEXT_START + 0x600);
	fake_stack_free(&s);
}

void fp_trap_frame_not_ascending(void)
{
	struct fake_stack s;

	fake_stack_init(&s);
	build_trap(&s, FAKE_ENTRY_START + 0x40);
	fake_put(&s, fake_addr(&s, 140) + TF_SP * WORD, fake_addr(&s, 120));
	CHECK(fake_walk(&s) == 3);
	CHECK(s.stop == TRACER_STOP_NOT_ASCENDING);
	fake_stack_free(&s);
}

void fp_trap_frame_outside_stack(void)
{
	struct fake_stack s;
	uintptr_t handler_fp;

	fake_stack_init(&s);
	build_trap(&s, FAKE_ENTRY_START + 0x40);
	s.range.end = fake_addr(&s, FAKE_STACK_WORDS);
	/* The handler's CFA is 4 words below the end: the 6-word trap frame
	 * there would run past the stack. */
	handler_fp = fake_addr(&s, FAKE_STACK_WORDS - 4);
	fake_record(&s, fake_addr(&s, 100), handler_fp, FAKE_TEXT_START + 0x500);
	fake_record(&s, handler_fp, fake_addr(&s, 300), FAKE_ENTRY_START + 0x40);
	CHECK(fake_walk(&s) == 3);
	CHECK(s.stop == TRACER_STOP_OUTSIDE_STACK);
	fake_stack_free(&s);
}

void fp_bad_unwinder(void)
{
	struct fake_stack s;
	struct tracer_walk walk;
	struct tracer_frame frame;

	fake_stack_init(&s);
	build_chain(&s);
	tracer_start(&walk, TRACER_UNWINDER_COUNT, &s.config, &s.regs);
	CHECK(!tracer_next(&walk, &frame));
	CHECK(tracer_stop_reason(&walk) == TRACER_STOP_BAD_UNWINDER);
	fake_stack_free(&s);
}

/*
 * Garbage: stacks of random words, a third of them pointing back into the
 * stack, walked from random starting points. Every walk must end within the
 * depth limit with a stop reason; AddressSanitizer fails the run on any read
 * outside the declared stack.
 */
void fp_random_stacks_terminate(void)
{
	struct fake_stack s;

	srand(12345);
	fake_stack_init(&s);
	fake_enable_traps(&s);
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < FAKE_STACK_WORDS; i++) {
			int kind = rand() % 3;
			uintptr_t r = (uintptr_t)rand();

			s.words[i] = kind == 0 ? fake_addr(&s, r % (FAKE_STACK_WORDS + 8))
				     : kind == 1 ? FAKE_TEXT_START + r % 0x1000
						 : r * 2654435761u;
		}
		s.regs.pc = FAKE_TEXT_START + (uintptr_t)rand() % 0x1000;
		s.regs.ra = FAKE_ENTRY_START + (uintptr_t)rand() % 0x100;
		s.regs.sp = fake_addr(&s, (size_t)rand() % FAKE_STACK_WORDS);
		s.regs.s[0] = fake_addr(&s, (size_t)rand() % (FAKE_STACK_WORDS + 4));
		CHECK(fake_walk(&s) <= TRACER_DEFAULT_DEPTH);
		CHECK(s.stop != TRACER_RUNNING && s.stop < TRACER_STOP_COUNT);
	}
	fake_stack_free(&s);
}
