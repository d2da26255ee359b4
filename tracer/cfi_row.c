/*
 * cfi_row.c - the CFI interpreter: runs call-frame instructions to get the
 * row of the rule table in effect at one pc (cfi.h says what a row is).
 *
 * Rather than store the table, DWARF encodes it as a program: the CIE's
 * initial instructions give the first row, the FDE's instructions change
 * rules and advance the location. Running the program up to the pc gives its
 * row (DWARF 5, section 6.4.2). The walk (dwarf.c) and the build tools
 * (symgen, built for the host) run this one interpreter.
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

/* What an advance past the pc returns, to end the program: its row is the
 * pc's. Never returned out of this file. */
#define CFI_REACHED_PC ((enum cfi_status)(CFI_UNREADABLE + 1))

/*
 * A running program, in two parts: what it has built, `struct cfi_program`,
 * and where it is, `struct cfi_position`, a local of row_at() that stays in
 * registers while the program runs: no call takes its address (the reads
 * that call out read a copy of the cursor, see read_uleb128), and no store
 * to the row can change it.
 */
struct cfi_program {
	const struct tracer_config *config;
	const struct tracer_cie *cie;
	struct cfi_row *row;	       /* the current row */
	const struct cfi_row *initial; /* after the CIE: what DW_CFA_restore restores */
	struct cfi_row remembered[CFI_STATE_DEPTH];
	unsigned remembered_count;
};

struct cfi_position {
	struct memory_cursor cursor; /* the next op */
	uintptr_t loc;		     /* code location of the current row */
	uintptr_t pc;		     /* stop before a row that starts past it */
	bool moved;		     /* an advance or set_loc ran */
#ifdef TRACER_HOST_VIEW
	/* Where that advance went (the next row): only the build tools ask
	 * (cfi_row_until). */
	uintptr_t next_loc;
#endif
};

/* ---- the rules of columns the walk does not restore (host only) ---- */

#ifdef TRACER_HOST_VIEW
static struct cfi_rule *other_rule(const struct cfi_row *row, uintptr_t column)
{
	for (unsigned i = 0; i < row->other_count; i++)
		if (row->others[i].column == column)
			return (struct cfi_rule *)&row->others[i];
	return NULL;
}

/* Kept for the build tools only, and never a reason to fail, as on the
 * target, which drops them. */
static void set_other_rule(struct cfi_row *row, uintptr_t column, uint8_t kind,
			   int32_t value)
{
	struct cfi_rule *rule = other_rule(row, column);

	if (!rule) {
		if (row->other_count == CFI_MAX_OTHER_RULES || column > UINT16_MAX) {
			row->others_lost = true;
			return;
		}
		rule = &row->others[row->other_count++];
	}
	rule->column = (uint16_t)column;
	rule->kind = kind;
	rule->value = value;
}

static void restore_other_rule(struct cfi_row *row, const struct cfi_row *initial,
			       uintptr_t column)
{
	const struct cfi_rule *from = initial ? other_rule(initial, column) : NULL;
	struct cfi_rule *rule;

	if (from) {
		set_other_rule(row, column, from->kind, from->value);
		return;
	}
	rule = other_rule(row, column);
	if (rule)
		*rule = row->others[--row->other_count]; /* order does not matter */
}

static void others_copy(struct cfi_row *to, const struct cfi_row *from)
{
	to->other_count = from->other_count;
	to->others_lost = from->others_lost;
	for (unsigned i = 0; i < from->other_count; i++) {
		to->others[i].value = from->others[i].value;
		to->others[i].column = from->others[i].column;
		to->others[i].kind = from->others[i].kind;
	}
}
#else
static inline void set_other_rule(struct cfi_row *row, uintptr_t column, uint8_t kind,
				  int32_t value)
{
	(void)row, (void)column, (void)kind, (void)value;
}

static inline void restore_other_rule(struct cfi_row *row, const struct cfi_row *initial,
				      uintptr_t column)
{
	(void)row, (void)initial, (void)column;
}

static inline void others_copy(struct cfi_row *to, const struct cfi_row *from)
{
	(void)to, (void)from;
}
#endif

/* ---- the row ---- */

/* A row without rules, its return-address column set. */
static void row_clear(struct cfi_row *row, uint16_t return_column)
{
	row->return_column = return_column;
	for (unsigned i = 0; i < CFI_KIND_WORDS; i++)
		row->kinds.words[i] = 0;
#ifdef TRACER_HOST_VIEW
	row->other_count = 0;
	row->others_lost = false;
#endif
}

/* Element by element (a loop of plain stores, which GCC and clang keep as
 * a loop under -fno-builtin; a struct assignment may become memcpy). */
static void row_copy(struct cfi_row *to, const struct cfi_row *from)
{
	to->cfa_kind = from->cfa_kind;
	to->cfa_register = from->cfa_register;
	to->cfa_offset = from->cfa_offset;
	to->return_column = from->return_column;
	for (unsigned i = 0; i < CFI_KIND_WORDS; i++)
		to->kinds.words[i] = from->kinds.words[i];
	for (unsigned i = 0; i < CFI_SLOTS; i++)
		to->values[i] = from->values[i];
	others_copy(to, from);
}

static bool row_has_rules(const struct cfi_row *row)
{
#ifdef TRACER_HOST_VIEW
	if (row->other_count != 0)
		return true;
#endif
	uintptr_t kinds = 0;

	for (unsigned i = 0; i < CFI_KIND_WORDS; i++)
		kinds |= row->kinds.words[i];
	return kinds != 0;
}

struct cfi_rule cfi_row_rule(const struct cfi_row *row, unsigned column)
{
	unsigned slot = cfi_column_slot(row, column);
	struct cfi_rule rule = {0, (uint16_t)column, 0};

	if (slot < CFI_SLOTS) {
		rule.kind = (uint8_t)cfi_row_kind(row, slot);
		rule.value = rule.kind ? row->values[slot] : 0;
	}
#ifdef TRACER_HOST_VIEW
	else if (other_rule(row, column))
		rule = *other_rule(row, column);
#endif
	return rule;
}

static inline void set_slot(struct cfi_row *row, unsigned slot, unsigned kind,
			    int32_t value)
{
	row->kinds.of[slot] = (uint8_t)kind;
	row->values[slot] = value;
}

static inline enum cfi_status set_rule(struct cfi_row *row, uintptr_t column,
				       uint8_t kind, int32_t value)
{
	unsigned slot = cfi_column_slot(row, column);

	if (slot == CFI_SLOTS)
		set_other_rule(row, column, kind, value);
	else
		set_slot(row, slot, kind, value);
	return CFI_OK;
}

/* DW_CFA_restore: back to the CIE's rule, or to unspecified if it gave none
 * (GCC's and clang's CIEs give none: `initial` is then NULL). */
static inline enum cfi_status restore_rule(struct cfi_program *program, uintptr_t column)
{
	struct cfi_row *row = program->row;
	const struct cfi_row *initial = program->initial;
	unsigned slot = cfi_column_slot(row, column);

	if (slot == CFI_SLOTS)
		restore_other_rule(row, initial, column);
	else if (initial)
		set_slot(row, slot, cfi_row_kind(initial, slot), initial->values[slot]);
	else
		set_slot(row, slot, 0, 0);
	return CFI_OK;
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

/* DW_CFA_def_cfa_register and _offset change half of a register+offset CFA
 * (GCC's CIEs start with def_cfa_register alone: the offset is then 0). */
static inline enum cfi_status change_cfa(struct cfi_row *row, uintptr_t reg,
					 int32_t offset)
{
	if (row->cfa_kind == CFI_CFA_EXPRESSION)
		return CFI_MALFORMED;
	return set_cfa(row, CFI_CFA_REGISTER_OFFSET, reg, offset);
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

/* ---- operands ---- */

/* LEB128 operands, one byte in the common case; a longer one is read on a
 * copy of the cursor, so that the caller's stays in registers. */
static inline uintptr_t read_uleb128(struct memory_cursor *cursor)
{
	struct memory_cursor copy;
	uintptr_t value;

	if (cursor->pos < cursor->end && !(target_u8(cursor->pos) & 0x80))
		return target_u8(cursor->pos++);
	cursor_fork(&copy, cursor);
	value = cursor_uleb128_long(&copy);
	cursor_fork(cursor, &copy);
	return value;
}

static inline intptr_t read_sleb128(struct memory_cursor *cursor)
{
	struct memory_cursor copy;
	intptr_t value;

	cursor_fork(&copy, cursor);
	value = cursor_sleb128(&copy);
	cursor_fork(cursor, &copy);
	return value;
}

/* A ULEB128 that must be a non-negative factored offset. One that does not
 * fit fails the cursor and reads as 0, so that the caller may negate it. */
static inline intptr_t read_unsigned_factor(struct memory_cursor *cursor)
{
	uintptr_t value = read_uleb128(cursor);

	if (value > (uintptr_t)INTPTR_MAX) {
		cursor->failed = true;
		return 0;
	}
	return (intptr_t)value;
}

/* value * data alignment, as a row stores it. */
static inline enum cfi_status factored(const struct cfi_program *program, intptr_t value,
				       int32_t *offset)
{
	intptr_t product;

	if (__builtin_mul_overflow(value, program->cie->data_align, &product) ||
	    product != (int32_t)product)
		return CFI_UNSUPPORTED;
	*offset = (int32_t)product;
	return CFI_OK;
}

/* An offset given in bytes (def_cfa, def_cfa_offset). */
static inline enum cfi_status unfactored(uintptr_t value, int32_t *offset)
{
	if (value > INT32_MAX)
		return CFI_UNSUPPORTED;
	*offset = (int32_t)value;
	return CFI_OK;
}

static inline enum cfi_status set_offset_rule(struct cfi_program *program,
					      uintptr_t column, uint8_t kind,
					      intptr_t factored_offset)
{
	int32_t offset;
	enum cfi_status status = factored(program, factored_offset, &offset);

	return status == CFI_OK ? set_rule(program->row, column, kind, offset) : status;
}

/* An expression operand: records where it is and skips over it. */
static inline int32_t skip_expression(const struct cfi_program *program,
				      struct memory_cursor *cursor)
{
	uintptr_t start = cursor->pos;

	cursor_skip(cursor, read_uleb128(cursor));
	if (start - program->config->eh_frame.start > INT32_MAX)
		cursor->failed = true;
	return (int32_t)(start - program->config->eh_frame.start);
}

/* ---- the location ---- */

/* A new row starts at loc: the program is done if that is past the pc
 * (CFI_REACHED_PC). */
static inline enum cfi_status move_to(struct cfi_position *at, uintptr_t loc)
{
	at->moved = true;
	if (loc > at->pc) {
#ifdef TRACER_HOST_VIEW
		at->next_loc = loc;
#endif
		return CFI_REACHED_PC;
	}
	at->loc = loc;
	return CFI_OK;
}

static inline enum cfi_status advance(const struct cfi_program *program,
				      struct cfi_position *at, uintptr_t delta)
{
	uintptr_t bytes;

	if (__builtin_mul_overflow(delta, program->cie->code_align, &bytes) ||
	    at->loc + bytes < at->loc)
		return CFI_MALFORMED;
	return move_to(at, at->loc + bytes);
}

/* DW_CFA_advance_loc2 and _loc4. */
static inline enum cfi_status advance_by_field(const struct cfi_program *program,
					       struct cfi_position *at, unsigned size)
{
	struct memory_cursor copy;
	uintptr_t delta;

	cursor_fork(&copy, &at->cursor);
	delta = cursor_unsigned(&copy, size);
	cursor_fork(&at->cursor, &copy);
	return advance(program, at, delta);
}

static inline enum cfi_status set_loc(const struct cfi_program *program,
				      struct cfi_position *at)
{
	struct memory_cursor copy;
	uintptr_t loc;
	enum cfi_status status;

	cursor_fork(&copy, &at->cursor);
	status =
	    cfi_read_pointer(program->config, &copy, program->cie->fde_encoding, &loc);
	cursor_fork(&at->cursor, &copy);
	if (status != CFI_OK)
		return status;
	if (loc < at->loc) /* locations only grow */
		return CFI_MALFORMED;
	return move_to(at, loc);
}

/* ---- the ops ---- */

/* The offset operand of the CFA ops: factored (_sf, signed) or not. */
static inline enum cfi_status cfa_offset_operand(struct cfi_program *program,
						 struct memory_cursor *cursor,
						 bool is_factored, int32_t *offset)
{
	return is_factored ? factored(program, read_sleb128(cursor), offset)
			   : unfactored(read_uleb128(cursor), offset);
}

/* DW_CFA_def_cfa and _def_cfa_sf: a register and an offset. */
static inline enum cfi_status def_cfa(struct cfi_program *program,
				      struct memory_cursor *cursor, bool is_factored)
{
	uintptr_t reg = read_uleb128(cursor);
	int32_t offset = 0;
	enum cfi_status status =
	    cfa_offset_operand(program, cursor, is_factored, &offset);

	return status != CFI_OK
		   ? status
		   : set_cfa(program->row, CFI_CFA_REGISTER_OFFSET, reg, offset);
}

/* DW_CFA_def_cfa_offset and _def_cfa_offset_sf. */
static inline enum cfi_status def_cfa_offset(struct cfi_program *program,
					     struct memory_cursor *cursor,
					     bool is_factored)
{
	int32_t offset = 0;
	enum cfi_status status =
	    cfa_offset_operand(program, cursor, is_factored, &offset);

	return status != CFI_OK
		   ? status
		   : change_cfa(program->row, program->row->cfa_register, offset);
}

/* Ops that set one register's rule, the register an operand. Not inlined:
 * compilers emit them rarely (DW_CFA_offset is the common one). */
static __attribute__((noinline)) enum cfi_status
run_register_op(struct cfi_program *program, struct memory_cursor *cursor, uint8_t op)
{
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
				skip_expression(program, cursor));
	default: /* DW_CFA_val_expression */
		return set_rule(program->row, column, CFI_RULE_VAL_EXPRESSION,
				skip_expression(program, cursor));
	}
}

/* Runs one op, its opcode read already. */
static inline __attribute__((always_inline)) enum cfi_status
run_op(struct cfi_program *program, struct cfi_position *at, uint8_t op)
{
	struct memory_cursor *cursor = &at->cursor;
	struct memory_cursor copy;
	enum cfi_status status;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance(program, at, op & 0x3f);
	case DW_CFA_offset:
		return set_offset_rule(program, op & 0x3f, CFI_RULE_OFFSET,
				       read_unsigned_factor(cursor));
	case DW_CFA_restore:
		return restore_rule(program, op & 0x3f);
	}
	switch (op) {
	case DW_CFA_nop:
		return CFI_OK;
	case DW_CFA_set_loc:
		return set_loc(program, at);
	case DW_CFA_advance_loc1:
		return advance(program, at, cursor_u8(cursor));
	case DW_CFA_advance_loc2:
		return advance_by_field(program, at, 2);
	case DW_CFA_advance_loc4:
		return advance_by_field(program, at, 4);
	case DW_CFA_remember_state:
		return remember_state(program);
	case DW_CFA_restore_state:
		return restore_state(program);
	case DW_CFA_GNU_args_size: /* stack adjustment at calls: not needed here */
		read_uleb128(cursor);
		return CFI_OK;
	/* The CFA definitions, each a case of its own: one jump table. */
	case DW_CFA_def_cfa:
		return def_cfa(program, cursor, false);
	case DW_CFA_def_cfa_sf:
		return def_cfa(program, cursor, true);
	case DW_CFA_def_cfa_register:
		return change_cfa(program->row, read_uleb128(cursor),
				  program->row->cfa_offset);
	case DW_CFA_def_cfa_offset:
		return def_cfa_offset(program, cursor, false);
	case DW_CFA_def_cfa_offset_sf:
		return def_cfa_offset(program, cursor, true);
	case DW_CFA_def_cfa_expression:
		return set_cfa(program->row, CFI_CFA_EXPRESSION, 0,
			       skip_expression(program, cursor));
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
		cursor_fork(&copy, cursor);
		status = run_register_op(program, &copy, op);
		cursor_fork(cursor, &copy);
		return status;
	default:
		return CFI_UNSUPPORTED;
	}
}

/* Runs the instructions [start, end) from `at` until their end, or until
 * the first row past the pc (CFI_REACHED_PC). Inline in row_at, its one
 * caller: the position stays in registers. */
static inline __attribute__((always_inline)) enum cfi_status
run(struct cfi_program *program, struct cfi_position *at, uintptr_t start, uintptr_t end)
{
	enum cfi_status status;

	if (!memory_cursor_open(program->config, start, end, &at->cursor))
		return CFI_MALFORMED;
	while (at->cursor.pos < at->cursor.end) {
		status = run_op(program, at, cursor_u8(&at->cursor));
		/* An operand cut off by the end of the entry is malformed,
		 * whatever the op made of the zeros it read instead. */
		if (at->cursor.failed)
			return CFI_MALFORMED;
		if (status != CFI_OK)
			return status;
	}
	return CFI_OK;
}

/* ---- the row at a pc ---- */

/* After the CIE's initial instructions ran: whether their row is the same
 * for every FDE and pc (a CFA rule alone, reached without moving, nothing
 * remembered), which the walk's cache then keeps. */
static void cache_initial_row(struct cfi_program *program, const struct cfi_position *at,
			      struct tracer_cie *cache)
{
	const struct cfi_row *row = program->row;

	if (!cache || at->moved || program->remembered_count != 0 || row_has_rules(row))
		return;
	cache->initial_known = true;
	cache->initial_cfa_kind = row->cfa_kind;
	cache->initial_cfa_register = row->cfa_register;
	cache->initial_cfa_offset = row->cfa_offset;
}

/* cfi_row_at_cached, and in *next_loc where the next row starts (past pc),
 * or UINTPTR_MAX if no later row. Inline in its callers: the walk's deepest
 * stack path runs through here (TRACER_STACK_DWARF). */
static inline __attribute__((always_inline)) enum cfi_status
row_at(const struct tracer_config *config, const struct cfi_fde *fde,
       struct tracer_cie *cache, uintptr_t pc, struct cfi_row *row, uintptr_t *next_loc)
{
	/* A walk's CIE is its cache (cfi_find_fde). */
	const struct tracer_cie *cie = cache ? cache : &fde->cie;
	bool in_cie = true; /* the CIE's initial instructions, then the FDE's */
	struct cfi_program program;
	struct cfi_position at;
	struct cfi_row initial;
	enum cfi_status status;

	*next_loc = UINTPTR_MAX;
	if (cie->ra_column > UINT16_MAX)
		return CFI_UNSUPPORTED;
	program.config = config;
	program.cie = cie;
	program.row = row;
	program.initial = NULL;
	program.remembered_count = 0;
	at.loc = fde->pc_start;
	at.pc = pc;
	at.moved = false;
#ifdef TRACER_HOST_VIEW
	at.next_loc = UINTPTR_MAX;
#endif
	row_clear(row, (uint16_t)cie->ra_column);
	/* The row of the CIE's instructions, from the cache if a walk has
	 * run them before. */
	if (cache && cache->initial_known) {
		row->cfa_kind = cache->initial_cfa_kind;
		row->cfa_register = cache->initial_cfa_register;
		row->cfa_offset = cache->initial_cfa_offset;
		in_cie = false;
	} else {
		row->cfa_kind = 0;
		row->cfa_register = 0;
		row->cfa_offset = 0;
	}
	/* One call of run, inline: in_cie says which instructions it runs. */
	for (;;) {
		status =
		    run(&program, &at, in_cie ? cie->instructions : fde->instructions,
			in_cie ? cie->end : fde->end);
		/* Past the pc, the row is final: no instruction after counts. */
		if (status == CFI_REACHED_PC)
			break;
		if (status != CFI_OK)
			return status;
		if (!in_cie)
			break;
		in_cie = false;
		cache_initial_row(&program, &at, cache);
		/* DW_CFA_restore restores the CIE's rules: a copy of them, if
		 * any. */
		if (row_has_rules(row)) {
			row_copy(&initial, row);
			program.initial = &initial;
		}
	}
#ifdef TRACER_HOST_VIEW
	*next_loc = at.next_loc;
#endif
	return row->cfa_kind != 0 ? CFI_OK : CFI_MALFORMED;
}

enum cfi_status cfi_row_at_cached(const struct tracer_config *config,
				  const struct cfi_fde *fde, struct tracer_cie *cache,
				  uintptr_t pc, struct cfi_row *row)
{
	uintptr_t next_loc;

	return row_at(config, fde, cache, pc, row, &next_loc);
}

enum cfi_status cfi_row_at(const struct tracer_config *config, const struct cfi_fde *fde,
			   uintptr_t pc, struct cfi_row *row)
{
	return cfi_row_at_cached(config, fde, NULL, pc, row);
}

#ifdef TRACER_HOST_VIEW
enum cfi_status cfi_row_until(const struct tracer_config *config,
			      const struct cfi_fde *fde, uintptr_t pc,
			      struct cfi_row *row, uintptr_t *next_loc)
{
	return row_at(config, fde, NULL, pc, row, next_loc);
}
#endif
