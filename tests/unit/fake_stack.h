/*
 * fake_stack.h - synthetic memory for driving the unwinders on the host.
 *
 * The stack and the text are heap blocks exactly as large as the regions
 * declared to the tracer, so AddressSanitizer reports any read outside them.
 * Every unwinder reads the code before a return address (it must be a call),
 * so the text is real memory: every 16-bit parcel is c.jalr ra (0x9082),
 * and every even address in it follows a 2-byte call. Tests address it as
 * FAKE_TEXT_START + offset.
 */
#ifndef TEST_FAKE_STACK_H
#define TEST_FAKE_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "tracer_tables.h"

#define FAKE_TEXT_SIZE	 ((uintptr_t)0x10000)
#define FAKE_TEXT_START	 fake_text_start()
#define FAKE_TEXT_END	 (fake_text_start() + FAKE_TEXT_SIZE)
#define FAKE_STACK_WORDS 512
#define WORD		 sizeof(uintptr_t)

#define FAKE_MAX_FRAMES 128

/* The memory, the configuration, and one walk's start and results. */
struct fake_stack {
	uintptr_t *words;
	uint16_t *text;
	/* The stack config.stacks declares, its only entry: a test may move
	 * its end below the words' end. */
	struct tracer_range range;
	struct tracer_config config;
	struct tracer_trap_layout trap;
	struct tracer_regs regs;
	struct tracer_frame frames[FAKE_MAX_FRAMES];
	enum tracer_stop stop;
};

/* Stack of FAKE_STACK_WORDS zeroed words and FAKE_TEXT_SIZE bytes of calls;
 * config declares both. */
void fake_stack_init(struct fake_stack *stack);
void fake_stack_free(struct fake_stack *stack);

/* Start of the text of the stack initialized last (a test uses one stack
 * at a time): code that has no stack at hand, such as a table of functions,
 * names code addresses through it. */
uintptr_t fake_text_start(void);

/* The fill: c.jalr ra. A parcel that is no call, to place before an
 * address that must not be a return address: c.nop. */
#define FAKE_CALL_PARCEL     ((uint16_t)0x9082)
#define FAKE_NOT_CALL_PARCEL ((uint16_t)0x0001)
/* Writes the parcel, or the 32-bit instruction (low half first), at an even
 * address inside the text. */
void fake_text_put16(struct fake_stack *stack, uintptr_t addr, uint16_t parcel);
void fake_text_put32(struct fake_stack *stack, uintptr_t addr, uint32_t insn);

/* Address of word `index`; index FAKE_STACK_WORDS is the stack's end. */
uintptr_t fake_addr(const struct fake_stack *stack, size_t index);
void fake_put(struct fake_stack *stack, uintptr_t addr, uintptr_t value);

/* The record a non-leaf prologue leaves below fp: {caller's fp, ra}. */
void fake_record(struct fake_stack *stack, uintptr_t fp, uintptr_t caller_fp,
		 uintptr_t ra);

/* Trap frame layout used by the tests: these words in this order. */
enum { TF_EPC, TF_RA, TF_SP, TF_CAUSE, TF_TVAL, TF_S0, TF_WORDS = TF_S0 + 12 };
#define FAKE_ENTRY_START (FAKE_TEXT_START + 0x800)
#define FAKE_ENTRY_END	 (FAKE_TEXT_START + 0x880)
/* Enables trap crossing in stack->config with the layout above. */
void fake_enable_traps(struct fake_stack *stack);

/* Walks from stack->regs to the end; keeps the first FAKE_MAX_FRAMES frames
 * and the stop reason in *stack, returns the number of frames. */
size_t fake_walk(struct fake_stack *stack);
/* The same with the given unwinder. */
size_t fake_walk_with(struct fake_stack *stack, enum tracer_unwinder unwinder);

#endif /* TEST_FAKE_STACK_H */
