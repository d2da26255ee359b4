/*
 * cfi_row.c - step 2 of the DWARF unwinder: run call-frame instructions to
 * get the row of the rule table in effect at one pc.
 *
 * The table has a row per code location, saying how to find the CFA
 * (canonical frame address: the caller's sp at the call) and where each
 * register of the caller was saved. Rather than store it, DWARF encodes it as
 * a program: the CIE's initial instructions give the first row, the FDE's
 * instructions change rules and advance the location. Running the program up
 * to the pc gives its row (DWARF 5, section 6.4.2).
 */
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

/* The running program: where it is, and what it has built. */
struct cfi_program {
	const struct tracer_config *config;
	const struct cfi_cie *cie;
	struct memory_cursor cursor;
	uintptr_t loc;		       /* code location of the current row */
	uintptr_t pc;		       /* stop before a row that starts past it */
	bool reached_pc;	       /* an advance went past pc: row is final */
	struct cfi_row *row;	       /* the current row */
	const struct cfi_row *initial; /* after the CIE: what DW_CFA_restore restores */
	struct cfi_row remembered[CFI_STATE_DEPTH];
	unsigned remembered_count;
};

/* Field by field: a loop copying whole rules may become a call to memcpy. */
static void row_copy(struct cfi_row *to, const struct cfi_row *from)
{
	to->cfa_kind = from->cfa_kind;
	to->cfa_register = from->cfa_register;
	to->cfa_offset = from->cfa_offset;
	to->rule_count = from->rule_count;
	for (unsigned i = 0; i < from->rule_count; i++) {
		to->rules[i].value = from->rules[i].value;
		to->rules[i].column = from->rules[i].column;
		to->rules[i].kind = from->rules[i].kind;
	}
}

const struct cfi_rule *cfi_row_rule(const struct cfi_row *row, unsigned column)
{
	for (unsigned i = 0; i < row->rule_count; i++)
		if (row->rules[i].column == column)
			return &row->rules[i];
	return NULL;
}

static enum cfi_status set_rule(struct cfi_row *row, uintptr_t column, uint8_t kind,
				int32_t value)
{
	struct cfi_rule *rule = (struct cfi_rule *)cfi_row_rule(row, (unsigned)column);

	if (column > UINT16_MAX)
		return CFI_UNSUPPORTED;
	if (!rule) {
		if (row->rule_count == CFI_MAX_RULES)
			return CFI_UNSUPPORTED;
		rule = &row->rules[row->rule_count++];
	}
	rule->column = (uint16_t)column;
	rule->kind = kind;
	rule->value = value;
	return CFI_OK;
}

/* DW_CFA_restore: back to the CIE's rule, or to unspecified if it had none. */
static enum cfi_status restore_rule(struct cfi_program *program, uintptr_t column)
{
	struct cfi_row *row = program->row;
	const struct cfi_rule *initial =
	    program->initial ? cfi_row_rule(program->initial, (unsigned)column) : NULL;
	struct cfi_rule *rule;

	if (initial)
		return set_rule(row, column, initial->kind, initial->value);
	rule = (struct cfi_rule *)cfi_row_rule(row, (unsigned)column);
	if (rule && column <= UINT16_MAX)
		*rule = row->rules[--row->rule_count]; /* order does not matter */
	return CFI_OK;
}

/* value * data alignment, as a row stores it. */
static enum cfi_status factored(const struct cfi_program *program, intptr_t value,
				int32_t *offset)
{
	return __builtin_mul_overflow(value, program->cie->data_align, offset)
		   ? CFI_UNSUPPORTED
		   : CFI_OK;
}

/* An offset given in bytes (def_cfa, def_cfa_offset). */
static enum cfi_status unfactored(uintptr_t value, int32_t *offset)
{
	if (value > INT32_MAX)
		return CFI_UNSUPPORTED;
	*offset = (int32_t)value;
	return CFI_OK;
}

static enum cfi_status set_offset_rule(struct cfi_program *program, uintptr_t column,
				       uint8_t kind, intptr_t factored_offset)
{
	int32_t offset;
	enum cfi_status status = factored(program, factored_offset, &offset);

	return status == CFI_OK ? set_rule(program->row, column, kind, offset) : status;
}

/* A ULEB128 that must be a non-negative factored offset. One that does not
 * fit fails the cursor and reads as 0, so that the caller may negate it. */
static intptr_t read_unsigned_factor(struct memory_cursor *cursor)
{
	uintptr_t value = cursor_uleb128(cursor);

	if (value > (uintptr_t)INTPTR_MAX) {
		cursor->failed = true;
		return 0;
	}
	return (intptr_t)value;
}

/* A new row starts at loc: the program is done if that is past the pc. */
static void move_to(struct cfi_program *program, uintptr_t loc)
{
	if (loc > program->pc)
		program->reached_pc = true;
	else
		program->loc = loc;
}

static enum cfi_status advance(struct cfi_program *program, uintptr_t delta)
{
	uintptr_t bytes;

	if (__builtin_mul_overflow(delta, program->cie->code_align, &bytes) ||
	    program->loc + bytes < program->loc)
		return CFI_MALFORMED;
	move_to(program, program->loc + bytes);
	return CFI_OK;
}

static enum cfi_status set_cfa(struct cfi_row *row, uint8_t kind, uintptr_t reg,
			       int32_t offset)
{
	if (reg > UINT16_MAX)
		return CFI_UNSUPPORTED;
	row->cfa_kind = kind;
	row->cfa_register = (uint16_t)reg;
	row->cfa_offset = offset;
	return CFI_OK;
}

/* DW_CFA_def_cfa_register and _offset change half of a register+offset CFA
 * (GCC's CIEs start with def_cfa_register alone: the offset is then 0). */
static enum cfi_status change_cfa(struct cfi_row *row, uintptr_t reg, int32_t offset)
{
	if (row->cfa_kind == CFI_CFA_EXPRESSION)
		return CFI_MALFORMED;
	return set_cfa(row, CFI_CFA_REGISTER_OFFSET, reg, offset);
}

/* An expression operand: records where it is and skips over it. */
static int32_t skip_expression(struct cfi_program *program)
{
	struct memory_cursor *cursor = &program->cursor;
	uintptr_t start = cursor->pos;

	cursor_skip(cursor, cursor_uleb128(cursor));
	if (start - program->config->eh_frame.start > INT32_MAX)
		cursor->failed = true;
	return (int32_t)(start - program->config->eh_frame.start);
}

static enum cfi_status remember_state(struct cfi_program *program)
{
	if (program->remembered_count == CFI_STATE_DEPTH)
		return CFI_UNSUPPORTED;
	row_copy(&program->remembered[program->remembered_count++], program->row);
	return CFI_OK;
}

static enum cfi_status restore_state(struct cfi_program *program)
{
	if (program->remembered_count == 0)
		return CFI_MALFORMED;
	row_copy(program->row, &program->remembered[--program->remembered_count]);
	return CFI_OK;
}

/* The ops that keep an operand in the opcode's low 6 bits. */
static enum cfi_status run_primary(struct cfi_program *program, uint8_t op)
{
	uint8_t operand = op & 0x3f;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance(program, operand);
	case DW_CFA_offset:
		return set_offset_rule(program, operand, CFI_RULE_OFFSET,
				       read_unsigned_factor(&program->cursor));
	default:
		return restore_rule(program, operand);
	}
}

/* The CFA definitions. */
static enum cfi_status run_cfa_op(struct cfi_program *program, uint8_t op)
{
	struct memory_cursor *cursor = &program->cursor;
	struct cfi_row *row = program->row;
	uintptr_t reg = 0;
	int32_t offset = 0;
	enum cfi_status status = CFI_OK;

	switch (op) {
	case DW_CFA_def_cfa:
		reg = cursor_uleb128(cursor);
		status = unfactored(cursor_uleb128(cursor), &offset);
		return status != CFI_OK
			   ? status
			   : set_cfa(row, CFI_CFA_REGISTER_OFFSET, reg, offset);
	case DW_CFA_def_cfa_sf:
		reg = cursor_uleb128(cursor);
		status = factored(program, cursor_sleb128(cursor), &offset);
		return status != CFI_OK
			   ? status
			   : set_cfa(row, CFI_CFA_REGISTER_OFFSET, reg, offset);
	case DW_CFA_def_cfa_register:
		return change_cfa(row, cursor_uleb128(cursor), row->cfa_offset);
	case DW_CFA_def_cfa_offset:
		status = unfactored(cursor_uleb128(cursor), &offset);
		return status != CFI_OK ? status
					: change_cfa(row, row->cfa_register, offset);
	case DW_CFA_def_cfa_offset_sf:
		status = factored(program, cursor_sleb128(cursor), &offset);
		return status != CFI_OK ? status
					: change_cfa(row, row->cfa_register, offset);
	default: /* DW_CFA_def_cfa_expression */
		return set_cfa(row, CFI_CFA_EXPRESSION, 0, skip_expression(program));
	}
}

/* Ops that set one register's rule. */
static enum cfi_status run_register_op(struct cfi_program *program, uint8_t op)
{
	struct memory_cursor *cursor = &program->cursor;
	uintptr_t column = cursor_uleb128(cursor);
	uintptr_t other;

	switch (op) {
	case DW_CFA_offset_extended:
		return set_offset_rule(program, column, CFI_RULE_OFFSET,
				       read_unsigned_factor(cursor));
	case DW_CFA_offset_extended_sf:
		return set_offset_rule(program, column, CFI_RULE_OFFSET,
				       cursor_sleb128(cursor));
	case DW_CFA_GNU_negative_offset_extended:
		return set_offset_rule(program, column, CFI_RULE_OFFSET,
				       -read_unsigned_factor(cursor));
	case DW_CFA_val_offset:
		return set_offset_rule(program, column, CFI_RULE_VAL_OFFSET,
				       read_unsigned_factor(cursor));
	case DW_CFA_val_offset_sf:
		return set_offset_rule(program, column, CFI_RULE_VAL_OFFSET,
				       cursor_sleb128(cursor));
	case DW_CFA_restore_extended:
		return restore_rule(program, column);
	case DW_CFA_undefined:
		return set_rule(program->row, column, CFI_RULE_UNDEFINED, 0);
	case DW_CFA_same_value:
		return set_rule(program->row, column, CFI_RULE_SAME_VALUE, 0);
	case DW_CFA_register:
		other = cursor_uleb128(cursor);
		return other > INT32_MAX ? CFI_UNSUPPORTED
					 : set_rule(program->row, column,
						    CFI_RULE_REGISTER, (int32_t)other);
	case DW_CFA_expression:
		return set_rule(program->row, column, CFI_RULE_EXPRESSION,
				skip_expression(program));
	default: /* DW_CFA_val_expression */
		return set_rule(program->row, column, CFI_RULE_VAL_EXPRESSION,
				skip_expression(program));
	}
}

static enum cfi_status run_op(struct cfi_program *program, uint8_t op)
{
	struct memory_cursor *cursor = &program->cursor;
	uintptr_t loc;
	enum cfi_status status;

	if (op & 0xc0)
		return run_primary(program, op);
	switch (op) {
	case DW_CFA_nop:
		return CFI_OK;
	case DW_CFA_set_loc:
		status = cfi_read_pointer(program->config, cursor,
					  program->cie->fde_encoding, &loc);
		if (status != CFI_OK)
			return status;
		if (loc < program->loc) /* locations only grow */
			return CFI_MALFORMED;
		move_to(program, loc);
		return CFI_OK;
	case DW_CFA_advance_loc1:
		return advance(program, cursor_unsigned(cursor, 1));
	case DW_CFA_advance_loc2:
		return advance(program, cursor_unsigned(cursor, 2));
	case DW_CFA_advance_loc4:
		return advance(program, cursor_unsigned(cursor, 4));
	case DW_CFA_remember_state:
		return remember_state(program);
	case DW_CFA_restore_state:
		return restore_state(program);
	case DW_CFA_GNU_args_size: /* stack adjustment at calls: not needed here */
		cursor_uleb128(cursor);
		return CFI_OK;
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_def_cfa_expression:
		return run_cfa_op(program, op);
	case DW_CFA_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_GNU_negative_offset_extended:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
	case DW_CFA_register:
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return run_register_op(program, op);
	default:
		return CFI_UNSUPPORTED;
	}
}

/* Runs [start, end) until its end or the first row past the pc. */
static enum cfi_status run(struct cfi_program *program, uintptr_t start, uintptr_t end)
{
	if (!memory_cursor_open(program->config, start, end, &program->cursor))
		return CFI_MALFORMED;
	while (program->cursor.pos < end && !program->reached_pc) {
		enum cfi_status status = run_op(program, cursor_u8(&program->cursor));

		/* An operand cut off by the end of the entry is malformed,
		 * whatever the op made of the zeros it read instead. */
		if (program->cursor.failed)
			return CFI_MALFORMED;
		if (status != CFI_OK)
			return status;
	}
	return CFI_OK;
}

enum cfi_status cfi_row_at(const struct tracer_config *config, const struct cfi_fde *fde,
			   uintptr_t pc, struct cfi_row *row)
{
	struct cfi_program program;
	struct cfi_row initial;
	enum cfi_status status;

	program.config = config;
	program.cie = &fde->cie;
	program.loc = fde->pc_start;
	program.pc = pc;
	program.reached_pc = false;
	program.row = row;
	program.initial = NULL;
	program.remembered_count = 0;
	row->cfa_kind = 0;
	row->cfa_register = 0;
	row->cfa_offset = 0;
	row->rule_count = 0;
	status = run(&program, fde->cie.instructions, fde->cie.end);
	if (status != CFI_OK)
		return status;
	row_copy(&initial, row);
	program.initial = &initial;
	status = run(&program, fde->instructions, fde->end);
	if (status != CFI_OK)
		return status;
	return row->cfa_kind != 0 ? CFI_OK : CFI_MALFORMED;
}
