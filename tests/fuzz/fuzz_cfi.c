/*
 * fuzz_cfi.c - libFuzzer target: the DWARF unwinder's CFI parser and row
 * interpreter alone (tracer/cfi.h), on .eh_frame bytes from the input in
 * guarded memory (fuzz_regions.h), with a stack for DW_OP_deref. Text is
 * declared but unreadable: the CFI code must never read it.
 *
 * Input (little-endian; reads past the end give zeros):
 *   header   pointer encoding u8, offset of a pointer u16, offset of an
 *            expression u16, pc choice u32, stack words u16
 *   regs     pc, ra, sp, s0-s11: 15 words, u32 offsets into the stack
 *            (a register's value is stack start + offset)
 *   stack    u32 offsets into the stack, one a word
 *   eh_frame the rest
 * Every record of .eh_frame (up to MAX_RECORDS) is parsed as an FDE; for
 * each that parses, the rows at its first and last pc and at one the input
 * chooses are computed, and their expressions evaluated.
 *
 * Built with -DTRACER_HOST_VIEW (fuzz_cfi_rv32), the harness is what symgen
 * and the test tools are to an rv32 image: the CFI code reads 4-byte words
 * (tracer_host_word_size), and the regions lie at an rv32 image's addresses,
 * below 4 GiB (the arena's start at ARENA_IN_IMAGE; tracer_host_bias maps
 * them to the arena), so that its addresses wrap as the image's do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "fuzz_input.h"
#include "fuzz_regions.h"

#define MAX_STACK_WORDS 4096
#define MAX_EH_FRAME	(256 << 10)
#define MAX_RECORDS	64
#define MAX_COLUMN	64

#define MiB	    ((size_t)1 << 20)
#define STACK_AT    (1 * MiB)
#define TEXT_AT	    (2 * MiB) /* declared, never mapped */
#define TEXT_SIZE   0x10000
#define EH_FRAME_AT (4 * MiB)

#ifdef TRACER_HOST_VIEW
typedef uint32_t image_word;
#define ARENA_IN_IMAGE 0x80000000u

/* The address in the image of a region's host address. */
static uintptr_t image_address(uintptr_t host)
{
	return host - tracer_host_bias;
}

/* The host's message of a refusal (tracer/cfi.h): formatted, so that its
 * arguments are read, then dropped. */
void cfi_host_fail(const char *format, ...)
{
	char reason[256];
	va_list args;

	va_start(args, format);
	vsnprintf(reason, sizeof(reason), format, args);
	va_end(args);
}
#else
typedef uintptr_t image_word;

static uintptr_t image_address(uintptr_t host)
{
	return host;
}
#endif

static struct fuzz_region stack_region, eh_frame_region;
/* The stack DW_OP_deref reads, as a walk's current stack. */
static struct tracer_range stack;
static image_word stack_words[MAX_STACK_WORDS];

static void fail(const char *format, ...)
{
	va_list args;

	fputs("fuzz_cfi: invariant violated: ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	abort();
}

static bool inside(struct tracer_range range, uintptr_t start, uintptr_t end)
{
	return range.start <= start && start <= end && end <= range.end;
}

static uintptr_t stack_word(uint32_t offset)
{
	return stack.start + offset % (stack.end - stack.start + 1);
}

static void evaluate(const struct tracer_config *config, int32_t offset,
		     const struct tracer_regs *regs, bool push_initial, uintptr_t initial)
{
	uintptr_t result;

	if (offset < 0 ||
	    (uintptr_t)offset >= config->eh_frame.end - config->eh_frame.start)
		fail("expression at offset %d, outside .eh_frame", offset);
	cfi_evaluate(config, &stack, config->eh_frame.start + (uintptr_t)offset, regs,
		     push_initial, initial, &result);
}

/* The row at pc, and everything it refers to. */
static void check_row(const struct tracer_config *config, const struct cfi_fde *fde,
		      uintptr_t pc, const struct tracer_regs *regs)
{
	struct cfi_row row;
	uintptr_t cfa = regs->sp;

	if (cfi_row_at(config, fde, pc, &row) != CFI_OK)
		return;
	if (row.cfa_kind == CFI_CFA_EXPRESSION)
		evaluate(config, row.cfa_offset, regs, false, 0);
	else if (row.cfa_kind == CFI_CFA_REGISTER_OFFSET &&
		 cfi_register_value(regs, row.cfa_register, &cfa))
		cfa += (uintptr_t)(intptr_t)row.cfa_offset;
	for (unsigned column = 0; column < MAX_COLUMN; column++) {
		struct cfi_rule rule = cfi_row_rule(&row, column);

		if (rule.kind > CFI_RULE_VAL_EXPRESSION)
			fail("rule of kind %u for column %u", rule.kind, column);
		if (rule.kind == CFI_RULE_EXPRESSION ||
		    rule.kind == CFI_RULE_VAL_EXPRESSION)
			evaluate(config, rule.value, regs, true, cfa);
	}
}

static void check_fde(const struct tracer_config *config, uintptr_t fde_addr,
		      uint32_t pc_choice, const struct tracer_regs *regs)
{
	struct cfi_fde fde;
	uintptr_t range;

	if (cfi_parse_fde(config, fde_addr, &fde) != CFI_OK)
		return;
	if (!inside(config->eh_frame, fde.instructions, fde.end) ||
	    !inside(config->eh_frame, fde.cie.instructions, fde.cie.end))
		fail("FDE at %#lx: instructions outside .eh_frame",
		     (unsigned long)fde_addr);
	if (fde.pc_end < fde.pc_start)
		fail("FDE at %#lx: pc range ends before it starts",
		     (unsigned long)fde_addr);
	range = fde.pc_end - fde.pc_start;
	if (range == 0)
		return;
	check_row(config, &fde, fde.pc_start, regs);
	check_row(config, &fde, fde.pc_end - 1, regs);
	check_row(config, &fde, fde.pc_start + pc_choice % range, regs);
}

/* The offset of the record after the one at `offset`, by its length field
 * (0xffffffff: a 64-bit length follows); size when there is none. */
static size_t next_record(const uint8_t *bytes, size_t size, size_t offset)
{
	uint32_t length;
	uint64_t length64;

	if (size - offset < 4)
		return size;
	memcpy(&length, bytes + offset, 4);
	if (length == 0)
		return size;
	if (length != 0xffffffff)
		return length <= size - offset - 4 ? offset + 4 + length : size;
	if (size - offset < 12)
		return size;
	memcpy(&length64, bytes + offset + 4, 8);
	return length64 <= size - offset - 12 ? offset + 12 + (size_t)length64 : size;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_region_init(&stack_region, STACK_AT, MAX_STACK_WORDS * sizeof(uintptr_t));
	fuzz_region_init(&eh_frame_region, EH_FRAME_AT, MAX_EH_FRAME);
#ifdef TRACER_HOST_VIEW
	tracer_host_word_size = sizeof(image_word);
	tracer_host_bias = stack_region.base - STACK_AT - ARENA_IN_IMAGE;
#endif
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input input = {data, size, 0};
	struct tracer_config config = {0};
	struct tracer_regs regs;
	struct memory_cursor cursor;
	uint8_t encoding = input_u8(&input);
	uint16_t pointer_offset = input_u16(&input);
	uint16_t expression_offset = input_u16(&input);
	uint32_t pc_choice = input_u32(&input);
	size_t words = input_u16(&input) % (MAX_STACK_WORDS + 1);
	uint32_t reg_offsets[15];
	const uint8_t *eh_frame;
	size_t eh_frame_size;
	uintptr_t value;

	for (unsigned i = 0; i < 15; i++)
		reg_offsets[i] = input_u32(&input);
	words = input_count(&input, words, 4);
	config.text.start = image_address(eh_frame_region.base - EH_FRAME_AT + TEXT_AT);
	config.text.end = config.text.start + TEXT_SIZE;
	stack.start = image_address(stack_region.base);
	stack.end = stack.start + words * sizeof(image_word);
	for (size_t i = 0; i < words; i++)
		stack_words[i] = (image_word)stack_word(input_u32(&input));
	eh_frame_size = input_count(&input, MAX_EH_FRAME, 1);
	eh_frame = input_bytes(&input, eh_frame_size);
	fuzz_region_load(&stack_region, 0, stack_words, words * sizeof(image_word));
	config.eh_frame.start =
	    image_address(fuzz_region_load(&eh_frame_region, 0, eh_frame, eh_frame_size));
	config.eh_frame.end = config.eh_frame.start + eh_frame_size;

	regs.pc = config.text.start + reg_offsets[0] % TEXT_SIZE;
	regs.ra = config.text.start + reg_offsets[1] % TEXT_SIZE;
	regs.sp = stack_word(reg_offsets[2]);
	for (unsigned i = 0; i < 12; i++)
		regs.s[i] = stack_word(reg_offsets[3 + i]);

	if (memory_cursor_open(
		&config, config.eh_frame.start + pointer_offset % (eh_frame_size + 1),
		config.eh_frame.end, &cursor))
		cfi_read_pointer(&config, &cursor, encoding, &value);
	if (eh_frame_size > 0)
		evaluate(&config, expression_offset % eh_frame_size, &regs, pc_choice & 1,
			 regs.sp);
	for (size_t offset = 0, records = 0;
	     offset < eh_frame_size && records < MAX_RECORDS;
	     offset = next_record(eh_frame, eh_frame_size, offset), records++)
		check_fde(&config, config.eh_frame.start + offset, pc_choice, &regs);
	return 0;
}
