/*
 * cfi_common.h - the common call-frame ops (cfi_row.c's loop for the ops
 * compilers emit in every FDE), inline in both of their callers: the
 * general interpreter (cfi_row.c) and the walk's step (dwarf.c), which then
 * keeps the row's computation in its own registers, without a call. One
 * source for both: the parser stays one.
 */
#ifndef TRACER_CFI_COMMON_H
#define TRACER_CFI_COMMON_H

#include "cfi.h"

/* DW_CFA_* opcodes (DWARF 5, section 7.24). The first three keep an operand
 * in their low 6 bits. */
enum {
	DW_CFA_advance_loc = 0x40,
	DW_CFA_offset = 0x80,
	DW_CFA_restore = 0xc0,
	DW_CFA_nop = 0x00,
	DW_CFA_set_loc = 0x01,
	DW_CFA_advance_loc1 = 0x02,
	DW_CFA_advance_loc2 = 0x03,
	DW_CFA_advance_loc4 = 0x04,
	DW_CFA_offset_extended = 0x05,
	DW_CFA_restore_extended = 0x06,
	DW_CFA_undefined = 0x07,
	DW_CFA_same_value = 0x08,
	DW_CFA_register = 0x09,
	DW_CFA_remember_state = 0x0a,
	DW_CFA_restore_state = 0x0b,
	DW_CFA_def_cfa = 0x0c,
	DW_CFA_def_cfa_register = 0x0d,
	DW_CFA_def_cfa_offset = 0x0e,
	DW_CFA_def_cfa_expression = 0x0f,
	DW_CFA_expression = 0x10,
	DW_CFA_offset_extended_sf = 0x11,
	DW_CFA_def_cfa_sf = 0x12,
	DW_CFA_def_cfa_offset_sf = 0x13,
	DW_CFA_val_offset = 0x14,
	DW_CFA_val_offset_sf = 0x15,
	DW_CFA_val_expression = 0x16,
	DW_CFA_GNU_args_size = 0x2e,
	DW_CFA_GNU_negative_offset_extended = 0x2f,
};

#ifdef TRACER_HOST_VIEW
/* A column the walk does not restore: kept for the build tools only
 * (cfi_row.c), and never a reason to fail, as on the target. */
void cfi_set_other_rule(struct cfi_row *row, uintptr_t column, uint8_t kind,
			int32_t value);
/* DW_CFA_restore of such a column. */
void cfi_restore_other_rule(struct cfi_row *row, const struct cfi_row *initial,
			    uintptr_t column);
#else
static inline void cfi_set_other_rule(struct cfi_row *row, uintptr_t column, uint8_t kind,
				      int32_t value)
{
	(void)row, (void)column, (void)kind, (void)value;
}

static inline void cfi_restore_other_rule(struct cfi_row *row,
					  const struct cfi_row *initial, uintptr_t column)
{
	(void)row, (void)initial, (void)column;
}
#endif

/* Sets a slot's rule, its kind in `kinds` (row->kinds, or common_ops'
 * copy of them in registers). */
static inline void set_slot(struct cfi_row *row, uintptr_t *kinds, uintptr_t slot,
			    unsigned kind, int32_t value)
{
	/* Constant where one word holds every slot (rv64). */
	uintptr_t *word = &kinds[CFI_KIND_WORDS == 1 ? 0 : slot / CFI_KINDS_PER_WORD];
	/* slot < CFI_SLOTS: in one word, no remainder to take. */
	uintptr_t shift =
	    CFI_KIND_BITS * (CFI_KIND_WORDS == 1 ? slot : slot % CFI_KINDS_PER_WORD);

	/* The old kind xor the new, xored in: immediates only, no masks. */
	*word ^= (((*word >> shift) & CFI_KIND_MASK) ^ kind) << shift;
	/* On rv64 the shift is also the value's byte offset (4 bits of kind,
	 * 4 bytes of value a slot): one address computation for both. */
	if (CFI_KIND_WORDS == 1 && CFI_KIND_BITS == sizeof(row->values[0]))
		*(int32_t *)((char *)row->values + shift) = value;
	else
		row->values[slot] = value;
}

/* DW_CFA_restore: back to the CIE's rule (`initial`'s, NULL: none), or to
 * unspecified if it had none. Inline: the common ops' loop keeps no call. */
static inline __attribute__((always_inline)) void
restore_column(struct cfi_row *row, uintptr_t *kinds, const struct cfi_row *initial,
	       uintptr_t column)
{
	unsigned slot = cfi_column_slot(row, column);

	if (slot == CFI_SLOTS) {
		cfi_restore_other_rule(row, initial, column);
		return;
	}
	if (initial)
		set_slot(row, kinds, slot, cfi_row_kind(initial, slot),
			 initial->values[slot]);
	else
		set_slot(row, kinds, slot, 0, 0);
}

static inline enum cfi_status set_cfa(struct cfi_row *row, uint8_t kind, uintptr_t reg,
				      int32_t offset)
{
	if (reg > UINT16_MAX)
		return CFI_UNSUPPORTED;
	row->cfa_kind = kind;
	row->cfa_register = (uint16_t)reg;
	row->cfa_offset = offset;
	return CFI_OK;
}

/* Where the common ops' loop is, in its caller's locals (registers). */
struct common_state {
	uintptr_t pos;	 /* the next op */
	uintptr_t left;	 /* bytes from the current row's location to the pc */
	bool moved;	 /* an advance ran */
	bool reached_pc; /* an advance went past the pc: the row is final */
#ifdef TRACER_HOST_VIEW
	uintptr_t next_loc; /* where that advance went */
#endif
};

/* Whether the common ops' arithmetic is safe with these factors: a 6-bit
 * delta times code_align cannot overflow, nor a one-byte factor (< 0x80)
 * times data_align an int32. Else the general decoder takes every op,
 * checking. */
static inline bool common_factors(uintptr_t code_align, intptr_t data_align)
{
	return code_align <= UINTPTR_MAX / 0x3f && data_align >= -0x1000000 &&
	       data_align <= 0x1000000;
}

/*
 * The ops compilers emit in every FDE, from state->pos up to `end` or the
 * first row past `pc`: advance_loc, offset with a one-byte operand, restore
 * (to `initial`'s rule, NULL: none), def_cfa_offset and def_cfa with
 * one-byte operands. Returns at the first other op (not run), at the end,
 * or once the pc is reached; the factors must pass common_factors. Inline:
 * the row's computation runs it every frame, its state in registers.
 */
static inline __attribute__((always_inline)) enum cfi_status
common_ops(struct cfi_row *row, const struct cfi_row *initial, uintptr_t code_align,
	   intptr_t data_align, uintptr_t pc, uintptr_t end, struct common_state *state)
{
	uintptr_t pos = state->pos;
	uintptr_t left = state->left;
	/* The kinds in registers while the loop runs: stored through the
	 * row, they would be reloaded after every byte read (a char read may
	 * alias them). */
	uintptr_t kinds[CFI_KIND_WORDS];
	enum cfi_status status = CFI_OK;

	for (unsigned i = 0; i < CFI_KIND_WORDS; i++)
		kinds[i] = row->kinds[i];

	while (pos < end) {
		unsigned op = target_u8(pos);
		unsigned operand;
		uintptr_t bytes;

		if ((op & 0xc0) == DW_CFA_advance_loc) {
			bytes = (op & 0x3f) * code_align;
			pos++;
			state->moved = true;
			if (bytes > left) {
				uintptr_t loc = pc - left;

				/* Past the address space is malformed. */
				if (loc + bytes < loc)
					status = CFI_MALFORMED;
#ifdef TRACER_HOST_VIEW
				else
					state->next_loc = loc + bytes;
#endif
				state->reached_pc = true;
				break;
			}
			left -= bytes;
			continue;
		}
		if ((op & 0xc0) == DW_CFA_restore) {
			pos++;
			restore_column(row, kinds, initial, op & 0x3f);
			continue;
		}
		/* A one-byte ULEB128 operand, if one follows: else 0x80. */
		operand = end - pos > 1 ? target_u8(pos + 1) : 0x80;
		if (operand >= 0x80)
			break;
		if ((op & 0xc0) == DW_CFA_offset) {
			pos += 2;
			/* A word, not unsigned: indexes values[] as it is. */
			uintptr_t slot = cfi_column_slot(row, op & 0x3f);

			if (slot != CFI_SLOTS)
				set_slot(row, kinds, slot, CFI_RULE_OFFSET,
					 (int32_t)((intptr_t)operand * data_align));
			else
				cfi_set_other_rule(
				    row, op & 0x3f, CFI_RULE_OFFSET,
				    (int32_t)((intptr_t)operand * data_align));
			continue;
		}
		if (op == DW_CFA_def_cfa_offset && row->cfa_kind != CFI_CFA_EXPRESSION) {
			pos += 2;
			set_cfa(row, CFI_CFA_REGISTER_OFFSET, row->cfa_register,
				(int32_t)operand);
			continue;
		}
		/* def_cfa with two one-byte operands: frame-pointer setup. */
		if (op != DW_CFA_def_cfa || end - pos <= 2 || target_u8(pos + 2) >= 0x80)
			break;
		set_cfa(row, CFI_CFA_REGISTER_OFFSET, operand,
			(int32_t)target_u8(pos + 2));
		pos += 3;
	}
	for (unsigned i = 0; i < CFI_KIND_WORDS; i++)
		row->kinds[i] = kinds[i];
	state->pos = pos;
	state->left = left;
	return status;
}

/* cfi.h's cfi_row_at_common, inline where the walk computes its rows. */
static inline __attribute__((always_inline)) bool
cfi_row_at_common_inline(const struct tracer_config *config, const struct cfi_fde *fde,
			 const struct tracer_cie *cache, uintptr_t pc,
			 struct cfi_row *row, enum cfi_status *status)
{
	struct common_state state;

	if (!cache->initial_known || cache->ra_column > UINT16_MAX ||
	    !common_factors(cache->code_align, cache->data_align) ||
	    fde->instructions > fde->end || fde->instructions < config->eh_frame.start ||
	    fde->end > config->eh_frame.end)
		return false;
	cfi_row_clear(row, (uint16_t)cache->ra_column);
	row->cfa_kind = cache->initial_cfa_kind;
	row->cfa_register = cache->initial_cfa_register;
	row->cfa_offset = cache->initial_cfa_offset;
	state.pos = fde->instructions;
	state.left = pc - fde->pc_start;
	state.moved = false;
	state.reached_pc = false;
#ifdef TRACER_HOST_VIEW
	state.next_loc = UINTPTR_MAX;
#endif
	/* The cached initial row has no register rules: restore clears. */
	*status = common_ops(row, NULL, cache->code_align, cache->data_align, pc,
			     fde->end, &state);
	if (*status == CFI_OK && !state.reached_pc && state.pos != fde->end)
		return false;
	if (*status == CFI_OK && row->cfa_kind == 0)
		*status = CFI_MALFORMED;
	return true;
}

#endif /* TRACER_CFI_COMMON_H */
