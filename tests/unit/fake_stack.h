/*
 * fake_stack.h - synthetic memory for driving the unwinders on the host.
 *
 * The stack is a heap block exactly as large as the region declared to the
 * tracer, so AddressSanitizer reports any read outside it. Code addresses
 * are plain numbers in a fake text range: the frame-pointer unwinder never
 * reads code.
 */
#ifndef TEST_FAKE_STACK_H
#define TEST_FAKE_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "tracer.h"

#define FAKE_TEXT_START	 ((uintptr_t)0x80200000)
#define FAKE_TEXT_END	 ((uintptr_t)0x80210000)
#define FAKE_STACK_WORDS 512
#define WORD		 sizeof(uintptr_t)

#define FAKE_MAX_FRAMES 128

/* The memory, the configuration, and one walk's start and results. */
struct fake_stack {
	uintptr_t *words;
	struct tracer_config config;
	struct tracer_trap_layout trap;
	struct tracer_regs regs;
	struct tracer_frame frames[FAKE_MAX_FRAMES];
	enum tracer_stop stop;
};

/* Stack of FAKE_STACK_WORDS zeroed words; config declares it and the text. */
void fake_stack_init(struct fake_stack *stack);
void fake_stack_free(struct fake_stack *stack);

/* Address of word `index`; index FAKE_STACK_WORDS is the stack's end. */
uintptr_t fake_addr(const struct fake_stack *stack, size_t index);
void fake_put(struct fake_stack *stack, uintptr_t addr, uintptr_t value);

/* The record a non-leaf prologue leaves below fp: {caller's fp, ra}. */
void fake_record(struct fake_stack *stack, uintptr_t fp, uintptr_t caller_fp,
		 uintptr_t ra);

/* Trap frame layout used by the tests: these words in this order. */
enum { TF_EPC, TF_RA, TF_SP, TF_CAUSE, TF_TVAL, TF_S0, TF_WORDS = TF_S0 + 12 };
#define FAKE_ENTRY_START ((uintptr_t)0x80200800)
#define FAKE_ENTRY_END	 ((uintptr_t)0x80200880)
/* Enables trap crossing in stack->config with the layout above. */
void fake_enable_traps(struct fake_stack *stack);

/* Walks from stack->regs to the end; keeps the first FAKE_MAX_FRAMES frames
 * and the stop reason in *stack, returns the number of frames. */
size_t fake_walk(struct fake_stack *stack);
/* The same with the given unwinder. */
size_t fake_walk_with(struct fake_stack *stack, enum tracer_unwinder unwinder);

#endif /* TEST_FAKE_STACK_H */
