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

/* Opens a cursor on [start, end) if that lies inside config->eh_frame. */
bool memory_cursor_open(const struct tracer_config *config, uintptr_t start,
			uintptr_t end, struct memory_cursor *cursor);

/* A cursor on the code [start, end), already failed unless that lies inside
 * config->text and start is 2-byte aligned, as every instruction is: the
 * cursor then reads aligned 16-bit parcels (cursor_u16). Returned by value,
 * so that the decoder's loop keeps it in registers. */
struct memory_cursor memory_code_cursor(const struct tracer_config *config,
					uintptr_t start, uintptr_t end);

/* Integer registers by their x number. */
#define RISCV_ZERO 0
#define RISCV_RA 1
#define RISCV_SP 2
#define RISCV_S0 8

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
		return ((insn & 0x7f) == 0x6f || (insn & 0x707f) == 0x67) && rd != RISCV_ZERO;
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
static inline bool code_follows_call(const struct tracer_config *config, uintptr_t address,
				     unsigned xlen)
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

static inline uint32_t cursor_u32(struct memory_cursor *cursor)
{
	const uint8_t *bytes = target_bytes(cursor->pos);

	if (cursor->end - cursor->pos < 4) {
		cursor->pos = cursor->end;
		cursor->failed = true;
		return 0;
	}
	cursor->pos += 4;
	return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
	       (uint32_t)bytes[3] << 24;
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
void cursor_skip(struct memory_cursor *cursor, uintptr_t count);

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

/* The row in effect at pc, or NULL before the first row, in a table
 * tracer_unwind_table_check() accepted: every lookup entry lies in rows[]
 * and is the row in effect at its block's start. */
const struct tracer_unwind_row *unwind_table_find(const struct tracer_unwind_table *table,
						  uintptr_t pc);

/* walk->stack_index when sp is on no declared stack. */
#define STACKS_NONE TRACER_MAX_STACKS

/* Makes the stack that holds walk->next.sp (tracer_config's rules) the
 * walk's current one, having left none. */
void stacks_start(struct tracer_walk *walk);

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
 */
enum tracer_stop frame_check_cfa(const struct tracer_walk *walk, uintptr_t cfa);

/* The stop for a frame its unwinder found to be the first of its stack
 * (ra undefined, s0 = 0, sp set from an address): TRACER_STOP_OUTERMOST
 * only if its sp, or `cfa`, the sp it was entered with, is the top of the
 * declared stack, else `early`: the claim is false, callers may remain. */
enum tracer_stop frame_outermost(const struct tracer_walk *walk, uintptr_t cfa,
				 enum tracer_stop early);

#endif /* TRACER_INTERNAL_H */
