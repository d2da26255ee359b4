/*
 * dwarf.c - the DWARF unwinder: unwind one frame with .eh_frame call-frame
 * information.
 *
 * For the frame's pc, find its FDE (cfi_parse.c), compute the row of the
 * rule table there (cfi_row.c), then apply the row: the CFA is the caller's
 * sp, the return-address column gives the caller's pc, and the rules give
 * back the callee-saved registers the function changed. Checks on the way:
 * the CFA lies in the stack and above the previous frame's, the FDE covers
 * only text; anything else ends the walk with a reason.
 *
 * No allocation, no recursion, no writable globals: the state lives in the
 * caller's struct tracer_walk and on the stack (see TRACER_DWARF in tracer.h).
 */
#include "cfi_common.h"

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

/* The CFA of the row, from the callee's registers. */
static enum cfi_status compute_cfa(const struct walk *walk,
				   const struct cfi_row *row,
				   const struct tracer_regs *callee, uintptr_t *cfa)
{
	const struct tracer_config *config = walk->config;
	uintptr_t base;

	if (row->cfa_kind == CFI_CFA_EXPRESSION)
		return cfi_evaluate(config, &walk->stack,
				    config->eh_frame.start + (uint32_t)row->cfa_offset,
				    callee, false, 0, cfa);
	/* sp first: the CFA's register but in frame-pointer code. */
	if (row->cfa_register == DWARF_REG_SP)
		base = callee->sp;
	else if (!cfi_register_value(callee, row->cfa_register, &base))
		return CFI_UNSUPPORTED;
	*cfa = base + (uintptr_t)(intptr_t)row->cfa_offset;
	return CFI_OK;
}

/* The caller's value of a register under a rule of `kind` and `value`
 * other than apply_row's own cases (undefined, same value, offset). */
static enum cfi_status apply_rule(const struct walk *walk, uint8_t kind,
				  int32_t rule_value, const struct tracer_regs *callee,
				  uintptr_t cfa, uintptr_t *value)
{
	const struct tracer_config *config = walk->config;
	const struct tracer_range *stack = &walk->stack;
	uintptr_t expression = config->eh_frame.start + (uint32_t)rule_value;
	uintptr_t address;
	enum cfi_status status;

	switch (kind) {
	case CFI_RULE_VAL_OFFSET:
		*value = cfa + (uintptr_t)(intptr_t)rule_value;
		return CFI_OK;
	case CFI_RULE_REGISTER:
		return cfi_register_value(callee, (unsigned)rule_value, value)
			   ? CFI_OK
			   : CFI_UNSUPPORTED;
	case CFI_RULE_EXPRESSION:
		status =
		    cfi_evaluate(config, stack, expression, callee, true, cfa, &address);
		if (status != CFI_OK)
			return status;
		return memory_read_word(stack, address, value) ? CFI_OK : CFI_UNREADABLE;
	default: /* CFI_RULE_VAL_EXPRESSION */
		return cfi_evaluate(config, stack, expression, callee, true, cfa, value);
	}
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

/*
 * Turns the callee's registers in *regs into the caller's: unspecified rules
 * mean "same value", so only sp (the CFA) and the registers with a rule
 * change. `callee` is a copy of the registers before, which rules refer to.
 * The caller's sp is the CFA (psABI), which the walk has checked: a rule for
 * sp may only agree with it, never replace it. The slots go in a fixed
 * order, ra first: a failing rule stops the walk whichever comes first.
 * `general`: false when every rule is undefined, same value or an offset
 * (simple_rules): the function is then a leaf, with no call to keep
 * registers across.
 */
static inline __attribute__((always_inline)) enum tracer_stop
apply_row(const struct walk *walk, const struct cfi_row *row, unsigned return_slot,
	  const struct tracer_regs *callee, uintptr_t cfa, struct tracer_regs *regs,
	  bool general)
{
	const struct window words = stack_words(walk->stack);
	uintptr_t return_address = 0;
	bool has_return_address =
	    cfi_register_value(callee, row->return_column, &return_address);
	/* Read before regs changes: it may be callee (see dwarf_step). */
	uintptr_t callee_sp = callee->sp;

	regs->sp = cfa;
	/* The slots with a rule, lowest first. The return slot is another
	 * only when none of these has the return-address column; its rule
	 * is never undefined here (dwarf_step stops first). */
	for (unsigned word = 0; word < CFI_KIND_WORDS; word++) {
		uintptr_t slot = word * CFI_KINDS_PER_WORD;

		for (uintptr_t kinds = row->kinds[word]; kinds != 0;
		     kinds >>= CFI_KIND_BITS, slot++) {
			uintptr_t kind = kinds & CFI_KIND_MASK;
			uintptr_t value = 0; /* undefined: lost, nothing to show */
			enum cfi_status status;

			/* Offsets, the common case, first and without a call. */
			if (kind == CFI_RULE_OFFSET) {
				uintptr_t address =
				    cfa + (uintptr_t)(intptr_t)row->values[slot];

				if (address % TARGET_WORD_SIZE != 0 ||
				    !window_contains(words, address))
					return TRACER_STOP_OUTSIDE_STACK;
				value = target_word(address);
			} else if (kind == 0 || kind == CFI_RULE_SAME_VALUE) {
				continue; /* the callee's value, already there */
			} else if (general && kind != CFI_RULE_UNDEFINED) {
				status =
				    apply_rule(walk, (uint8_t)kind, row->values[slot],
					       callee, cfa, &value);
				if (status != CFI_OK)
					return stop_reason(status);
			}
			if (slot == return_slot) {
				return_address = value;
				has_return_address = true;
			} else if (slot >= CFI_SLOT_S0) {
				regs->s[slot - CFI_SLOT_S0] = value;
			} else if (slot == CFI_SLOT_RA) {
				regs->ra = value;
			} else if (kind != CFI_RULE_UNDEFINED && value != cfa) {
				/* Another sp would be a frame the checks never saw: a
				 * loop. */
				return value <= callee_sp ? TRACER_STOP_NOT_ASCENDING
							  : TRACER_STOP_BAD_CFI;
			}
		}
	}
	if (!has_return_address)
		return TRACER_STOP_UNSUPPORTED_CFI;
	/* After the return, ra still holds the address returned to. */
	regs->pc = return_address;
	regs->ra = return_address;
	return TRACER_RUNNING;
}

/* Whether every rule of the row is undefined, same value or an offset
 * (kinds 1-3: no bit above the low two in any slot). */
_Static_assert(CFI_RULE_UNDEFINED == 1 && CFI_RULE_OFFSET == 3,
	       "simple kinds are 1 to 3");
static bool simple_rules(const uintptr_t *kinds)
{
	const uintptr_t high_bits = UINTPTR_MAX / CFI_KIND_MASK * 0xc; /* 0xcc...c */
	uintptr_t other = 0;

	for (unsigned i = 0; i < CFI_KIND_WORDS; i++)
		other |= kinds[i] & high_bits;
	return other == 0;
}

/* apply_row in place for rows of simple_rules, which read only the CFA and
 * the stack: the common case, inline in dwarf_step. */
static inline __attribute__((always_inline)) enum tracer_stop
step_simple(struct walk *walk, const struct cfi_row *row, unsigned return_slot,
	    uintptr_t cfa)
{
	return apply_row(walk, row, return_slot, &walk->next, cfa, &walk->next, false);
}

/* Whether a rule of the row reads the callee's registers (a register or
 * an expression rule: kinds 5-7, 0b1xx but not 0b100, in any slot). */
_Static_assert(CFI_RULE_REGISTER == 5 && CFI_RULE_VAL_EXPRESSION == 7,
	       "register-reading kinds are 5 to 7");
static bool rules_read_registers(const uintptr_t *kinds)
{
	const uintptr_t low_bits = UINTPTR_MAX / CFI_KIND_MASK; /* 0x11...1 */
	uintptr_t reading = 0;

	for (unsigned i = 0; i < CFI_KIND_WORDS; i++)
		reading |= (kinds[i] >> 2) & (kinds[i] | kinds[i] >> 1) & low_bits;
	return reading != 0;
}

/* apply_row on a copy of the callee's registers. Not inlined: the copy is
 * then not on the stack while the row is computed, the deepest part. */
static __attribute__((noinline)) enum tracer_stop
step_to_caller(struct walk *walk, const struct cfi_row *row, unsigned return_slot,
	       uintptr_t cfa)
{
	struct tracer_regs callee;

	regs_copy(&callee, &walk->next);
	return apply_row(walk, row, return_slot, &callee, cfa, &walk->next, true);
}

/* apply_row in place, for rows whose rules read only the CFA and the
 * stack, some of them neither undefined, same value nor an offset. */
static __attribute__((noinline)) enum tracer_stop step_in_place(struct walk *walk,
								const struct cfi_row *row,
								unsigned return_slot,
								uintptr_t cfa)
{
	return apply_row(walk, row, return_slot, &walk->next, cfa, &walk->next, true);
}

void dwarf_step(struct walk *walk)
{
	const struct tracer_config *config = walk->config;
	/* A return address is just past its call: look up the call itself. */
	uintptr_t pc = walk->next_is_exact ? walk->next.pc : walk->next.pc - 1;
	struct cfi_fde fde;
	struct cfi_row row;
	unsigned return_slot;
	uintptr_t cfa;
	enum cfi_status status;

	/* An index that failed validation is not read (see tables.c). */
	if (walk->fde_index_status != TRACER_TABLE_OK &&
	    walk->fde_index_status != TRACER_TABLE_ABSENT) {
		walk->stop = TRACER_STOP_BAD_FDE_INDEX;
		return;
	}
	status = walk->fde_searchable ? cfi_find_walk_fde(walk, pc, &walk->cie, &fde)
				      : CFI_NOT_FOUND;
	if (status == CFI_OK &&
	    !cfi_row_at_common_inline(config, &fde, &walk->cie, pc, &row, &status))
		status = cfi_row_at_cached(config, &fde, &walk->cie, pc, &row);
	if (status == CFI_OK)
		status = compute_cfa(walk, &row, &walk->next, &cfa);
	if (status != CFI_OK) {
		walk->stop = stop_reason(status);
		return;
	}
	/* Boot code marks the first frame of a stack so: no caller. */
	/* ra, the return column of every compiler's CIE, without a lookup. */
	return_slot = walk->cie.ra_column == DWARF_REG_RA
			  ? CFI_SLOT_RA
			  : cfi_column_slot(&row, walk->cie.ra_column);
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
	/* Rules that read only the CFA and the stack may change the
	 * registers in place. */
	if (simple_rules(row.kinds))
		walk->stop = step_simple(walk, &row, return_slot, cfa);
	else if (rules_read_registers(row.kinds))
		walk->stop = step_to_caller(walk, &row, return_slot, cfa);
	else
		walk->stop = step_in_place(walk, &row, return_slot, cfa);
	if (walk->stop != TRACER_RUNNING)
		return;
	walk->next_is_exact = false;
}
