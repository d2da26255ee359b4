/*
 * cfi_expression.c - a bounded evaluator for the DWARF expressions that
 * DW_CFA_def_cfa_expression, DW_CFA_expression and DW_CFA_val_expression
 * carry: a stack machine (DWARF 5, section 2.5).
 *
 * Only straight-line ops are accepted (no branches, so no loops: at most one
 * step per byte), on a fixed stack, reading memory only through the bounded
 * reader. Compilers use a handful of ops here; anything else stops the walk
 * as unsupported.
 */
#include "cfi.h"

/* DW_OP_* opcodes (DWARF 5, section 7.7.1). */
enum {
	DW_OP_deref = 0x06,
	DW_OP_const1u = 0x08,
	DW_OP_const1s = 0x09,
	DW_OP_const2u = 0x0a,
	DW_OP_const2s = 0x0b,
	DW_OP_const4u = 0x0c,
	DW_OP_const4s = 0x0d,
	DW_OP_const8u = 0x0e,
	DW_OP_const8s = 0x0f,
	DW_OP_constu = 0x10,
	DW_OP_consts = 0x11,
	DW_OP_dup = 0x12,
	DW_OP_drop = 0x13,
	DW_OP_over = 0x14,
	DW_OP_swap = 0x16,
	DW_OP_and = 0x1a,
	DW_OP_minus = 0x1c,
	DW_OP_mul = 0x1e,
	DW_OP_neg = 0x1f,
	DW_OP_not = 0x20,
	DW_OP_or = 0x21,
	DW_OP_plus = 0x22,
	DW_OP_plus_uconst = 0x23,
	DW_OP_shl = 0x24,
	DW_OP_shr = 0x25,
	DW_OP_shra = 0x26,
	DW_OP_xor = 0x27,
	DW_OP_lit0 = 0x30,
	DW_OP_lit31 = 0x4f,
	DW_OP_breg0 = 0x70,
	DW_OP_breg31 = 0x8f,
	DW_OP_bregx = 0x92,
	DW_OP_nop = 0x96,
};

#define WORD_BITS (8 * sizeof(uintptr_t))

struct expression_stack {
	uintptr_t values[CFI_EXPRESSION_STACK];
	unsigned depth;
};

static enum cfi_status push(struct expression_stack *stack, uintptr_t value)
{
	if (stack->depth == CFI_EXPRESSION_STACK)
		return CFI_UNSUPPORTED;
	stack->values[stack->depth++] = value;
	return CFI_OK;
}

/* The entry `from_top` places below the top (0: the top itself). */
static uintptr_t *peek(struct expression_stack *stack, unsigned from_top)
{
	return stack->depth > from_top ? &stack->values[stack->depth - 1 - from_top]
				       : NULL;
}

/* Ops with a constant operand, and the register-relative ones. */
static enum cfi_status push_operand(struct expression_stack *stack, uint8_t op,
				    struct memory_cursor *cursor,
				    const struct tracer_regs *regs)
{
	uintptr_t value;

	if (op >= DW_OP_lit0 && op <= DW_OP_lit31)
		return push(stack, op - DW_OP_lit0);
	if ((op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx) {
		unsigned reg = op == DW_OP_bregx ? (unsigned)cursor_uleb128(cursor)
						 : (unsigned)(op - DW_OP_breg0);
		intptr_t offset = cursor_sleb128(cursor);

		if (!cfi_register_value(regs, reg, &value))
			return CFI_UNSUPPORTED;
		return push(stack, value + (uintptr_t)offset);
	}
	switch (op) {
	case DW_OP_const1u:
	case DW_OP_const2u:
	case DW_OP_const4u:
	case DW_OP_const8u:
		/* 0x08, 0x0a, 0x0c, 0x0e -> 1, 2, 4, 8 bytes */
		return push(stack,
			    cursor_unsigned(cursor, 1u << ((op - DW_OP_const1u) / 2)));
	case DW_OP_const1s:
	case DW_OP_const2s:
	case DW_OP_const4s:
	case DW_OP_const8s:
		return push(stack, (uintptr_t)cursor_signed(
				       cursor, 1u << ((op - DW_OP_const1s) / 2)));
	case DW_OP_constu:
		return push(stack, cursor_uleb128(cursor));
	case DW_OP_consts:
		return push(stack, (uintptr_t)cursor_sleb128(cursor));
	default:
		return CFI_UNSUPPORTED;
	}
}

static uintptr_t shift_right_arithmetic(uintptr_t value, uintptr_t shift)
{
	uintptr_t sign = value >> (WORD_BITS - 1) ? ~(uintptr_t)0 : 0;

	if (shift >= WORD_BITS)
		return sign;
	return shift == 0 ? value : (value >> shift) | (sign << (WORD_BITS - shift));
}

/* Binary ops: pop the top, combine it into the entry below. */
static enum cfi_status binary(struct expression_stack *stack, uint8_t op)
{
	uintptr_t *second = peek(stack, 1);
	uintptr_t top;

	if (!second)
		return CFI_MALFORMED;
	top = stack->values[--stack->depth];
	switch (op) {
	case DW_OP_and:
		*second &= top;
		break;
	case DW_OP_minus:
		*second -= top;
		break;
	case DW_OP_mul:
		*second *= top;
		break;
	case DW_OP_or:
		*second |= top;
		break;
	case DW_OP_plus:
		*second += top;
		break;
	case DW_OP_shl:
		*second = top >= WORD_BITS ? 0 : *second << top;
		break;
	case DW_OP_shr:
		*second = top >= WORD_BITS ? 0 : *second >> top;
		break;
	case DW_OP_shra:
		*second = shift_right_arithmetic(*second, top);
		break;
	default: /* DW_OP_xor */
		*second ^= top;
		break;
	}
	return CFI_OK;
}

/* Ops on the top entries in place, and the stack shuffles. */
static enum cfi_status unary(const struct tracer_range *deref_stack,
			     struct expression_stack *stack, uint8_t op,
			     struct memory_cursor *cursor)
{
	uintptr_t *top = peek(stack, 0);
	uintptr_t *second = peek(stack, 1);
	uintptr_t swapped;

	if (!top || ((op == DW_OP_over || op == DW_OP_swap) && !second))
		return CFI_MALFORMED;
	switch (op) {
	case DW_OP_deref:
		return memory_read_word(deref_stack, *top, top) ? CFI_OK : CFI_UNREADABLE;
	case DW_OP_dup:
		return push(stack, *top);
	case DW_OP_drop:
		stack->depth--;
		return CFI_OK;
	case DW_OP_over:
		return push(stack, *second);
	case DW_OP_swap:
		swapped = *top;
		*top = *second;
		*second = swapped;
		return CFI_OK;
	case DW_OP_neg:
		*top = -*top;
		return CFI_OK;
	case DW_OP_not:
		*top = ~*top;
		return CFI_OK;
	default: /* DW_OP_plus_uconst */
		*top += cursor_uleb128(cursor);
		return CFI_OK;
	}
}

static enum cfi_status run_op(const struct tracer_range *deref_stack,
			      struct expression_stack *stack, uint8_t op,
			      struct memory_cursor *cursor,
			      const struct tracer_regs *regs)
{
	switch (op) {
	case DW_OP_nop:
		return CFI_OK;
	case DW_OP_deref:
	case DW_OP_dup:
	case DW_OP_drop:
	case DW_OP_over:
	case DW_OP_swap:
	case DW_OP_neg:
	case DW_OP_not:
	case DW_OP_plus_uconst:
		return unary(deref_stack, stack, op, cursor);
	case DW_OP_and:
	case DW_OP_minus:
	case DW_OP_mul:
	case DW_OP_or:
	case DW_OP_plus:
	case DW_OP_shl:
	case DW_OP_shr:
	case DW_OP_shra:
	case DW_OP_xor:
		return binary(stack, op);
	default:
		return push_operand(stack, op, cursor, regs);
	}
}

enum cfi_status cfi_evaluate(const struct tracer_config *config,
			     const struct tracer_range *deref_stack, uintptr_t expression,
			     const struct tracer_regs *regs, bool push_initial,
			     uintptr_t initial, uintptr_t *result)
{
	struct memory_cursor cursor;
	struct expression_stack stack;
	uintptr_t length;

	stack.depth = 0; /* not "= {0}": zeroing the array could call memset */
	if (!memory_cursor_open(config, expression, config->eh_frame.end, &cursor))
		return CFI_MALFORMED;
	length = cursor_uleb128(&cursor);
	if (cursor.failed || length > cursor.end - cursor.pos)
		return CFI_MALFORMED;
	cursor.end = cursor.pos + length;
	if (push_initial)
		push(&stack, initial);
	while (cursor.pos < cursor.end) {
		enum cfi_status status =
		    run_op(deref_stack, &stack, cursor_u8(&cursor), &cursor, regs);

		if (cursor.failed)
			return CFI_MALFORMED;
		if (status != CFI_OK)
			return status;
	}
	if (stack.depth == 0)
		return CFI_MALFORMED;
	*result = stack.values[stack.depth - 1];
	return CFI_OK;
}
