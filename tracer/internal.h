/*
 * internal.h - declarations shared by the tracer's own files; not for users.
 */
#ifndef TRACER_INTERNAL_H
#define TRACER_INTERNAL_H

#include "tracer.h"

/* The psABI keeps sp 16-byte aligned at calls, so every frame address is too. */
#define TRACER_STACK_ALIGN 16u

/* Entries of tracer_regs.s[]: s0-s11. */
#define TRACER_SAVED_REGS (sizeof(((struct tracer_regs *)0)->s) / sizeof(uintptr_t))

/* Field by field: a struct assignment or a copy loop may become a call to
 * memcpy, which a freestanding kernel need not have. */
static inline void regs_copy(struct tracer_regs *to, const struct tracer_regs *from)
{
	to->pc = from->pc;
	to->ra = from->ra;
	to->sp = from->sp;
	to->s[0] = from->s[0];
	to->s[1] = from->s[1];
	to->s[2] = from->s[2];
	to->s[3] = from->s[3];
	to->s[4] = from->s[4];
	to->s[5] = from->s[5];
	to->s[6] = from->s[6];
	to->s[7] = from->s[7];
	to->s[8] = from->s[8];
	to->s[9] = from->s[9];
	to->s[10] = from->s[10];
	to->s[11] = from->s[11];
}

static inline bool range_contains(struct tracer_range range, uintptr_t addr)
{
	return addr >= range.start && addr < range.end;
}

/*
 * Reading the target's memory. On the target an address is a pointer. Host
 * tools (symgen, tests/tools/) build this code with -DTRACER_HOST_VIEW to run
 * it on an image's bytes held anywhere in their own memory: every read of
 * the target goes through target_bytes() and the loads below, which add
 * tracer_host_bias (host address minus target address, set per image); the
 * bounds checks stay in target addresses. The image's word size may differ
 * from the host's (an rv32 image on a 64-bit host): tracer_host_word_size
 * (4 or 8) is then the size of its words and pointers, and target_address()
 * wraps addresses as its uintptr_t would. Loads go through memcpy there, so
 * that no bias can make them misaligned on the host.
 */
#ifdef TRACER_HOST_VIEW
extern uintptr_t tracer_host_bias;
extern unsigned tracer_host_word_size;
#define TARGET_WORD_SIZE tracer_host_word_size

static inline const void *target_bytes(uintptr_t address)
{
	return (const void *)(address + tracer_host_bias);
}

static inline uintptr_t target_address(uintptr_t address)
{
	return tracer_host_word_size < sizeof(uintptr_t) ? address & 0xffffffffu
							 : address;
}

static inline uint16_t target_u16(uintptr_t address)
{
	uint16_t value;

	__builtin_memcpy(&value, target_bytes(address), sizeof(value));
	return value;
}

static inline uint32_t target_u32(uintptr_t address)
{
	uint32_t value;

	__builtin_memcpy(&value, target_bytes(address), sizeof(value));
	return value;
}

/* A word of the image, of its size (little-endian, as is the host). */
static inline uintptr_t target_word(uintptr_t address)
{
	uint32_t half;
	uintptr_t value;

	if (tracer_host_word_size < sizeof(uintptr_t)) {
		__builtin_memcpy(&half, target_bytes(address), sizeof(half));
		return half;
	}
	__builtin_memcpy(&value, target_bytes(address), sizeof(value));
	return value;
}
#else
#define TARGET_WORD_SIZE sizeof(uintptr_t)

static inline const void *target_bytes(uintptr_t address)
{
	return (const void *)address;
}

static inline uintptr_t target_address(uintptr_t address)
{
	return address;
}

static inline uint16_t target_u16(uintptr_t address)
{
	return *(const uint16_t *)address;
}

/* address must be 4-byte aligned. */
static inline uint32_t target_u32(uintptr_t address)
{
	return *(const uint32_t *)address;
}

/* Volatile: a stack word may change under the walk (another hart). */
static inline uintptr_t target_word(uintptr_t address)
{
	return *(const volatile uintptr_t *)address;
}
#endif

static inline uint8_t target_u8(uintptr_t address)
{
	return *(const uint8_t *)target_bytes(address);
}

/*
 * The one reader all unwinders use: reads the machine word at addr if it lies,
 * whole and aligned, inside `stack` (the walk's current stack: another
 * declared stack is reached only across a trap frame). Returns false instead
 * of faulting.
 */
bool memory_read_word(const struct tracer_range *stack, uintptr_t addr, uintptr_t *value);

/* memory_read_word's check and load, inline for the DWARF unwinder's rules
 * (a few a frame); memory_read_word is this. */
static inline bool memory_read_stack_word(struct tracer_range stack, uintptr_t addr,
					  uintptr_t *value)
{
	if (addr % TARGET_WORD_SIZE != 0)
		return false;
	/* Written so that addr + size cannot overflow. */
	if (addr < stack.start || stack.end < TARGET_WORD_SIZE ||
	    addr > stack.end - TARGET_WORD_SIZE)
		return false;
	*value = target_word(addr);
	return true;
}

/*
 * A window, [first, first + span]: a region less its first `before` bytes,
 * computed once a walk, so that a hot loop checks an address with one
 * subtraction and one comparison. A region smaller than `before` gives
 * {UINTPTR_MAX, 0}: only UINTPTR_MAX is inside, an odd address, which every
 * user rejects first (frame pointers, return addresses: never odd).
 */
static inline struct tracer_window memory_window(struct tracer_range range,
						 uintptr_t before)
{
	struct tracer_window window = {UINTPTR_MAX, 0};

	if (range.end >= range.start && range.end - range.start >= before) {
		window.first = range.start + before;
		window.span = range.end - window.first;
	}
	return window;
}

static inline bool window_contains(struct tracer_window window, uintptr_t addr)
{
	return addr - window.first <= window.span;
}

/*
 * The same reader for the frame-pointer unwinder's common path, inline: the
 * two words of a frame record below fp (fp - 2 words: the caller's fp, fp -
 * 1 word: the return address), if fp is 16-byte aligned (as every frame
 * address is, psABI) and the record lies inside the stack whose window
 * (memory_window(stack, 2 words)) is `stack`.
 */
static inline bool memory_read_record(struct tracer_window stack, uintptr_t fp,
				      uintptr_t *caller_fp, uintptr_t *return_address)
{
	if (fp % 16 != 0 || !window_contains(stack, fp))
		return false;
	*caller_fp = ((const volatile uintptr_t *)fp)[-2];
	*return_address = ((const volatile uintptr_t *)fp)[-1];
	return true;
}

/*
 * A cursor over [pos, end), a part of a declared region: .eh_frame for the
 * DWARF unwinder's byte-oriented parsing, text for the prologue decoder. A
 * read past end yields 0 and sets `failed`, so a parser checks once per
 * record instead of once per field.
 */
struct memory_cursor {
	uintptr_t pos;
	uintptr_t end;
	bool failed;
};

/* Opens a cursor on [start, end) if that lies inside config->eh_frame.
 * Inline: the DWARF unwinder opens a few a frame. */
static inline bool memory_cursor_open(const struct tracer_config *config, uintptr_t start,
				      uintptr_t end, struct memory_cursor *cursor)
{
	const struct tracer_range eh_frame = config->eh_frame;

	if (start > end || start < eh_frame.start || end > eh_frame.end)
		return false;
	cursor->pos = start;
	cursor->end = end;
	cursor->failed = false;
	return true;
}

/* A cursor on the code [start, end), already failed unless that lies inside
 * config->text and start is 2-byte aligned, as every instruction is: the
 * cursor then reads aligned 16-bit parcels (cursor_u16). Returned by value,
 * so that the decoder's loop keeps it in registers. */
struct memory_cursor memory_code_cursor(const struct tracer_config *config,
					uintptr_t start, uintptr_t end);

/* Integer registers by their x number. */
#define RISCV_ZERO 0
#define RISCV_RA   1
#define RISCV_SP   2
#define RISCV_S0   8

/* Length of the instruction whose first 16-bit parcel is `parcel`: 2 (RVC),
 * 4, or 0 for the longer encodings this library does not handle. */
static inline unsigned riscv_instruction_length(uint16_t parcel)
{
	if ((parcel & 0x3) != 0x3)
		return 2;
	return (parcel & 0x1c) != 0x1c ? 4 : 0;
}

/* Whether the `bytes` of code just before `address` (2-byte aligned, as
 * every instruction is) lie inside config->text, to be read as parcels
 * (target_u16). Inline: every unwound return address is checked this way. */
static inline bool memory_code_before(const struct tracer_config *config,
				      uintptr_t address, uintptr_t bytes)
{
	const struct tracer_range text = config->text;

	return address % 2 == 0 && address <= text.end && address >= text.start &&
	       address - text.start >= bytes;
}

/* Whether the instruction (of that length) is a call: it jumps and links
 * (jal or jalr with rd != 0; c.jalr; rv32's c.jal). */
static inline bool riscv_is_call(uint32_t insn, unsigned length, unsigned xlen)
{
	unsigned rd = insn >> 7 & 0x1f;

	if (length == 4)
		return ((insn & 0x7f) == 0x6f || (insn & 0x707f) == 0x67) &&
		       rd != RISCV_ZERO;
	if (length != 2)
		return false;
	/* c.jalr: 1001 rs1 00000 10 with rs1 != 0 */
	if ((insn & 0xf07f) == 0x9002 && rd != RISCV_ZERO)
		return true;
	/* c.jal (rv32 only): 001 ... 01 */
	return xlen == 4 && (insn & 0xe003) == 0x2001;
}

/*
 * Whether the instruction that ends just before `address` is a call, with
 * xlen-byte registers (4: rv32, 8: rv64). Every return address follows one:
 * the walk checks each that an unwinder recovers, so that a word that merely
 * lies in text (a stale pointer to code, a corrupted slot) ends the walk
 * instead of being printed as a caller. Inline: it runs once a frame.
 */
static inline bool code_follows_call(const struct tracer_config *config,
				     uintptr_t address, unsigned xlen)
{
	/* Calls are mostly 4 bytes (jal, auipc + jalr). The parcel at
	 * address - 2 may also be a 2-byte call of its own: either counts. */
	if (memory_code_before(config, address, 4)) {
		uint16_t low = target_u16(address - 4);

		if (riscv_instruction_length(low) == 4 &&
		    riscv_is_call(low | (uint32_t)target_u16(address - 2) << 16, 4, xlen))
			return true;
	}
	return memory_code_before(config, address, 2) &&
	       riscv_is_call(target_u16(address - 2), 2, xlen);
}

/* Whether `parcel`, the first 16 bits of a 4-byte instruction, begins
 * `jal ra` or `jalr ra`. */
static inline bool parcel_is_ra_call(uintptr_t parcel)
{
	const unsigned bits = 8 * sizeof(uintptr_t);

	/* jal ra: the low 12 bits are 0x0ef (rd = 1, opcode 0x6f); jalr ra:
	 * the low 15 are 0x0e7 (funct3 = 0, rd = 1, opcode 0x67). Compared by
	 * shifting the rest out, which needs no mask in a register. */
	return (parcel ^ 0x0ef) << (bits - 12) == 0 ||
	       (parcel ^ 0x0e7) << (bits - 15) == 0;
}

/*
 * The common case of code_follows_call, for the frame-pointer unwinder's
 * common path: `jal ra` or `jalr ra` (a direct or an indirect call, relaxed
 * or not) ends just before `address`, inside text, whose window
 * (memory_window(text, 4)) is `text`. false means "not this case", and
 * code_follows_call decides.
 */
static inline bool code_follows_ra_call(struct tracer_window text, uintptr_t address)
{
	uintptr_t parcel;

	if (address % 2 != 0 || !window_contains(text, address))
		return false;
	parcel = ((const uint16_t *)address)[-2];
	return parcel_is_ra_call(parcel);
}

/* A second cursor from the first one's position (field by field: see
 * regs_copy). */
static inline void cursor_fork(struct memory_cursor *to, const struct memory_cursor *from)
{
	to->pos = from->pos;
	to->end = from->end;
	to->failed = from->failed;
}

/* The reads are inline and check bounds once per field: they run for every
 * byte of CFI an unwinding step interprets. */
static inline uint8_t cursor_u8(struct memory_cursor *cursor)
{
	if (cursor->pos >= cursor->end) {
		cursor->failed = true;
		return 0;
	}
	return target_u8(cursor->pos++);
}

/* One parcel of code: instructions are little-endian 16-bit parcels. */
static inline uint16_t cursor_u16(struct memory_cursor *cursor)
{
	uint16_t parcel;

	if (cursor->end - cursor->pos < 2) {
		cursor->pos = cursor->end;
		cursor->failed = true;
		return 0;
	}
	parcel = target_u16(cursor->pos);
	cursor->pos += 2;
	return parcel;
}

/* The little-endian 32 bits at an address that need not be aligned (a
 * call: GCC would otherwise merge cursor_u32's two ways into this one). */
uint32_t memory_u32_unaligned(uintptr_t address);

static inline uint32_t cursor_u32(struct memory_cursor *cursor)
{
	uintptr_t pos = cursor->pos;

	if (cursor->end - pos < 4) {
		cursor->pos = cursor->end;
		cursor->failed = true;
		return 0;
	}
	cursor->pos = pos + 4;
	/* One load where the field is aligned, as the fields of every
	 * .eh_frame entry's header are in GCC's and clang's output. */
	return pos % 4 == 0 ? target_u32(pos) : memory_u32_unaligned(pos);
}

/* Little-endian integers of `size` bytes (1 to 8). A value that does not fit
 * in a uintptr_t/intptr_t (rv32) fails the cursor. */
uintptr_t cursor_unsigned(struct memory_cursor *cursor, unsigned size);
intptr_t cursor_signed(struct memory_cursor *cursor, unsigned size);

/* LEB128 of more than one byte. */
uintptr_t cursor_uleb128_long(struct memory_cursor *cursor);
intptr_t cursor_sleb128_long(struct memory_cursor *cursor);

/* LEB128: 7 bits a byte, low group first; most values fit in one byte. */
static inline uintptr_t cursor_uleb128(struct memory_cursor *cursor)
{
	if (cursor->pos < cursor->end && !(target_u8(cursor->pos) & 0x80))
		return target_u8(cursor->pos++);
	return cursor_uleb128_long(cursor);
}

static inline intptr_t cursor_sleb128(struct memory_cursor *cursor)
{
	if (cursor->pos < cursor->end && !(target_u8(cursor->pos) & 0x80))
		/* Bit 6 is the sign of a one-byte value. */
		return (intptr_t)(target_u8(cursor->pos++) ^ 0x40) - 0x40;
	return cursor_sleb128_long(cursor);
}

/* Moves forward `count` bytes, failing if that passes end. */
static inline void cursor_skip(struct memory_cursor *cursor, uintptr_t count)
{
	if (count > cursor->end - cursor->pos) {
		cursor->pos = cursor->end;
		cursor->failed = true;
		return;
	}
	cursor->pos += count;
}

/*
 * One unwinding step: from the frame in walk->next (already returned to the
 * caller), computes its caller into walk->next, or sets walk->stop.
 */
void frame_pointer_step(struct tracer_walk *walk);

void dwarf_step(struct tracer_walk *walk);
void prologue_step(struct tracer_walk *walk);
/* False, with walk->next as it was, for a row the table marks "interpret":
 * the caller runs dwarf_step() itself, so that the table's frame is not
 * below the DWARF unwinder's on the stack. */
bool table_step(struct tracer_walk *walk);

/*
 * How many rows start below `end` bytes past the base of a table
 * tracer_unwind_table_check() accepted (`end` even, in one of its blocks):
 * the rows up to the end of the block less those that start in it at or
 * past `end`. The row in effect just below `end` is the last of them (at
 * least one: the first block starts with a row). So a block's first offset
 * (end & 127 = 0) needs no special case, and a return address is its own
 * `end` (pc - base: the call is below it). No search: inline, the table's
 * capture loop runs it once a frame.
 */
static inline uintptr_t unwind_table_rows_below(const uint64_t *maps,
						const uint16_t *lookup, uintptr_t end)
{
	uintptr_t block = end >> TRACER_UNWIND_BLOCK_SHIFT;

	return (uintptr_t)lookup[block] -
	       tracer_unwind_popcount(tracer_unwind_rows_from(maps[block], end));
}

/* The rule a row names (its byte offset in rules[]). */
static inline const struct tracer_unwind_rule *
unwind_table_rule_of(const struct tracer_unwind_rule *rules, uint16_t row)
{
	return (const struct tracer_unwind_rule *)(const void *)((const char *)rules +
								 row);
}

/* Whether pc lies in one of the table's blocks; *end is then its offset
 * from the base, just past the 2-byte unit pc is in. */
static inline bool unwind_table_end(const struct tracer_unwind_table *table, uintptr_t pc,
				    uintptr_t *end)
{
	uintptr_t offset = pc - table->base;

	*end = (offset | 1) + 1;
	/* Past the last block: end there too (the last unit of the last
	 * block); the offset first, as end wraps at the top of the address
	 * space. */
	return pc >= table->base &&
	       offset >> TRACER_UNWIND_BLOCK_SHIFT < table->block_count &&
	       *end >> TRACER_UNWIND_BLOCK_SHIFT < table->block_count;
}

/* The rule in effect at pc in a table tracer_unwind_table_check()
 * accepted: no-CFI before the base or past the last block; "interpret"
 * everywhere in an empty table. */
const struct tracer_unwind_rule *
unwind_table_rule(const struct tracer_unwind_table *table, uintptr_t pc);

/* The rule in effect just below `end` bytes past the table's base (even,
 * in one of its blocks), what the lookup reads checked (verify.c); NULL,
 * the table rejected, if it does not hold. */
const struct tracer_unwind_rule *walk_unwind_rule(struct tracer_walk *walk,
						  uintptr_t end);

/* walk_unwind_rule's check, unless tracer_prepare() checked it all:
 * whether table_common_step() may read the table at `end`. */
static inline bool walk_unwind_rule_check(struct tracer_walk *walk, uintptr_t end)
{
	return walk->tables_verified || walk_unwind_rule(walk, end);
}

/* Before a step of a walk that checks what it reads: what table_step()
 * will read for walk->next (a rejected table: table_step() stops so);
 * what dwarf_step() will read, false with walk->stop set if that does not
 * hold (the index's search and answer, the FDE and its CIE). */
void walk_table_check(struct tracer_walk *walk);
bool walk_dwarf_check(struct tracer_walk *walk);

/* How far a rule's 16-bit offset reaches. */
#define TABLE_OFFSET_REACH 0x8000u

/* The kinds the table's common step takes (ra saved): CFA sp-based, s0
 * saved or not; s0-based, s0 saved (as it always is, s0 being the frame
 * pointer). */
#define TABLE_COMMON_SP_S0 0u
#define TABLE_COMMON_S0	   TRACER_UNWIND_CFA_ON_S0
#define TABLE_COMMON_SP	   TRACER_UNWIND_S0_UNCHANGED

/*
 * One frame of the table's common path, the turn of table_run()'s loop
 * that tracer_next() also takes, inline in both. The frame (*pc, *sp, *s0)
 * must be one table_common_ready() accepts, or the caller of one this
 * step returned: *pc a return address in `window` (the walk's
 * call_window), *sp aligned, in the stack below `top`, TABLE_OFFSET_REACH
 * from both ends of the address space. If its row is sp- or s0-based with
 * ra saved, the slots lie in the stack and the caller's pc in `window`,
 * even, after `jal ra` or `jalr ra`: the caller into (*pc, *sp, *s0),
 * which then meets the same conditions (its sp is a CFA at or below
 * `top`), and true. Else false, changing nothing: the general step
 * decides.
 *
 * Few checks of its own, because validation guarantees what a common rule
 * holds (table_format.h): in a sp-based frame the slots lie between sp and
 * the CFA, at word multiples, and the CFA is at least a word above sp. So
 * with sp word-aligned and in [start, top], a sp-based frame needs only
 * "CFA at or below the top" for every read to be inside the stack. An
 * s0-based CFA is checked in full: aligned, above sp, at or below the top,
 * its slots (below it) at or above sp. sp's distance from the ends of the
 * address space keeps the 16-bit offsets from wrapping around it.
 */
struct table_lookup {
	uintptr_t base;
	const uint64_t *maps;
	const uint16_t *lookup;
	const uint16_t *rows;
	const struct tracer_unwind_rule *rules;
};

/* The table's fields the step reads, as locals (field by field: see
 * regs_copy), so that a loop keeps them in registers. */
static inline void table_lookup_of(struct table_lookup *to,
				   const struct tracer_unwind_table *table)
{
	to->base = table->base;
	to->maps = table->maps;
	to->lookup = table->lookup;
	to->rows = table->rows;
	to->rules = table->rules;
}

static inline __attribute__((always_inline)) bool
table_common_step(const struct table_lookup *table, struct tracer_window window,
		  uintptr_t top, uintptr_t *pc, uintptr_t *sp, uintptr_t *s0)
{
	const uintptr_t word = sizeof(uintptr_t);
	/* pc - base: the end of the call (unwind_table_rows_below). */
	const struct tracer_unwind_rule *rule = unwind_table_rule_of(
	    table->rules, table->rows[unwind_table_rows_below(table->maps, table->lookup,
							      *pc - table->base) -
				      1]);
	uintptr_t kind = rule->kind;
	uintptr_t cfa;
	uintptr_t ra_slot;
	uintptr_t caller_pc;
	uintptr_t caller_s0 = *s0;

	if (kind == TABLE_COMMON_S0) {
		uintptr_t s0_slot;

		cfa = *s0 + (uintptr_t)(intptr_t)rule->cfa_offset;
		ra_slot = cfa + (uintptr_t)(intptr_t)rule->ra_offset;
		s0_slot = cfa + (uintptr_t)(intptr_t)rule->s0_offset;
		/* Above sp strictly (a caller's frame), so slots no more than
		 * TABLE_OFFSET_REACH below it do not wrap. */
		/* frame_size_16: see frame_size_agrees(). */
		if (cfa % word != 0 || cfa <= *sp || cfa > top || ra_slot < *sp ||
		    s0_slot < *sp ||
		    (rule->frame_size_16 != 0 &&
		     cfa - *sp !=
			 (uintptr_t)rule->frame_size_16 * TRACER_UNWIND_FRAME_UNIT))
			return false;
		caller_s0 = target_word(s0_slot);
	} else if (kind == TABLE_COMMON_SP_S0) {
		cfa = *sp + (uintptr_t)(intptr_t)rule->cfa_offset;
		ra_slot = cfa + (uintptr_t)(intptr_t)rule->ra_offset;
		if (cfa > top)
			return false;
		caller_s0 = target_word(cfa + (uintptr_t)(intptr_t)rule->s0_offset);
	} else if (kind == TABLE_COMMON_SP) {
		cfa = *sp + (uintptr_t)(intptr_t)rule->cfa_offset;
		ra_slot = cfa + (uintptr_t)(intptr_t)rule->ra_offset;
		if (cfa > top)
			return false;
	} else {
		return false;
	}
	caller_pc = target_word(ra_slot);
	if (!window_contains(window, caller_pc) || caller_pc % 2 != 0 ||
	    !parcel_is_ra_call(((const uint16_t *)caller_pc)[-2]))
		return false;
	*pc = caller_pc;
	*sp = cfa;
	*s0 = caller_s0;
	return true;
}

/* The rule of the row that holds the call before return address pc, whose
 * call the table's blocks cover (the walk's call_window, with a valid
 * table). */
static inline const struct tracer_unwind_rule *
table_rule_at_return(const struct table_lookup *table, uintptr_t pc)
{
	return unwind_table_rule_of(
	    table->rules, table->rows[unwind_table_rows_below(table->maps, table->lookup,
							      pc - table->base) -
				      1]);
}

/*
 * The second witness of a caller's frame, whose CFA an unwinder took from
 * s0 (a saved s0 that a stack overwrite may have forged): the frame size
 * its row states (frame_size_16, measured in the code by symgen), if any,
 * puts the CFA at sp + that size. False if they disagree: the general step
 * then ends the walk (TRACER_STOP_FRAME_SIZE, in walk.c's advance()).
 */
static inline bool frame_size_agrees(const struct tracer_unwind_rule *rule, uintptr_t sp,
				     uintptr_t cfa)
{
	return rule->frame_size_16 == 0 ||
	       cfa - sp == (uintptr_t)rule->frame_size_16 * TRACER_UNWIND_FRAME_UNIT;
}

/* The CFA of a frame whose frame pointer is fp and whose row is `rule`:
 * fp, unless the row puts it at an offset from s0 (GCC: a variadic
 * function's s0 lies below its register save area). */
static inline uintptr_t frame_pointer_cfa(const struct tracer_unwind_rule *rule,
					  uintptr_t fp)
{
	uintptr_t kind = rule->kind;

	return (kind & TRACER_UNWIND_CFA_ON_S0) && kind < TRACER_UNWIND_NO_CFI
		   ? fp + (uintptr_t)(intptr_t)rule->cfa_offset
		   : fp;
}

/* Whether the frame-pointer unwinder's common path takes a caller's frame
 * (sp, fp) whose row is `rule`: its CFA is fp itself, and agrees with the
 * frame size the row states. The others go to frame_pointer_step(). */
static inline bool frame_pointer_rule_common(const struct tracer_unwind_rule *rule,
					     uintptr_t sp, uintptr_t fp)
{
	return frame_pointer_cfa(rule, fp) == fp && frame_size_agrees(rule, sp, fp);
}

/*
 * The general steps' second witness (frame_size_agrees) for the frame in
 * walk->next, whose CFA the step took from s0 as `cfa`, before the step
 * changes walk->next: TRACER_STOP_FRAME_SIZE if the frame's row states a
 * size that disagrees, else TRACER_RUNNING. Only a caller's frame is
 * checked: a register set's s0 is the register's, not a saved slot, and
 * its pc may lie in a prologue or an epilogue, where sp moves under an
 * s0-based row. Out of line: it runs after the deepest part of no step.
 */
enum tracer_stop frame_size_check(struct tracer_walk *walk, uintptr_t cfa);

/* Whether table_common_step() may start from walk->next (of a table or
 * auto walk), unless it returns into the trap entry or an entry point
 * (trap_return_window, which its users check): the walk running, with a
 * valid table; a frame the table found (so the step need not mark the
 * frames it finds), not a register set's; its pc in the walk's
 * call_window, its sp as table_common_step() needs.
 * walk->next_table_common keeps the answer until the general step runs
 * again: each frame the step finds meets the same conditions. */
bool table_common_ready(const struct tracer_walk *walk);

/* The walk's call_window for the table and auto: `call` less the return
 * addresses whose call (pc - 1) the table's blocks do not cover. */
struct tracer_window unwind_table_call_window(const struct tracer_unwind_table *table,
					      struct tracer_window call);

/* The table unwinder's common path (table_common_step) for up to `max`
 * frames from walk->next, if walk->next_table_common, each caller's pc
 * stored in pcs[], none from a frame that returns into the trap entry or
 * an entry point. Returns how many; leaves walk->next at the last one. */
size_t table_run(struct tracer_walk *walk, uintptr_t *pcs, size_t max);

/*
 * The frame-pointer unwinder's common path, where frame_pointer_step and
 * the walk's check of the return address would go on: the caller of the
 * frame at (sp, fp) from its record, if every check of frame_pointer_step
 * accepts the record (fp above sp, aligned, the record inside the stack)
 * and the return address follows `jal ra` or `jalr ra` in text. The
 * windows are the walk's (record_window, call_window), as arguments, so
 * that a loop keeps them in registers.
 */
static inline bool frame_pointer_common(struct tracer_window record,
					struct tracer_window call, uintptr_t sp,
					uintptr_t fp, uintptr_t *caller_fp,
					uintptr_t *caller_pc)
{
	/* fp <= sp also catches fp = 0: the walk's end, or a lost fp. */
	return fp > sp && memory_read_record(record, fp, caller_fp, caller_pc) &&
	       code_follows_ra_call(call, *caller_pc);
}

/* Whether frame_pointer_common may unwind the frame in walk->next: not a
 * register set's, which may be a leaf's (frame_pointer_step), not one that
 * returns into the trap entry (stacks_cross_trap). */
static inline bool frame_pointer_takes_common(const struct tracer_walk *walk)
{
	return !walk->next_is_exact &&
	       !window_contains(walk->trap_return_window, walk->next.pc);
}

/* One frame of the common path: makes the caller of walk->next walk->next
 * and returns true, or changes nothing (the general path then decides,
 * with a stop reason). Inline: tracer_next() runs it once a frame. */
static inline bool frame_pointer_next(struct tracer_walk *walk)
{
	uintptr_t caller_fp;
	uintptr_t caller_pc;

	if (!frame_pointer_takes_common(walk) ||
	    !frame_pointer_common(walk->record_window, walk->call_window, walk->next.sp,
				  walk->next.s[0], &caller_fp, &caller_pc))
		return false;
	/* With a valid table, the frame's row (call_window: the table covers
	 * its call, else the general step decides). */
	if (TRACER_LINKS_TABLE && walk->unwind_table_status == TRACER_TABLE_OK) {
		struct table_lookup table;

		table_lookup_of(&table, walk->config->unwind_table);
		if (!window_contains(walk->call_window, walk->next.pc) ||
		    !walk_unwind_rule_check(walk, walk->next.pc -
						      walk->config->unwind_table->base) ||
		    !frame_pointer_rule_common(
			table_rule_at_return(&table, walk->next.pc), walk->next.sp,
			walk->next.s[0]))
			return false;
	}
	walk->next.pc = caller_pc;
	walk->next.sp = walk->next.s[0];
	walk->next.s[0] = caller_fp;
	walk->next.ra = 0; /* unknown in callers' frames */
	return true;
}

/* The common path for up to `max` frames, from walk->next, each caller's pc
 * stored in pcs[]; returns how many. Leaves walk->next at the last one. */
size_t frame_pointer_run(struct tracer_walk *walk, uintptr_t *pcs, size_t max);

/* floor(log2(count)) for count >= 1 (0 for 0): the probes sorted_search
 * makes after its first. */
static inline unsigned sorted_levels(uint32_t count)
{
	unsigned levels = 0;

	/* Written out: GCC keeps the loop. */
	if (count >> 16) {
		count >>= 16;
		levels += 16;
	}
	if (count >> 8) {
		count >>= 8;
		levels += 8;
	}
	if (count >> 4) {
		count >>= 4;
		levels += 4;
	}
	if (count >> 2) {
		count >>= 2;
		levels += 2;
	}
	return levels + (count >> 1);
}

/* One probe: entry + offset if its key is <= key, else entry. */
static inline const char *sorted_probe(const char *entry, uintptr_t offset, uintptr_t key)
{
	return *(const uintptr_t *)(entry + offset) <= key ? entry + offset : entry;
}

/* Probes above 2^SORTED_UNROLLED entries run in a loop, the others unrolled. */
#define SORTED_UNROLLED 12u

/*
 * Shar's binary search over `count` > 0 sorted entries of `size` bytes,
 * each starting with its uintptr_t key: the last entry whose key <= key, or
 * the first entry if none is. levels is sorted_levels(count), and
 * first_probe count - 2^levels. After the first probe the entry lies in
 * [entry, entry + 2^levels) (first_probe < 2^levels); each probe then
 * halves that range. The probes are unrolled, entered at the first one the
 * range needs: each is then a load, a comparison and an addition of a
 * constant. Inline (always: GCC would not, for its size), with a constant
 * size: the symbol table and the FDE index use it once a frame.
 */
_Static_assert(offsetof(struct tracer_symbol, addr) == 0, "sorted_search: key first");
_Static_assert(offsetof(struct tracer_fde_entry, pc_start) == 0,
	       "sorted_search: key first");

static inline __attribute__((always_inline)) const void *
sorted_search_from(const void *entries, uint32_t first_probe, unsigned levels,
		   size_t size, uintptr_t key)
{
	const char *entry = sorted_probe(entries, (uintptr_t)first_probe * size, key);

	for (; levels > SORTED_UNROLLED; levels--)
		entry = sorted_probe(entry, ((uintptr_t)1 << (levels - 1)) * size, key);
	switch (levels) {
	case 12:
		entry = sorted_probe(entry, 2048 * size, key);
		/* fall through */
	case 11:
		entry = sorted_probe(entry, 1024 * size, key);
		/* fall through */
	case 10:
		entry = sorted_probe(entry, 512 * size, key);
		/* fall through */
	case 9:
		entry = sorted_probe(entry, 256 * size, key);
		/* fall through */
	case 8:
		entry = sorted_probe(entry, 128 * size, key);
		/* fall through */
	case 7:
		entry = sorted_probe(entry, 64 * size, key);
		/* fall through */
	case 6:
		entry = sorted_probe(entry, 32 * size, key);
		/* fall through */
	case 5:
		entry = sorted_probe(entry, 16 * size, key);
		/* fall through */
	case 4:
		entry = sorted_probe(entry, 8 * size, key);
		/* fall through */
	case 3:
		entry = sorted_probe(entry, 4 * size, key);
		/* fall through */
	case 2:
		entry = sorted_probe(entry, 2 * size, key);
		/* fall through */
	case 1:
		entry = sorted_probe(entry, size, key);
		break;
	default:
		break;
	}
	return entry;
}

/* sorted_search_from's first probe for a table of count >= 1 entries. */
static inline uint32_t sorted_first_probe(uint32_t count)
{
	return count - ((uint32_t)1 << sorted_levels(count));
}

/* The same search from the table's count: the last entry whose key <= key,
 * or NULL. */
static inline const void *sorted_search(const void *entries, uint32_t count, size_t size,
					uintptr_t key)
{
	unsigned levels = sorted_levels(count);

	if (count == 0 || key < *(const uintptr_t *)entries)
		return NULL;
	return sorted_search_from(entries, sorted_first_probe(count), levels, size, key);
}

/* The symbol holding addr, if `symbol` is the last one at or below it
 * (sorted_search's answer), else NULL: past its end is padding between
 * functions, or data after the last; below it, an address before the
 * first (the subtraction wraps). */
static inline const struct tracer_symbol *
symbol_holding(const struct tracer_symbol *symbol, uintptr_t addr)
{
	return addr - symbol->addr < symbol->size ? symbol : NULL;
}

/*
 * Checking what a walk reads (verify.c, tables.c). An array of a table, or
 * .eh_frame: its kind (table_hash.h), bytes and blocks' hashes.
 */
struct hashed_array {
	uint32_t kind;
	uintptr_t data;
	uint32_t size;
	uintptr_t hashes; /* its first block's, 4 bytes each */
};

/* The array of that kind of the config's tables, whose header checks
 * passed. Inline: with a constant kind, a few loads. */
static inline __attribute__((always_inline)) struct hashed_array
table_array(const struct tracer_config *config, enum tracer_hashed kind)
{
	const struct tracer_symtab *symtab = config->symtab;
	const struct tracer_fde_index *index = config->fde_index;
	const struct tracer_unwind_table *table = config->unwind_table;
	struct hashed_array array = {kind, 0, 0, 0};

	switch (kind) {
	case TRACER_HASHED_SYMBOLS:
		array.data = (uintptr_t)symtab->symbols;
		array.size = symtab->count * (uint32_t)sizeof(struct tracer_symbol);
		array.hashes = (uintptr_t)symtab->hashes;
		break;
	case TRACER_HASHED_NAMES:
		array.data = (uintptr_t)symtab->names;
		array.size = symtab->names_size;
		array.hashes = (uintptr_t)symtab->hashes +
			       4 * (uintptr_t)tracer_hash_blocks(
				       symtab->count * sizeof(struct tracer_symbol));
		break;
	case TRACER_HASHED_FDE_ENTRIES:
		array.data = (uintptr_t)index->entries;
		array.size = index->count * (uint32_t)sizeof(struct tracer_fde_entry);
		array.hashes = (uintptr_t)index->hashes;
		break;
	case TRACER_HASHED_EH_FRAME:
		array.data = index->eh_frame;
		array.size = index->eh_frame_size;
		array.hashes = (uintptr_t)index->hashes +
			       4 * (uintptr_t)tracer_hash_blocks(
				       index->count * sizeof(struct tracer_fde_entry));
		break;
	case TRACER_HASHED_UNWIND_ROWS:
		array.data = (uintptr_t)table->rows;
		array.size = table->count * 2;
		array.hashes = (uintptr_t)table->hashes;
		break;
	case TRACER_HASHED_UNWIND_MAPS:
		array.data = (uintptr_t)table->maps;
		array.size = table->block_count * 8;
		array.hashes = (uintptr_t)table->hashes +
			       4 * (uintptr_t)tracer_hash_blocks(table->count * 2);
		break;
	case TRACER_HASHED_UNWIND_LOOKUP:
		array.data = (uintptr_t)table->lookup;
		array.size = table->block_count * 2;
		array.hashes =
		    (uintptr_t)table->hashes +
		    4 * (uintptr_t)(tracer_hash_blocks(table->count * 2) +
				    tracer_hash_blocks(table->block_count * 8));
		break;
	default: /* TRACER_HASHED_UNWIND_RULES */
		array.data = (uintptr_t)table->rules;
		array.size =
		    table->rule_count * (uint32_t)sizeof(struct tracer_unwind_rule);
		array.hashes =
		    (uintptr_t)table->hashes +
		    4 * (uintptr_t)(tracer_hash_blocks(table->count * 2) +
				    tracer_hash_blocks(table->block_count * 8) +
				    tracer_hash_blocks(table->block_count * 2));
		break;
	}
	return array;
}

/* Whether every block of the array holds. */
bool hashed_array_intact(const struct hashed_array *array);

/* The header checks of tracer_start(): a few instructions whatever a
 * table's size (tables.c). eh_frame_header_check: the index's passed;
 * absent if the index is empty. */
enum tracer_table_status symtab_header_check(const struct tracer_config *config);
enum tracer_table_status fde_index_header_check(const struct tracer_config *config);
enum tracer_table_status eh_frame_header_check(const struct tracer_config *config);
enum tracer_table_status unwind_table_header_check(const struct tracer_config *config);

/*
 * The checks of what a walk reads, unless walk->tables_verified: each
 * true if what it reads holds, else false with the table rejected for the
 * rest of the walk. walk_symbol_check: `symbol`, the symbol table's search
 * for addr, is the intact table's, and so is its name if it holds addr.
 * Before a step, what it will read: walk_unwind_rule() and the ones
 * below.
 */
bool walk_symbol_check(struct tracer_walk *walk, const struct tracer_symbol *symbol,
		       uintptr_t addr);

/* The function holding addr in the walk's symbol table, if that is valid:
 * the search walk_begin set up. Inline: tracer_next() runs it once a frame. */
static inline __attribute__((always_inline)) const struct tracer_symbol *
walk_symtab_search(const struct tracer_walk *walk, uintptr_t addr)
{
	if (!walk->symtab_searchable)
		return NULL;
	return symbol_holding(
	    sorted_search_from(walk->config->symtab->symbols, walk->symtab_first_probe,
			       walk->symtab_levels, sizeof(struct tracer_symbol), addr),
	    addr);
}

/* The same search, its answer and the name checked (walk_symbol_check)
 * unless tracer_prepare() checked it all: tracer_next()'s. */
static inline __attribute__((always_inline)) const struct tracer_symbol *
walk_symtab_search_checked(struct tracer_walk *walk, uintptr_t addr)
{
	const struct tracer_symbol *symbol;

	if (!walk->symtab_searchable)
		return NULL;
	symbol =
	    sorted_search_from(walk->config->symtab->symbols, walk->symtab_first_probe,
			       walk->symtab_levels, sizeof(struct tracer_symbol), addr);
	if (!walk->tables_verified && !walk_symbol_check(walk, symbol, addr))
		return NULL;
	return symbol_holding(symbol, addr);
}

/* Whether address lies in one of config->entry_points. */
bool entry_points_contain(const struct tracer_config *config, uintptr_t address);

/* The walk's trap_return_window: the return addresses whose call lies in
 * the trap entry or an entry point, or between them. */
struct tracer_window entry_points_return_window(const struct tracer_config *config);

/* Makes the stack that holds walk->next.sp (tracer_config's rules) the
 * walk's current one, having left none. */
void stacks_start(struct tracer_walk *walk);

/* tracer_start() with the tables' statuses given: their headers' (then
 * each block is checked as the walk reads it), or tracer_prepare()'s
 * verdict on all of them (`verified`). Inline: no frame of its own on the
 * way to stacks_start(). */
static inline void walk_begin(struct tracer_walk *walk, enum tracer_unwinder unwinder,
			      const struct tracer_config *config,
			      const struct tracer_regs *regs,
			      enum tracer_table_status symtab_status,
			      enum tracer_table_status fde_index_status,
			      enum tracer_table_status unwind_table_status,
			      enum tracer_table_status eh_frame_status, bool verified)
{
	walk->stop =
	    unwinder < TRACER_UNWINDER_COUNT ? TRACER_RUNNING : TRACER_STOP_BAD_UNWINDER;
	walk->unwinder = unwinder;
	walk->config = config;
	regs_copy(&walk->next, regs);
	walk->next_is_exact = true;
	walk->next_after_trap = false;
	walk->trap_cause = 0;
	walk->trap_tval = 0;
	walk->trap_status = 0;
	walk->frames_left = config->max_depth ? config->max_depth : TRACER_DEFAULT_DEPTH;
	/* Only a valid table is read, even for its count. */
	walk->symtab_searchable =
	    symtab_status == TRACER_TABLE_OK && config->symtab->count > 0;
	walk->symtab_levels =
	    walk->symtab_searchable ? sorted_levels(config->symtab->count) : 0;
	walk->symtab_first_probe =
	    walk->symtab_searchable ? sorted_first_probe(config->symtab->count) : 0;
	walk->fde_searchable = fde_index_status == TRACER_TABLE_OK && config->fde_index &&
			       config->fde_index->count > 0;
	walk->fde_levels =
	    walk->fde_searchable ? sorted_levels(config->fde_index->count) : 0;
	walk->fde_first_probe =
	    walk->fde_searchable ? sorted_first_probe(config->fde_index->count) : 0;
	walk->next_function = NULL;
	walk->next_function_known = false;
	walk->next_found_by = unwinder;
	walk->symtab_status = symtab_status;
	walk->fde_index_status = fde_index_status;
	walk->unwind_table_status = unwind_table_status;
	walk->eh_frame_status = eh_frame_status;
	walk->noted = 0;
	walk->tables_verified = verified;
	walk->verified_valid = 0;
	walk->recent_valid = 0;
	walk->call_window = memory_window(config->text, 4);
	if (TRACER_LINKS_TABLE && unwind_table_status == TRACER_TABLE_OK)
		walk->call_window =
		    unwind_table_call_window(config->unwind_table, walk->call_window);
	walk->next_table_common = false;
	walk->trap_return_window = entry_points_return_window(config);
	walk->next_from_user = false;
	walk->trap_csrs_used = false;
	/* No CIE yet. cfi_find_fde's fast path reads the encoding and 'z'
	 * before it compares the address, so those are defined too (a bool
	 * of another value is undefined). Field by field: a struct store
	 * may call memset, which a freestanding kernel need not have. */
	walk->cie.address = UINTPTR_MAX;
	walk->cie.fde_encoding = 0;
	walk->cie.has_augmentation_data = false;
	walk->cie.is_signal_frame = false;
	walk->cie.initial_known = false;
	stacks_start(walk);
}

/* Computes the caller of the frame in walk->next: into walk->next, or sets
 * walk->stop. The general step, for the frames the capture's loops leave
 * (tracer_next() takes the common ones inline first). */
void walk_advance(struct tracer_walk *walk);

/* The function of the frame in walk->next, if the walk's symbol table is
 * valid and has it, else NULL: looked up once a frame, when the frame is
 * symbolized or an unwinder needs it. */
const struct tracer_symbol *walk_function(struct tracer_walk *walk);

/* walk->stack_index when sp is on no declared stack. */
#define STACKS_NONE TRACER_MAX_STACKS

/*
 * The frame at walk->next returns into the trap entry, which called its
 * handler with sp pointing at the trap frame: continues from the registers
 * saved there, or sets walk->stop. The interrupted pc is exact (not a
 * return address). The interrupted sp chooses the stack the walk goes on
 * with: the trap may have switched to this one (an interrupt stack) from
 * another, never from one the walk left. A frame on no stack is shown, and
 * the walk stops after it.
 */
void stacks_cross_trap(struct tracer_walk *walk);

/*
 * Whether cfa, the caller's sp an unwinder computed, may follow the frame in
 * walk->next: inside the stack (its top included) and above the callee's sp,
 * strictly so past the first frame of a register set, where a function
 * without a frame has CFA == sp. TRACER_RUNNING if so, else why not.
 * Inline: every unwinder checks every frame so.
 */
static inline enum tracer_stop frame_check_cfa(const struct tracer_walk *walk,
					       uintptr_t cfa)
{
	if (cfa <= walk->stack.start || cfa > walk->stack.end)
		return TRACER_STOP_OUTSIDE_STACK;
	if (cfa < walk->next.sp || (cfa == walk->next.sp && !walk->next_is_exact))
		return TRACER_STOP_NOT_ASCENDING;
	return TRACER_RUNNING;
}

/* The stop for a frame its unwinder found to be the first of its stack
 * (ra undefined, s0 = 0, sp set from an address): TRACER_STOP_OUTERMOST
 * only if its sp, or `cfa`, the sp it was entered with, is the top of the
 * declared stack, else `early`: the claim is false, callers may remain. */
enum tracer_stop frame_outermost(const struct tracer_walk *walk, uintptr_t cfa,
				 enum tracer_stop early);

#endif /* TRACER_INTERNAL_H */
