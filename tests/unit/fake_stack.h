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

struct fake_stack {
	uintptr_t *words;
	struct tracer_config config;
	struct tracer_trap_layout trap;
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

/* Trap frame layout used by the tests: six words in this order. */
enum { TF_EPC, TF_RA, TF_SP, TF_FP, TF_CAUSE, TF_TVAL, TF_WORDS };
#define FAKE_ENTRY_START ((uintptr_t)0x80200800)
#define FAKE_ENTRY_END	 ((uintptr_t)0x80200880)
/* Enables trap crossing in stack->config with the layout above. */
void fake_enable_traps(struct fake_stack *stack);

/* Runs a walk to its end; returns the number of frames (at most max). */
size_t walk_all(const struct tracer_config *config, const struct tracer_regs *regs,
		struct tracer_frame *frames, size_t max, enum tracer_stop *stop);

#endif /* TEST_FAKE_STACK_H */
