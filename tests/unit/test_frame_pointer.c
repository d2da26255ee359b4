/*
 * test_frame_pointer.c - FramePointTracer on synthetic stacks. Each test
 * lays out frame records by hand the way the prologues do (tracer/
 * frame_pointer.c) and checks every frame and the stop reason.
 */
#include <stdlib.h>

#include "fake_stack.h"
#include "harness.h"

#define MAX_FRAMES 128

/* A three-deep chain of standard records (GCC non-leaf functions, every clang
 * function): fps at words 100, 200, 300; the last caller's saved fp is 0, as
 * the boot code leaves it. */
static void build_chain(struct fake_stack *s, struct tracer_regs *regs)
{
	fake_record(s, fake_addr(s, 100), fake_addr(s, 200), 0x80200204);
	fake_record(s, fake_addr(s, 200), fake_addr(s, 300), 0x80200308);
	fake_record(s, fake_addr(s, 300), 0, 0x8020040c);
	regs->pc = 0x80200100;
	regs->ra = 0x80200abc; /* stale: a non-leaf's ra is not used */
	regs->sp = fake_addr(s, 90);
	regs->fp = fake_addr(s, 100);
}

void fp_normal_chain(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;
	size_t n;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	n = walk_all(&s.config, &regs, f, MAX_FRAMES, &stop);
	CHECK(n == 4);
	CHECK(stop == TRACER_STOP_OUTERMOST);
	CHECK(f[0].pc == 0x80200100 && !f[0].is_return_address);
	CHECK(f[0].sp == fake_addr(&s, 90) && f[0].fp == fake_addr(&s, 100));
	CHECK(f[1].pc == 0x80200204 && f[1].is_return_address);
	CHECK(f[1].sp == fake_addr(&s, 100) && f[1].fp == fake_addr(&s, 200));
	CHECK(f[2].pc == 0x80200308 && f[2].fp == fake_addr(&s, 300));
	CHECK(f[3].pc == 0x8020040c && f[3].fp == 0);
	for (size_t i = 0; i < n; i++)
		CHECK(!f[i].after_trap && f[i].name == NULL);
	fake_stack_free(&s);
}

/* GCC leaf: only the caller's s0 is saved, at fp - 8; ra is live. */
void fp_gcc_leaf_first_frame(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;
	size_t n;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	fake_put(&s, fake_addr(&s, 99), fake_addr(&s, 200));
	fake_put(&s, fake_addr(&s, 98), 0x1234); /* caller's data, not a record */
	regs.ra = 0x80200204;
	regs.sp = fake_addr(&s, 98);
	n = walk_all(&s.config, &regs, f, MAX_FRAMES, &stop);
	CHECK(n == 4);
	CHECK(stop == TRACER_STOP_OUTERMOST);
	CHECK(f[1].pc == 0x80200204 && f[1].fp == fake_addr(&s, 200));
	CHECK(f[2].pc == 0x80200308 && f[3].pc == 0x8020040c);
	fake_stack_free(&s);
}

/* clang saves ra and s0 even in leaf functions: the standard record. The
 * live ra is then ignored, because the word at fp - 8 is code, not stack. */
void fp_clang_leaf_first_frame(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	regs.ra = 0x80200204;
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 4);
	CHECK(f[1].pc == 0x80200204 && f[1].fp == fake_addr(&s, 200));
	/* A live ra that disagrees with the record loses: the record wins. */
	regs.ra = 0x80200777;
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 4);
	CHECK(f[1].pc == 0x80200204 && stop == TRACER_STOP_OUTERMOST);
	fake_stack_free(&s);
}

/* The leaf rule needs a live ra: deeper frames never use it, so a stack
 * address where ra belongs ends the walk as a bad return address. */
void fp_leaf_rule_only_first_frame(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;
	size_t n;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	fake_put(&s, fake_addr(&s, 199), fake_addr(&s, 300));
	n = walk_all(&s.config, &regs, f, MAX_FRAMES, &stop);
	CHECK(n == 2);
	CHECK(stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

void fp_cycle(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 200), 0x80200308);
	/* The record's return address is shown; its saved fp then fails. */
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 3);
	CHECK(stop == TRACER_STOP_NOT_ASCENDING);
	fake_stack_free(&s);
}

void fp_descending(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 50), 0x80200308);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 3);
	CHECK(stop == TRACER_STOP_NOT_ASCENDING);
	fake_stack_free(&s);
}

void fp_misaligned(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	regs.fp += 4;
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 1);
	CHECK(stop == TRACER_STOP_MISALIGNED);
	/* Word-aligned but not 16-byte aligned, deeper in the chain. */
	build_chain(&s, &regs);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 201), 0x80200204);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 2);
	CHECK(stop == TRACER_STOP_MISALIGNED);
	fake_stack_free(&s);
}

void fp_outside_stack(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	/* Above the stack. */
	fake_record(&s, fake_addr(&s, 200), s.config.stack.end + 0x1000, 0x80200308);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 3);
	CHECK(stop == TRACER_STOP_OUTSIDE_STACK);
	/* Record straddling the bottom of the stack. */
	regs.sp = fake_addr(&s, 0) - 64;
	regs.fp = fake_addr(&s, 0);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 1);
	CHECK(stop == TRACER_STOP_OUTSIDE_STACK);
	fake_stack_free(&s);
}

/* The outermost function's frame address is the stack's very end. */
void fp_record_at_stack_top(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	fake_record(&s, fake_addr(&s, 300), fake_addr(&s, FAKE_STACK_WORDS), 0x8020040c);
	fake_record(&s, fake_addr(&s, FAKE_STACK_WORDS), 0, 0x80200510);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 5);
	CHECK(stop == TRACER_STOP_OUTERMOST);
	CHECK(f[4].pc == 0x80200510);
	fake_stack_free(&s);
}

void fp_ra_outside_text(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	fake_record(&s, fake_addr(&s, 200), fake_addr(&s, 300), FAKE_TEXT_END + 1);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 2);
	CHECK(stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

/* A call to a noreturn function can be the last instruction of the text:
 * its return address is the end of text, and still valid. */
void fp_return_address_at_text_end(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_END);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 4);
	CHECK(f[1].pc == FAKE_TEXT_END);
	CHECK(stop == TRACER_STOP_OUTERMOST);
	/* One past it is not code any more. */
	fake_record(&s, fake_addr(&s, 100), fake_addr(&s, 200), FAKE_TEXT_END + 1);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 1);
	CHECK(stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

/* A pc from a register set is always shown, even outside text (a jump to
 * a bad address); the walk cannot go on from it. */
void fp_first_pc_outside_text(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	regs.pc = 0;
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 1);
	CHECK(f[0].pc == 0 && !f[0].is_return_address);
	CHECK(stop == TRACER_STOP_PC_OUTSIDE_TEXT);
	fake_stack_free(&s);
}

void fp_depth_limit(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	/* 100 frames, 4 words apart, each returning to a distinct address. */
	for (size_t i = 0; i < 100; i++)
		fake_record(&s, fake_addr(&s, 8 + 4 * i),
			    i == 99 ? 0 : fake_addr(&s, 12 + 4 * i), 0x80200004 + 4 * i);
	regs.pc = 0x80200100;
	regs.ra = 0;
	regs.sp = fake_addr(&s, 2);
	regs.fp = fake_addr(&s, 8);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == TRACER_DEFAULT_DEPTH);
	CHECK(stop == TRACER_STOP_DEPTH_LIMIT);
	s.config.max_depth = 4;
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 4);
	CHECK(stop == TRACER_STOP_DEPTH_LIMIT);
	s.config.max_depth = 101;
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 101);
	CHECK(stop == TRACER_STOP_OUTERMOST);
	fake_stack_free(&s);
}

/*
 * panic (fp 100) <- handler (fp 140) <- trap entry, whose trap frame sits at
 * the handler's CFA (word 140) <- interrupted leaf (s0 = word 300, only s0
 * saved) <- its caller (fp 400) <- outermost.
 */
static void build_trap(struct fake_stack *s, struct tracer_regs *regs,
		       uintptr_t entry_return)
{
	uintptr_t tf = fake_addr(s, 140);

	fake_enable_traps(s);
	fake_record(s, fake_addr(s, 100), tf, 0x80200500);
	fake_record(s, tf, fake_addr(s, 300), entry_return);
	fake_put(s, tf + TF_EPC * WORD, 0x80200600);
	fake_put(s, tf + TF_RA * WORD, 0x80200704);
	fake_put(s, tf + TF_SP * WORD, fake_addr(s, 296));
	fake_put(s, tf + TF_FP * WORD, fake_addr(s, 300));
	fake_put(s, tf + TF_CAUSE * WORD, 5);
	fake_put(s, tf + TF_TVAL * WORD, 0x10);
	fake_put(s, fake_addr(s, 299), fake_addr(s, 400));
	fake_record(s, fake_addr(s, 400), 0, 0x80200908);
	regs->pc = 0x80200100;
	regs->ra = 0;
	regs->sp = fake_addr(s, 90);
	regs->fp = fake_addr(s, 100);
}

void fp_trap_crossing(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;
	const uintptr_t expected[] = {0x80200100, 0x80200500, FAKE_ENTRY_START + 0x40,
				      0x80200600, 0x80200704, 0x80200908};

	fake_stack_init(&s);
	build_trap(&s, &regs, FAKE_ENTRY_START + 0x40);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 6);
	CHECK(stop == TRACER_STOP_OUTERMOST);
	for (size_t i = 0; i < 6; i++) {
		CHECK(f[i].pc == expected[i]);
		CHECK(f[i].after_trap == (i == 3));
		CHECK(f[i].is_return_address == (i != 0 && i != 3));
	}
	CHECK(f[3].trap_cause == 5 && f[3].trap_tval == 0x10);
	CHECK(f[3].sp == fake_addr(&s, 296) && f[3].fp == fake_addr(&s, 300));
	fake_stack_free(&s);
}

/* The handler call may be the entry's last instruction: its return address
 * is then the entry's end, which must still count as inside the entry. */
void fp_trap_return_at_entry_end(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_trap(&s, &regs, FAKE_ENTRY_END);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 6);
	CHECK(f[3].after_trap && f[3].pc == 0x80200600);
	fake_stack_free(&s);
}

void fp_trap_frame_not_ascending(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

	fake_stack_init(&s);
	build_trap(&s, &regs, FAKE_ENTRY_START + 0x40);
	fake_put(&s, fake_addr(&s, 140) + TF_SP * WORD, fake_addr(&s, 120));
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 3);
	CHECK(stop == TRACER_STOP_NOT_ASCENDING);
	fake_stack_free(&s);
}

void fp_trap_frame_outside_stack(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;
	uintptr_t handler_fp;

	fake_stack_init(&s);
	build_trap(&s, &regs, FAKE_ENTRY_START + 0x40);
	/* The handler's CFA is 4 words below the end: the 6-word trap frame
	 * there would run past the stack. */
	handler_fp = fake_addr(&s, FAKE_STACK_WORDS - 4);
	fake_record(&s, fake_addr(&s, 100), handler_fp, 0x80200500);
	fake_record(&s, handler_fp, fake_addr(&s, 300), FAKE_ENTRY_START + 0x40);
	CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) == 3);
	CHECK(stop == TRACER_STOP_OUTSIDE_STACK);
	fake_stack_free(&s);
}

void fp_bad_unwinder(void)
{
	struct fake_stack s;
	struct tracer_regs regs;
	struct tracer_walk walk;
	struct tracer_frame frame;

	fake_stack_init(&s);
	build_chain(&s, &regs);
	tracer_start(&walk, TRACER_UNWINDER_COUNT, &s.config, &regs);
	CHECK(!tracer_next(&walk, &frame));
	CHECK(walk.stop == TRACER_STOP_BAD_UNWINDER);
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
	struct tracer_regs regs;
	struct tracer_frame f[MAX_FRAMES];
	enum tracer_stop stop;

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
		regs.pc = FAKE_TEXT_START + (uintptr_t)rand() % 0x1000;
		regs.ra = FAKE_ENTRY_START + (uintptr_t)rand() % 0x100;
		regs.sp = fake_addr(&s, (size_t)rand() % FAKE_STACK_WORDS);
		regs.fp = fake_addr(&s, (size_t)rand() % (FAKE_STACK_WORDS + 4));
		CHECK(walk_all(&s.config, &regs, f, MAX_FRAMES, &stop) <=
		      TRACER_DEFAULT_DEPTH);
		CHECK(stop != TRACER_RUNNING && stop < TRACER_STOP_COUNT);
	}
	fake_stack_free(&s);
}
