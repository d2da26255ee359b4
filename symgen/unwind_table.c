/*
 * unwind_table.c - see unwind_table.h. The rows come from the tracer's own
 * interpreter (cfi_row_at), so the table and the DWARF unwinder it stands
 * in for cannot disagree about what .eh_frame says.
 */
#include "unwind_table.h"

#include "cfi.h"
#include "die.h"
#include "image_view.h"
#include "prologue.h"

#include <stdlib.h>

/* The rule of a register column: none or "same value" keep the callee's
 * value; an offset from the CFA; anything else is not for the table. */
enum column_rule { COLUMN_KEPT, COLUMN_SAVED, COLUMN_UNDEFINED, COLUMN_OTHER };

static enum column_rule column_rule(const struct cfi_row *row, unsigned column,
				    int64_t *offset)
{
	struct cfi_rule rule = cfi_row_rule(row, column);

	*offset = 0;
	if (rule.kind == 0 || rule.kind == CFI_RULE_SAME_VALUE)
		return COLUMN_KEPT;
	if (rule.kind == CFI_RULE_UNDEFINED)
		return COLUMN_UNDEFINED;
	if (rule.kind != CFI_RULE_OFFSET)
		return COLUMN_OTHER;
	*offset = rule.value;
	return COLUMN_SAVED;
}

/*
 * The rule word for the row the interpreter computed (status: its
 * result), or "interpret" where the table cannot say what the DWARF
 * unwinder would do: the interpreter failed (DWARF then stops with its
 * reason), a signal frame, a return-address column other than ra, a CFA
 * on another register or an expression, a rule for sp, ra or s0 under
 * another kind of rule, s0 undefined, an offset out of range.
 */
static struct tracer_unwind_rule rule_for(const struct cfi_fde *fde,
					  enum cfi_status status,
					  const struct cfi_row *row, unsigned word_size)
{
	static const struct tracer_unwind_rule interpret = {0, 0, 0,
							    TRACER_UNWIND_INTERPRET, 0};
	enum column_rule ra, s0;
	int64_t ra_offset, s0_offset;
	struct tracer_unwind_rule rule;

	if (status != CFI_OK || fde->cie.is_signal_frame ||
	    fde->cie.ra_column != DWARF_REG_RA ||
	    row->cfa_kind != CFI_CFA_REGISTER_OFFSET ||
	    cfi_row_rule(row, DWARF_REG_SP).kind != 0)
		return interpret;
	if (row->cfa_register != DWARF_REG_SP && row->cfa_register != DWARF_REG_S0)
		return interpret;
	ra = column_rule(row, DWARF_REG_RA, &ra_offset);
	s0 = column_rule(row, DWARF_REG_S0, &s0_offset);
	if (ra == COLUMN_OTHER || s0 == COLUMN_OTHER || s0 == COLUMN_UNDEFINED)
		return interpret;
	if (!tracer_unwind_encode(&rule, row->cfa_register == DWARF_REG_S0,
				  row->cfa_offset,
				  ra == COLUMN_SAVED	   ? TRACER_UNWIND_RA_SAVED
				  : ra == COLUMN_UNDEFINED ? TRACER_UNWIND_RA_LOST
							   : TRACER_UNWIND_RA_REGISTER,
				  ra_offset, s0 == COLUMN_SAVED, s0_offset, word_size))
		return interpret;
	return rule;
}

static bool same_rule(struct tracer_unwind_rule a, struct tracer_unwind_rule b)
{
	return a.kind == b.kind && a.cfa_offset == b.cfa_offset &&
	       a.ra_offset == b.ra_offset && a.s0_offset == b.s0_offset &&
	       a.frame_size_16 == b.frame_size_16;
}

/* The longest FDE whose frame sizes are measured: the measure decodes the
 * function from its start at each call, a cost that grows with the square
 * of its length. */
#define MEASURED_MAX 8192u

/* The length of the instruction at pc in the view, 0 if unreadable or
 * longer than 4 bytes. */
static unsigned instruction_length(const struct tracer_config *config, uint64_t pc)
{
	struct memory_cursor code =
	    memory_code_cursor(config, (uintptr_t)pc, (uintptr_t)pc + 2);
	uint16_t parcel = cursor_u16(&code);

	return code.failed ? 0 : riscv_instruction_length(parcel);
}

/*
 * The function [start, end)'s one frame size, N: what its code does to sp,
 * each instruction decoded on its own by the prologue decoder (so that no
 * path through the code hides one: the decoder, from a function's start,
 * stops at a jump), is one sp -= N and any number of sp += N (its
 * epilogues), each by an immediate. 0 for any other change: an alloca, a
 * VLA, sp set from s0, from a register or a load, adjusted twice or by a
 * register (a large frame), code the decoder cannot read. The sp at a call
 * is then CFA - N or the CFA itself.
 */
static intptr_t fixed_frame_size(const struct tracer_config *config, uint64_t start,
				 uint64_t end, unsigned word_size)
{
	struct prologue_analysis analysis;
	intptr_t size = 0;
	unsigned length;

	if (end - start > MEASURED_MAX)
		return 0;
	for (uint64_t pc = start; pc < end; pc += length) {
		intptr_t offset;

		length = instruction_length(config, pc);
		if (length == 0 ||
		    prologue_analyze(config, (uintptr_t)pc, (uintptr_t)end,
				     (uintptr_t)(pc + length), word_size,
				     &analysis) != PROLOGUE_OK ||
		    analysis.frame.sp_state != PROLOGUE_SP_RELATIVE)
			return 0;
		offset = analysis.frame.sp_offset;
		if (offset < 0 && size != 0)
			return 0;
		if (offset < 0)
			size = -offset;
		else if (offset > 0 && offset != size)
			return 0;
	}
	return size;
}

/*
 * The frame size (CFA - sp) at the return addresses of the calls that
 * start in [from, to), in the function [start, end) whose one frame size
 * is `fixed` (fixed_frame_size), in TRACER_UNWIND_FRAME_UNIT units: the
 * size the walk expects of a caller's frame whose pc lies in that row, if
 * the decoder finds that frame at every one of them (not a call before the
 * prologue). 0 when it does not, or the size is not a multiple of the unit
 * in 1 to 255 of them, or no call starts there.
 */
static uint8_t calls_frame_size(const struct tracer_config *config, uint64_t start,
				uint64_t end, uint64_t from, uint64_t to, intptr_t fixed,
				unsigned word_size)
{
	struct prologue_analysis analysis;
	intptr_t size = 0;
	unsigned length;

	for (uint64_t pc = from; pc < to; pc += length) {
		struct memory_cursor code =
		    memory_code_cursor(config, (uintptr_t)pc, (uintptr_t)pc + 4);
		uint32_t insn;

		length = instruction_length(config, pc);
		if (length == 0)
			return 0;
		insn = cursor_u16(&code);
		if (length == 4)
			insn |= (uint32_t)cursor_u16(&code) << 16;
		if (code.failed && length == 4)
			return 0;
		if (!riscv_is_call(insn, length, word_size))
			continue;
		if (prologue_analyze(config, (uintptr_t)start, (uintptr_t)end,
				     (uintptr_t)(pc + length), word_size,
				     &analysis) != PROLOGUE_OK ||
		    analysis.frame.sp_state != PROLOGUE_SP_RELATIVE ||
		    -analysis.frame.sp_offset != fixed)
			return 0;
		size = -analysis.frame.sp_offset;
	}
	if (size <= 0 || size % TRACER_UNWIND_FRAME_UNIT != 0 ||
	    size / TRACER_UNWIND_FRAME_UNIT > UINT8_MAX)
		return 0;
	return (uint8_t)(size / TRACER_UNWIND_FRAME_UNIT);
}

/* A row before encoding: its address, its rule. */
struct plain_row {
	uint64_t pc;
	struct tracer_unwind_rule rule;
};

struct builder {
	const struct elf_file *elf;
	uint64_t base;
	struct plain_row *rows;
	size_t count;
	size_t capacity;
};

/* The largest distance from the first row to the last. The lookup index
 * grows with it (10 bytes per 128 of code), whatever the rows: a kernel's
 * code spans a few MiB, while a corrupt FDE can claim gigabytes, which
 * would make a table of that size (and a C file of several times it). */
#define MAX_SPAN (64u << 20)

/* Appends a row at pc, unless the last row already says the same. */
static void add_row(struct builder *b, uint64_t pc, struct tracer_unwind_rule rule)
{
	if (b->count > 0 && same_rule(b->rows[b->count - 1].rule, rule))
		return;
	if (pc - b->base > MAX_SPAN)
		die(b->elf->path,
		    "code covered by .eh_frame spans 0x%llx-0x%llx, more than the unwind "
		    "table's %u MiB",
		    (unsigned long long)b->base, (unsigned long long)pc, MAX_SPAN >> 20);
	if (pc % 2 != 0)
		die(b->elf->path,
		    "call-frame information for code at an odd address (0x%llx)",
		    (unsigned long long)pc);
	if (b->count == b->capacity) {
		b->capacity = b->capacity ? 2 * b->capacity : 256;
		b->rows =
		    tracked_realloc(b->elf->path, b->rows, b->capacity, sizeof(*b->rows));
	}
	b->rows[b->count].pc = pc;
	b->rows[b->count].rule = rule;
	b->count++;
}

/* The rows of one FDE, at 2-byte steps (instructions are 2 or 4 bytes):
 * from each row to where the interpreter says the next one starts (rounded
 * up to a step), or, after a failure, which every later pc shares, to the
 * end. So the work grows with the FDE's instructions, not with the bytes it
 * claims to cover. Equal neighbours merge. */
static void add_fde(struct builder *b, const struct tracer_config *config,
		    const struct fde_entry *entry)
{
	unsigned word_size = b->elf->is64 ? 8 : 4;
	struct cfi_fde fde;
	struct cfi_row row;
	uint64_t next;
	/* Measured once, at the first s0-based row. */
	bool measured = false;
	intptr_t fixed = 0;

	if (cfi_parse_fde(config, (uintptr_t)entry->fde, &fde) != CFI_OK)
		die(b->elf->path, "malformed .eh_frame at offset 0x%llx",
		    (unsigned long long)entry->offset);
	for (uint64_t pc = entry->pc_start; pc < entry->pc_end; pc = next) {
		uintptr_t next_loc;
		enum cfi_status status =
		    cfi_row_until(config, &fde, (uintptr_t)pc, &row, &next_loc);
		struct tracer_unwind_rule rule = rule_for(&fde, status, &row, word_size);

		next = status != CFI_OK || next_loc >= entry->pc_end
			   ? entry->pc_end
			   : pc + 2 + ((next_loc - pc - 1) & ~(uint64_t)1);
		/* An FDE covers one function, from its first instruction. */
		if (rule.kind < TRACER_UNWIND_NO_CFI &&
		    rule.kind & TRACER_UNWIND_CFA_ON_S0) {
			if (!measured)
				fixed = fixed_frame_size(config, entry->pc_start,
							 entry->pc_end, word_size);
			measured = true;
			if (fixed != 0)
				rule.frame_size_16 = calls_frame_size(
				    config, entry->pc_start, entry->pc_end, pc, next,
				    fixed, word_size);
			/* A size whose frame does not hold the saved slots
			 * witnesses nothing (tracer_unwind_rule_valid). */
			if (!tracer_unwind_rule_valid(&rule, word_size))
				rule.frame_size_16 = 0;
		}
		add_row(b, pc, rule);
	}
}

/* The index of rule in the dictionary, added if new; "interpret" once the
 * dictionary is full but for the slot kept for it. */
static uint32_t rule_index(struct unwind_table *table, const struct elf_file *elf,
			   struct tracer_unwind_rule rule)
{
	static const struct tracer_unwind_rule interpret = {0, 0, 0,
							    TRACER_UNWIND_INTERPRET, 0};

	for (size_t i = 0; i < table->rule_count; i++)
		if (same_rule(table->rules[i], rule))
			return (uint32_t)i;
	if (table->rule_count + 1 == TRACER_UNWIND_MAX_RULES &&
	    !same_rule(rule, interpret))
		return rule_index(table, elf, interpret);
	if (table->rule_count % 64 == 0)
		table->rules =
		    tracked_realloc(elf->path, table->rules, table->rule_count + 64,
				    sizeof(*table->rules));
	table->rules[table->rule_count] = rule;
	return (uint32_t)table->rule_count++;
}

/* The rows in the format: a rule's offset in the dictionary each (rows whose rule became
 * "interpret" merge with such neighbours); each block's map of the rows
 * that start in it, and lookup[b], the rows that start in block b or
 * before it. Past TRACER_UNWIND_MAX_ROWS rows, which lookup[] cannot
 * count, an empty table and a warning: the build goes on, and the walks
 * that would read the table use DWARF, as at any pc without a row. */
static struct unwind_table encode(const struct builder *b)
{
	struct unwind_table table = {.base = b->base};
	uint32_t *offsets = tracked_alloc(b->elf->path, b->count, sizeof(*offsets));

	table.rows = tracked_alloc(b->elf->path, b->count, sizeof(uint16_t));
	for (size_t i = 0; i < b->count; i++) {
		uint32_t index = rule_index(&table, b->elf, b->rows[i].rule);

		if (table.count > 0 && table.rows[table.count - 1] ==
					   index * sizeof(struct tracer_unwind_rule))
			continue;
		table.rows[table.count] =
		    (uint16_t)(index * sizeof(struct tracer_unwind_rule));
		offsets[table.count] = (uint32_t)(b->rows[i].pc - b->base);
		table.count++;
		table.interpreted += table.rules[index].kind == TRACER_UNWIND_INTERPRET;
	}
	if (table.count > TRACER_UNWIND_MAX_ROWS) {
		warn(b->elf->path,
		     "%zu unwind-table rows, more than the format's %u: the unwind table "
		     "is left empty (table and auto walks use DWARF)",
		     table.count, TRACER_UNWIND_MAX_ROWS);
		return (struct unwind_table){0};
	}
	table.block_count = (offsets[table.count - 1] >> TRACER_UNWIND_BLOCK_SHIFT) + 1;
	table.maps = tracked_alloc(b->elf->path, table.block_count, sizeof(uint64_t));
	table.lookup = tracked_alloc(b->elf->path, table.block_count, sizeof(uint16_t));
	for (size_t block = 0, i = 0; block < table.block_count; block++) {
		table.maps[block] = 0;
		for (;
		     i < table.count && offsets[i] >> TRACER_UNWIND_BLOCK_SHIFT == block;
		     i++)
			table.maps[block] |= (uint64_t)1 << (offsets[i] >> 1 & 63);
		table.lookup[block] = (uint16_t)i;
	}
	return table;
}

struct unwind_table unwind_table_build(const struct elf_file *elf,
				       const struct fde_entry *fdes, size_t count)
{
	/* The code too, for the prologue decoder (fde_index_view has only
	 * .eh_frame). */
	const struct image_view view =
	    image_view(elf, IMAGE_VIEW_CODE | IMAGE_VIEW_EH_FRAME);
	const struct tracer_config config = {.text = view.text,
					     .eh_frame = view.eh_frame};
	static const struct tracer_unwind_rule no_cfi = {0, 0, 0, TRACER_UNWIND_NO_CFI,
							 0};
	struct builder b = {.elf = elf, .base = fdes[0].pc_start};

	for (size_t i = 0; i < count; i++) {
		add_fde(&b, &config, &fdes[i]);
		/* A gap, or the end: no CFI until the next FDE. (An FDE's
		 * rows are never no-CFI, so this one is never merged away.) */
		if (i + 1 == count || fdes[i + 1].pc_start > fdes[i].pc_end)
			add_row(&b, fdes[i].pc_end, no_cfi);
	}
	return encode(&b);
}
