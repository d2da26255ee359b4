/*
 * dwarf.c - the dwarf unwinder (DwarfTracer): unwind one frame with
 * .eh_frame call-frame information, in the two steps of LLVM libunwind's
 * DwarfParser and DwarfInstructions:
 *
 *   1. find the FDE that covers the pc (cfi_parse.c) and run its CFI to the
 *      pc into a row of rules (cfi_row.c);
 *   2. apply the row to the registers: the CFA is the caller's sp, the
 *      return-address column gives the caller's pc, and the rules give back
 *      the callee-saved registers the function changed.
 *
 * Checks on the way: the CFA lies in the stack and above the previous
 * frame's, an s0-based CFA agrees with the frame size the table states, the
 * FDE covers only text, every saved register lies in the stack; anything
 * else ends the walk with a reason.
 *
 * No allocation, no recursion, no writable globals: the state lives in the
 * caller's struct tracer_walk and on the stack (see TRACER_DWARF in tracer.h).
 */
#include "cfi.h"

/* Where tracer_regs keeps DWARF register `column`, or NULL if it does not
 * (the unwinder tracks ra, sp and the callee-saved s0-s11 only). */
static uintptr_t *register_slot(struct tracer_regs *regs, unsigned column)
{
	if (column == DWARF_REG_RA)
		return &regs->ra;
	if (column == DWARF_REG_SP)
		return &regs->sp;
	if (column == DWARF_REG_S0 || column == DWARF_REG_S1)
		return &regs->s[column - DWARF_REG_S0];
	if (column >= DWARF_REG_S2 && column <= DWARF_REG_S11)
		return &regs->s[column - DWARF_REG_S2 + 2];
	return NULL;
}

bool cfi_register_value(const struct tracer_regs *regs, unsigned column, uintptr_t *value)
{
	/* Only read through: the cast lets one mapping serve both ways. */
	const uintptr_t *slot = register_slot((struct tracer_regs *)regs, column);

	if (!slot)
		return false;
	*value = *slot;
	return true;
}

static enum tracer_stop stop_reason(enum cfi_status status)
{
	switch (status) {
	case CFI_NOT_FOUND:
		return TRACER_STOP_NO_CFI;
	case CFI_UNSUPPORTED:
		return TRACER_STOP_UNSUPPORTED_CFI;
	case CFI_UNREADABLE:
		return TRACER_STOP_OUTSIDE_STACK;
	default:
		return TRACER_STOP_BAD_CFI;
	}
}

/* The CFA of the row, from the callee's registers. */
static enum cfi_status compute_cfa(const struct walk *walk, const struct cfi_row *row,
				   uintptr_t *cfa)
{
	const struct tracer_config *config = walk->config;
	uintptr_t base;

	if (row->cfa_kind == CFI_CFA_EXPRESSION)
		return cfi_evaluate(config, &walk->stack,
				    config->eh_frame.start + (uint32_t)row->cfa_offset,
				    &walk->next, false, 0, cfa);
	/* sp first: the CFA's register but in frame-pointer code. */
	if (row->cfa_register == DWARF_REG_SP)
		base = walk->next.sp;
	else if (!cfi_register_value(&walk->next, row->cfa_register, &base))
		return CFI_UNSUPPORTED;
	*cfa = base + (uintptr_t)(intptr_t)row->cfa_offset;
	return CFI_OK;
}

/* The addresses of the stack's whole words, [start, end - word], as a
 * window (memory_read_stack_word's bounds, computed once a frame); for a
 * stack smaller than a word, only UINTPTR_MAX, which is never aligned. */
static inline struct window stack_words(struct tracer_range stack)
{
	struct window words = {UINTPTR_MAX, 0};

	if (stack.end >= stack.start && stack.end - stack.start >= TARGET_WORD_SIZE) {
		words.first = stack.start;
		words.span = stack.end - TARGET_WORD_SIZE - stack.start;
	}
	return words;
}

/* The caller's value of a register whose rule is of `kind` (neither an
 * offset, apply_row's own case, nor unspecified nor same value) and value
 * `operand`, from the callee's registers and the CFA. An undefined register
 * reads as 0: lost. */
static enum cfi_status rule_value(const struct walk *walk, unsigned kind, int32_t operand,
				  uintptr_t cfa, uintptr_t *value)
{
	const struct tracer_config *config = walk->config;
	uintptr_t expression = config->eh_frame.start + (uint32_t)operand;
	uintptr_t address;
	enum cfi_status status;

	switch (kind) {
	case CFI_RULE_UNDEFINED:
		*value = 0;
		return CFI_OK;
	case CFI_RULE_VAL_OFFSET:
		*value = cfa + (uintptr_t)(intptr_t)operand;
		return CFI_OK;
	case CFI_RULE_REGISTER:
		return cfi_register_value(&walk->next, (unsigned)operand, value)
			   ? CFI_OK
			   : CFI_UNSUPPORTED;
	case CFI_RULE_EXPRESSION:
		status = cfi_evaluate(config, &walk->stack, expression, &walk->next, true,
				      cfa, &address);
		if (status != CFI_OK)
			return status;
		return memory_read_word(&walk->stack, address, value) ? CFI_OK
								      : CFI_UNREADABLE;
	default: /* CFI_RULE_VAL_EXPRESSION */
		return cfi_evaluate(config, &walk->stack, expression, &walk->next, true,
				    cfa, value);
	}
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "a row's kinds are scanned from the low byte of each word");
_Static_assert(CFI_SLOTS <= 32, "a slot's bit in a uintptr_t");

/*
 * The writes of apply_row, once the values of the slots in `assigned` are
 * in values[]: the caller's registers. Inline in its two callers, so that
 * neither keeps a register across a call.
 */
static inline __attribute__((always_inline)) enum tracer_stop
write_row(struct walk *walk, const struct cfi_row *row, uintptr_t return_slot,
	  uintptr_t cfa, const uintptr_t *values, uintptr_t assigned)
{
	struct tracer_regs *regs = &walk->next;
	uintptr_t return_address = 0;

	/* Another sp would be a frame the checks never saw: a loop. */
	if ((assigned >> CFI_SLOT_SP & 1) &&
	    cfi_row_kind(row, CFI_SLOT_SP) != CFI_RULE_UNDEFINED &&
	    values[CFI_SLOT_SP] != cfa)
		return values[CFI_SLOT_SP] <= regs->sp ? TRACER_STOP_NOT_ASCENDING
						       : TRACER_STOP_BAD_CFI;
	/* The return address: the return slot's rule, else the callee's. */
	if (return_slot < CFI_SLOTS && (assigned >> return_slot & 1))
		return_address = values[return_slot];
	else if (!cfi_register_value(regs, row->return_column, &return_address))
		return TRACER_STOP_UNSUPPORTED_CFI;
	/* s0-s11: the 12 bits from CFI_SLOT_S0. */
	for (uintptr_t s = 0, saved = assigned >> CFI_SLOT_S0 & 0xfff; saved != 0;
	     saved >>= 1, s++)
		if (saved & 1)
			regs->s[s] = values[CFI_SLOT_S0 + s];
	regs->sp = cfa;
	/* After the return, ra still holds the address returned to. */
	regs->pc = return_address;
	regs->ra = return_address;
	return TRACER_RUNNING;
}

/* The rest of apply_row when the rules of some slots (`others`) are
 * neither offsets nor unspecified nor same value, rare in compiled code
 * (see rule_value): their values, in slot order, then the writes. Not
 * inlined: apply_row's common path makes no call. */
static __attribute__((noinline)) enum tracer_stop
apply_other_rules(struct walk *walk, const struct cfi_row *row, uintptr_t return_slot,
		  uintptr_t cfa, uintptr_t *values, uintptr_t assigned, uintptr_t others)
{
	for (uintptr_t slot = 0, left = others; left != 0; left >>= 1, slot++) {
		enum cfi_status status;

		if (!(left & 1))
			continue;
		status = rule_value(walk, cfi_row_kind(row, slot), row->values[slot], cfa,
				    &values[slot]);
		if (status != CFI_OK)
			return stop_reason(status);
	}
	return write_row(walk, row, return_slot, cfa, values, assigned | others);
}

/*
 * Turns the callee's registers in walk->next into the caller's, in two
 * steps: first every rule's value from the callee's registers (a rule may
 * read any of them), then the writes (write_row). Unspecified and
 * same-value rules keep the callee's value; the caller's sp is the CFA
 * (psABI), which the walk has checked: a rule for sp may only agree with
 * it, never replace it. The values come in a fixed order: the offsets, the
 * common case, in slot order (ra first) in a loop without a call, then the
 * other rules (apply_other_rules), then sp's check; the first that fails
 * stops the walk. The return slot's rule is never undefined here
 * (dwarf_step stops first). Not inlined: its frame is not on the stack
 * while the row is computed, the walk's deepest path.
 */
static __attribute__((noinline)) enum tracer_stop apply_row(struct walk *walk,
							    const struct cfi_row *row,
							    uintptr_t return_slot,
							    uintptr_t cfa)
{
	const struct window words = stack_words(walk->stack);
	uintptr_t values[CFI_SLOTS]; /* the caller's, of the slots in `assigned` */
	uintptr_t assigned = 0;	     /* a bit a slot */
	uintptr_t others = 0;	     /* slots of apply_other_rules */

	for (uintptr_t word = 0; word < CFI_KIND_WORDS; word++) {
		uintptr_t slot = word * CFI_KINDS_PER_WORD;

		for (uintptr_t kinds = row->kinds.words[word]; kinds != 0;
		     kinds >>= CFI_KIND_BITS, slot++) {
			unsigned kind = (unsigned)(kinds & 0xff);

			if (kind == CFI_RULE_OFFSET) {
				uintptr_t address =
				    cfa + (uintptr_t)(intptr_t)row->values[slot];

				if (address % TARGET_WORD_SIZE != 0 ||
				    !window_contains(words, address))
					return TRACER_STOP_OUTSIDE_STACK;
				values[slot] = target_word(address);
				assigned |= (uintptr_t)1 << slot;
			} else if (kind != 0 && kind != CFI_RULE_SAME_VALUE) {
				others |= (uintptr_t)1 << slot;
			}
		}
	}
	if (others != 0)
		return apply_other_rules(walk, row, return_slot, cfa, values, assigned,
					 others);
	return write_row(walk, row, return_slot, cfa, values, assigned);
}

void dwarf_step(struct walk *walk)
{
	/* A return address is just past its call: look up the call itself. */
	uintptr_t pc = walk->next_is_exact ? walk->next.pc : walk->next.pc - 1;
	struct cfi_fde fde;
	struct cfi_row row;
	uintptr_t return_slot;
	uintptr_t cfa;
	enum cfi_status status;

	/* An index that failed validation is not read (see tables.c). */
	if (walk->fde_index_status != TRACER_TABLE_OK &&
	    walk->fde_index_status != TRACER_TABLE_ABSENT) {
		walk->stop = TRACER_STOP_BAD_FDE_INDEX;
		return;
	}
	/* Step 1: the row of rules at the pc. */
	status = walk->fde_searchable ? cfi_find_walk_fde(walk, pc, &walk->cie, &fde)
				      : CFI_NOT_FOUND;
	if (status == CFI_OK)
		status = cfi_row_at_cached(walk->config, &fde, &walk->cie, pc, &row);
	if (status == CFI_OK)
		status = compute_cfa(walk, &row, &cfa);
	if (status != CFI_OK) {
		walk->stop = stop_reason(status);
		return;
	}
	/* Boot code marks the first frame of a stack so: no caller. */
	return_slot = cfi_column_slot(&row, row.return_column);
	if (return_slot < CFI_SLOTS &&
	    cfi_row_kind(&row, return_slot) == CFI_RULE_UNDEFINED) {
		walk->stop = frame_outermost(walk, cfa, TRACER_STOP_EARLY_OUTERMOST);
		return;
	}
	walk->stop = frame_check_cfa(walk, cfa);
	if (TRACER_LINKS_TABLE && walk->stop == TRACER_RUNNING &&
	    row.cfa_kind != CFI_CFA_EXPRESSION && row.cfa_register == DWARF_REG_S0)
		walk->stop = frame_size_check(walk, cfa);
	if (walk->stop != TRACER_RUNNING)
		return;
	/* Step 2: the row applied, the caller's registers. */
	walk->stop = apply_row(walk, &row, return_slot, cfa);
	if (walk->stop == TRACER_RUNNING)
		walk->next_is_exact = false;
}
