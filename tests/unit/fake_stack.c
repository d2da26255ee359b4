/*
 * fake_stack.c - see fake_stack.h.
 */
#include "fake_stack.h"

#include "harness.h"
#include "walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed CHECK returns without freeing its stack: this is just the last
 * one initialized, not necessarily a live one. */
static uintptr_t last_text;

void fake_stack_init(struct fake_stack *stack)
{
	size_t bytes = FAKE_STACK_WORDS * WORD;

	memset(stack, 0, sizeof(*stack));
	stack->words = aligned_alloc(16, bytes);
	memset(stack->words, 0, bytes);
	stack->text = malloc(FAKE_TEXT_SIZE);
	for (size_t i = 0; i < FAKE_TEXT_SIZE / sizeof(uint16_t); i++)
		stack->text[i] = FAKE_CALL_PARCEL;
	last_text = (uintptr_t)stack->text;
	stack->config.text.start = (uintptr_t)stack->text;
	stack->config.text.end = (uintptr_t)stack->text + FAKE_TEXT_SIZE;
	stack->range.start = (uintptr_t)stack->words;
	stack->range.end = (uintptr_t)stack->words + bytes;
	stack->config.stacks = &stack->range;
	stack->config.stack_count = 1;
}

void fake_stack_free(struct fake_stack *stack)
{
	free(stack->words);
	free(stack->text);
}

uintptr_t fake_text_start(void)
{
	return last_text;
}

void fake_text_put16(struct fake_stack *stack, uintptr_t addr, uint16_t parcel)
{
	uintptr_t offset = addr - (uintptr_t)stack->text;

	/* A test that writes elsewhere is itself broken. */
	if (offset % 2 != 0 || offset >= FAKE_TEXT_SIZE) {
		fprintf(stderr, "fake_text_put16: %#lx is not a parcel of the text\n",
			(unsigned long)addr);
		abort();
	}
	stack->text[offset / 2] = parcel;
}

void fake_text_put32(struct fake_stack *stack, uintptr_t addr, uint32_t insn)
{
	fake_text_put16(stack, addr, (uint16_t)insn);
	fake_text_put16(stack, addr + 2, (uint16_t)(insn >> 16));
}

uintptr_t fake_addr(const struct fake_stack *stack, size_t index)
{
	return (uintptr_t)stack->words + index * WORD;
}

void fake_put(struct fake_stack *stack, uintptr_t addr, uintptr_t value)
{
	stack->words[(addr - (uintptr_t)stack->words) / WORD] = value;
}

void fake_record(struct fake_stack *stack, uintptr_t fp, uintptr_t caller_fp,
		 uintptr_t ra)
{
	fake_put(stack, fp - 2 * WORD, caller_fp);
	fake_put(stack, fp - WORD, ra);
}

void fake_enable_traps(struct fake_stack *stack)
{
	stack->trap.entry.start = FAKE_ENTRY_START;
	stack->trap.entry.end = FAKE_ENTRY_END;
	stack->trap.epc_offset = TF_EPC * WORD;
	stack->trap.ra_offset = TF_RA * WORD;
	stack->trap.sp_offset = TF_SP * WORD;
	for (unsigned i = 0; i < 12; i++)
		stack->trap.s_offset[i] = (TF_S0 + i) * WORD;
	stack->trap.cause_offset = TF_CAUSE * WORD;
	stack->trap.tval_offset = TF_TVAL * WORD;
	stack->trap.status_offset = TRACER_TRAP_NOT_SAVED;
	stack->trap.frame_size = 0;
	stack->config.trap = &stack->trap;
}

/* Whether tracer_capture() into an array of `max` words gives `expected`
 * pcs, the first ones of the walk's frames, and the stop `stop`; and leaves
 * the words past them alone. */
static bool capture_gives(const struct fake_stack *stack, enum tracer_unwinder unwinder,
			  size_t max, size_t expected, enum tracer_stop stop)
{
	const uintptr_t untouched = 0x5a5a5a5a;
	uintptr_t pcs[FAKE_MAX_FRAMES + 1];
	struct tracer_prepared prepared;
	enum tracer_stop capture_stop = TRACER_RUNNING;
	size_t count;

	for (size_t i = 0; i <= FAKE_MAX_FRAMES; i++)
		pcs[i] = untouched;
	tracer_prepare(&prepared, &stack->config);
	count =
	    tracer_capture(&prepared, unwinder, &stack->regs, pcs, max, &capture_stop);
	if (count != expected || capture_stop != stop || pcs[count] != untouched)
		return false;
	for (size_t i = 0; i < count; i++) {
		if (pcs[i] != stack->frames[i].pc)
			return false;
	}
	return true;
}

/* Whether tracer_prepare() judges the tables as the walk did from start
 * to end: the walk's statuses at its end, unchanged since its start. */
static bool prepared_as_walked(const struct fake_stack *stack,
			       const struct tracer_walk *start,
			       const struct tracer_walk *end)
{
	struct tracer_prepared prepared;

	tracer_prepare(&prepared, &stack->config);
	return prepared_of(&prepared)->symtab_status ==
		   walk_of((struct tracer_walk *)start)->symtab_status &&
	       prepared_of(&prepared)->fde_index_status ==
		   walk_of((struct tracer_walk *)start)->fde_index_status &&
	       prepared_of(&prepared)->unwind_table_status ==
		   walk_of((struct tracer_walk *)start)->unwind_table_status &&
	       prepared_of(&prepared)->eh_frame_status ==
		   walk_of((struct tracer_walk *)start)->eh_frame_status &&
	       walk_of((struct tracer_walk *)end)->symtab_status ==
		   walk_of((struct tracer_walk *)start)->symtab_status &&
	       walk_of((struct tracer_walk *)end)->fde_index_status ==
		   walk_of((struct tracer_walk *)start)->fde_index_status &&
	       walk_of((struct tracer_walk *)end)->unwind_table_status ==
		   walk_of((struct tracer_walk *)start)->unwind_table_status &&
	       walk_of((struct tracer_walk *)end)->eh_frame_status ==
		   walk_of((struct tracer_walk *)start)->eh_frame_status;
}

/*
 * Every walk the tests make is also captured (tracer_capture), which must
 * give the same pcs and stop reason: with room for exactly the walk's frames
 * (its stop, or the depth limit if that ended it), for one more, and for
 * one fewer (the depth limit). Only where tracer_prepare() judges the
 * tables as the walk did: a walk checks only the blocks and entries it
 * reads, and may find damage late or not at all, where the capture trusts
 * tracer_prepare()'s verdict on all of them.
 */
static void check_capture(const struct fake_stack *stack, enum tracer_unwinder unwinder,
			  size_t n, const struct tracer_walk *start,
			  const struct tracer_walk *end)
{
	enum tracer_stop limit = TRACER_STOP_DEPTH_LIMIT;

	if (n >= FAKE_MAX_FRAMES)
		return; /* the frames past FAKE_MAX_FRAMES were not kept */
	if (!prepared_as_walked(stack, start, end))
		return;
	if (!capture_gives(stack, unwinder, n, n, stack->stop))
		test_fail(__FILE__, __LINE__, "capture of the walk's frames differs");
	if (!capture_gives(stack, unwinder, n + 1, n, stack->stop) &&
	    stack->stop != limit)
		test_fail(__FILE__, __LINE__, "capture with room for more differs");
	if (n > 0 && !capture_gives(stack, unwinder, n - 1, n - 1, limit))
		test_fail(__FILE__, __LINE__, "capture of fewer frames differs");
}

size_t fake_walk_with(struct fake_stack *stack, enum tracer_unwinder unwinder)
{
	struct tracer_walk walk;
	struct tracer_walk start;
	struct tracer_frame frame;
	size_t n = 0;

	tracer_start(&walk, unwinder, &stack->config, &stack->regs);
	start = walk;
	while (tracer_next(&walk, &frame)) {
		if (n < FAKE_MAX_FRAMES)
			stack->frames[n] = frame;
		n++;
	}
	stack->stop = tracer_stop_reason(&walk);
	check_capture(stack, unwinder, n, &start, &walk);
	return n;
}

size_t fake_walk(struct fake_stack *stack)
{
	return fake_walk_with(stack, TRACER_FRAME_POINTER);
}
