/*
 * fuzz_walk.c - libFuzzer target: whole walks through the public API
 * (tracer_start, tracer_next, tracer_format_*) with the unwinder the
 * binary's name says (fuzz_walk_fp, _dwarf, _prologue, _auto, _table: one
 * object linked under each name), over one to three stacks, registers, code, .eh_frame,
 * FDE index, symbol table, unwind table and trap layout decoded from the input. After
 * each walk it asserts the walk invariants (tests/fuzz/README.md) and aborts with a
 * message when one fails. Every region lives in guarded memory
 * (fuzz_regions.h): a read outside the declared regions crashes.
 *
 * Input (little-endian; reads past the end give zeros; tests/fuzz/README.md):
 *   header   flags u8, max_depth u8 (0: the default), small line size u8,
 *            symtab damage u8, FDE index damage u8, stack words u16, text
 *            bytes u16, .eh_frame bytes u16, FDE entries u16, symbols u16,
 *            names bytes u16, .eh_frame start minus text start u32
 *   regs     pc, ra, sp, s0-s11: 15 encoded words (u32 each, see decode_word)
 *   trap     entry start u16 and length u16 (bytes of text), then the byte
 *            offsets of sepc, ra, sp, s0-s11, scause, stval: 17 u16
 *   stack    encoded words (u32 each), lowest address first
 *   text     raw code bytes
 *   eh_frame raw bytes
 *   fde      entries: pc_start, fde: 2 encoded words each
 *   symbols  addr (encoded word), size u32, name offset u32 (mod names bytes)
 *   names    raw bytes
 *   stacks   the other stacks, as many as flags say: words u16, then
 *            encoded words (u32 each), lowest address first
 *   unwind   rows u16 (0: no unwind table), damage u8 (0: none), base u16
 *            (bytes into text), then per row: pc step u16 (2 * (1 + n)
 *            bytes after the row before; rows past 64 KiB are dropped),
 *            rule u32 (made valid)
 *   kit      flags u8 (KIT_*), frame_size u16, sstatus offset u16, the
 *            CSRs read at panic time: sepc, scause, stval (encoded
 *            words), entry points u8 (modulo TRACER_MAX_ENTRY_POINTS + 2),
 *            then per entry point start u16 and length u8 (bytes of text)
 *   damage   flags u8 (DAMAGE_SIZES_*), kind u8 (enum outside_damage,
 *            modulo its count), position u32, value u32: one change outside
 *            the checked tables, made after an undamaged walk that reached
 *            the outermost frame (check_damaged_walk)
 * Counts larger than what the input still holds shrink to it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "fuzz_regions.h"
#include "tracer_tables.h"
#include "walk.h"

/* The unwinder of every walk: from the binary's name (LLVMFuzzerInitialize). */
static enum tracer_unwinder fuzz_unwinder;

enum {
	FLAG_TRAP = 1 << 0,
	FLAG_SYMTAB = 1 << 1,
	FLAG_FDE_INDEX = 1 << 2,
	FLAG_SYMTAB_DAMAGED = 1 << 3,
	FLAG_FDE_INDEX_DAMAGED = 1 << 4,
	/* Bits 5-6: stacks after the first, modulo MAX_STACKS. */
	FLAG_STACKS_SHIFT = 5,
	/* List the stacks in config->stacks highest address first. */
	FLAG_STACKS_REVERSED = 1 << 7,
};

/* The kit part: the trap layout's fields TRACER_TRAP_NOT_SAVED, the CSRs
 * given, sstatus saved. Inputs without the part (the older seeds) read
 * zeros: the layouts and configs of before. */
enum {
	KIT_EPC_NOT_SAVED = 1 << 0,
	KIT_CAUSE_NOT_SAVED = 1 << 1,
	KIT_TVAL_NOT_SAVED = 1 << 2,
	KIT_SP_NOT_SAVED = 1 << 3,
	KIT_TRAP_CSRS = 1 << 4,
	KIT_STATUS_SAVED = 1 << 5,
	/* An RTOS's kit: a machine-mode layout whose entry saves epc + 4 for
	 * exceptions; the trap frame where the stval word points (saved, then
	 * sp moved); the entry points are task entries too. */
	KIT_MACHINE_MODE = 1 << 6,
	KIT_RTOS_FRAMES = 1 << 7,
};
#define MAX_ENTRY_POINTS (TRACER_MAX_ENTRY_POINTS + 1)

/*
 * The damage part: one byte or word outside the tables symgen checks,
 * changed after a walk of the undamaged regions reached the outermost
 * frame; the walk is then made again (check_damaged_walk). Inputs without
 * the part (the older seeds) read zeros: no damage.
 */
enum outside_damage {
	OUTSIDE_NONE,
	OUTSIDE_EH_FRAME, /* a byte of .eh_frame (hashed with the FDE index) */
	OUTSIDE_CODE,	  /* a byte of text (no hash) */
	OUTSIDE_STACK,	  /* a stack word, set to an encoded word */
	OUTSIDE_KINDS
};
/* The unwind table states, for each row that holds an unwound frame's
 * call, the frame size the undamaged walk found there (as symgen states
 * what it measures in the code), instead of the sizes the rule words
 * make. */
#define DAMAGE_SIZES_MEASURED 1u

/* Stacks in memory: the first at STACK_AT, the others above it in turn,
 * each with guard pages below and above. */
#define MAX_STACKS	3
#define MAX_STACK_WORDS 8192
#define MAX_FDE_ENTRIES 4096
#define MAX_SYMBOLS	4096
#define MAX_ROWS	4096
/* Rows cover at most as much as text can hold. */
#define MAX_ROW_PC 0x10000u
#define MAX_BLOCKS ((MAX_ROW_PC >> TRACER_UNWIND_BLOCK_SHIFT) + 1)
/* Text, .eh_frame and names have u16 sizes. */
#define MAX_BYTES 0x10000

/* Where the regions lie in the arena. .eh_frame is placed at the distance
 * from text the input asks for (the kernel's own, in the seeds), so that
 * its pc-relative pointers reach the code as in the image. */
#define MiB		      ((size_t)1 << 20)
#define STACK_AT	      (1 * MiB)
#define STACK_SPACING	      (2 * MAX_STACK_WORDS * sizeof(uintptr_t))
#define TABLES_AT	      (2 * MiB)
#define TEXT_AT		      (4 * MiB)
#define MAX_EH_FRAME_DISTANCE (16 * MiB)

/* max_depth is a u8: at most 255 frames, and one more to catch an excess. */
#define MAX_FRAMES 257

/* The tables region: the descriptors, the FDE entries, the symbols and
 * their names, packed; names[] ends the region, so that a read past the end
 * of the last name leaves it. */
struct tables {
	struct tracer_symtab *symtab;
	struct tracer_fde_index *fde_index;
	struct tracer_unwind_table *unwind_table;
	struct tracer_fde_entry *entries;
	struct tracer_symbol *symbols;
	uint64_t *maps; /* then rules[], lookup[] and rows[] */
	struct tracer_unwind_rule *rules;
	uint16_t *lookup;
	uint16_t *rows;
	char *names;
	/* The hashes of each table's blocks (.eh_frame's with the index's),
	 * before names[]. */
	uint32_t *symtab_hashes;
	uint32_t *fde_index_hashes;
	uint32_t *unwind_hashes;
	size_t size;
};
#define TABLES_ARRAYS_AT 192
/* Each array from an 8-byte boundary, as symgen writes them (the symbols'
 * end padded to it in a 32-bit build). */
#define TABLES_ARRAYS                                                                    \
	(MAX_FDE_ENTRIES * sizeof(struct tracer_fde_entry) +                             \
	 MAX_SYMBOLS * sizeof(struct tracer_symbol) + 8 + MAX_BLOCKS * 10 + 16 +         \
	 TRACER_UNWIND_MAX_RULES * sizeof(struct tracer_unwind_rule) + MAX_ROWS * 2 +    \
	 8 + MAX_BYTES + 8)
/* A hash per 64 bytes of the arrays and of .eh_frame, and a few partial
 * blocks. */
#define TABLES_CAPACITY                                                                  \
	(TABLES_ARRAYS_AT + TABLES_ARRAYS + (TABLES_ARRAYS + MAX_BYTES) / 16 + 64)
_Static_assert(sizeof(struct tracer_symtab) + sizeof(struct tracer_fde_index) +
		       sizeof(struct tracer_unwind_table) <=
		   TABLES_ARRAYS_AT,
	       "the descriptors fit before the arrays");

/* Ways to damage a table after symgen would have written it. */
enum damage {
	DAMAGE_CHECKSUM,	   /* checksum field flipped */
	DAMAGE_MAGIC,		   /* wrong magic */
	DAMAGE_VERSION,		   /* wrong version */
	DAMAGE_WORD_SIZE,	   /* the other word size's table (OTHER_WORD_SIZE) */
	DAMAGE_DESCRIPTOR_OUTSIDE, /* the config points at a guard page */
	DAMAGE_ARRAY_OUTSIDE,	   /* the array starts at the end of the tables */
	DAMAGE_COUNT,		   /* one entry more, the header's checksum recomputed */
	DAMAGE_BYTE,		   /* one byte of the arrays flipped */
	DAMAGE_NAMES_UNTERMINATED, /* last byte of names[] not NUL, hashes recomputed */
	DAMAGE_KINDS
};

/* DAMAGE_WORD_SIZE's word size: an rv32 table on rv64, an rv64 one on rv32
 * (fuzz_walk_auto_32). */
#define OTHER_WORD_SIZE (sizeof(uintptr_t) == 8 ? 4 : 8)

/* Damage that a check must reject whatever the rest of the table. */
static bool damage_is_fatal(enum damage damage, uint32_t count)
{
	switch (damage) {
	case DAMAGE_CHECKSUM:
	case DAMAGE_MAGIC:
	case DAMAGE_VERSION:
	case DAMAGE_WORD_SIZE:
	case DAMAGE_DESCRIPTOR_OUTSIDE:
		return true;
	case DAMAGE_ARRAY_OUTSIDE:
	case DAMAGE_NAMES_UNTERMINATED:
		return count > 0;
	default:
		return false;
	}
}

struct header {
	uint8_t flags;
	uint8_t max_depth;
	uint8_t small_line;
	uint8_t symtab_damage;
	uint8_t fde_index_damage;
	uint16_t stack_words;
	uint16_t text_size;
	uint16_t eh_frame_size;
	uint16_t fde_entries;
	uint16_t symbols;
	uint16_t names_size;
	uint32_t eh_frame_distance;
};

/* Where each part of the input starts, and its element count. */
struct parts {
	struct header header;
	struct fuzz_input regs;
	struct fuzz_input trap;
	size_t stack_count;
	struct fuzz_input stack[MAX_STACKS];
	size_t stack_words[MAX_STACKS];
	const uint8_t *text;
	size_t text_size;
	const uint8_t *eh_frame;
	size_t eh_frame_size;
	struct fuzz_input fde;
	size_t fde_entries;
	struct fuzz_input symbols;
	size_t symbol_count;
	const uint8_t *names;
	size_t names_size;
	struct fuzz_input rows;
	size_t row_count;
	uint32_t last_row_pc;
	uint8_t unwind_damage;
	uint16_t unwind_base;
	struct fuzz_input kit;
	struct fuzz_input damage;
};

#define REG_WORDS	  15
#define TRAP_LAYOUT_BYTES (2 * 2 + 17 * 2)

static struct fuzz_region stack_regions[MAX_STACKS];
static struct fuzz_region tables_region, text_region, eh_frame_region;
static _Alignas(16) uint8_t tables_bytes[TABLES_CAPACITY];
static struct tables tables;
/* DAMAGE_SIZES_MEASURED: the frame size each row states (16-byte units, 0
 * for none), in place of the one the rule word makes. */
static bool sizes_measured;
static uint8_t measured_sizes[MAX_ROWS];
/* The symbol table as built, before any damage: every name a walk prints
 * must be its answer. */
static struct tracer_symbol pristine_symbols[MAX_SYMBOLS];
static char pristine_names[MAX_BYTES + 8];
static uint32_t pristine_count;
static uintptr_t stack_words[MAX_STACKS][MAX_STACK_WORDS];
/* config->stacks: the stacks by address, or reversed. */
static struct tracer_range stacks[MAX_STACKS];

static void fail(const char *format, ...)
{
	va_list args;

	fprintf(stderr, "fuzz_walk (%s): invariant violated: ",
		tracer_unwinder_name(fuzz_unwinder));
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	abort();
}

/* A sub-input of `size` bytes at the current position. */
static struct fuzz_input take(struct fuzz_input *input, size_t size)
{
	struct fuzz_input part = {input->data + input->pos, size, 0};

	input->pos += size;
	return part;
}

static void take_stack(struct fuzz_input *input, struct parts *parts, size_t i,
		       uint16_t declared_words)
{
	parts->stack_words[i] = input_count(input, declared_words, 4);
	if (parts->stack_words[i] > MAX_STACK_WORDS)
		parts->stack_words[i] = MAX_STACK_WORDS;
	parts->stack[i] = take(input, parts->stack_words[i] * 4);
}

/* Row i from the input: its pc (0 first, then a step past the one
 * before) and its raw rule. */
static uint32_t next_row(struct fuzz_input *rows, uint32_t previous, size_t i,
			 uint32_t *rule)
{
	uint32_t step = 2 * (1 + (uint32_t)input_u16(rows));

	*rule = input_u32(rows);
	return i == 0 ? 0 : previous + step;
}

/* Keeps the rows up to MAX_ROW_PC, and the last one's pc. */
static void keep_rows(struct parts *parts)
{
	struct fuzz_input rows = parts->rows;
	uint32_t pc = 0;
	uint32_t rule;

	for (size_t i = 0; i < parts->row_count; i++) {
		uint32_t next = next_row(&rows, pc, i, &rule);

		if (next > MAX_ROW_PC) {
			parts->row_count = i;
			break;
		}
		pc = next;
	}
	parts->last_row_pc = pc;
}

/* The bytes of the kit part at the input's position (see decode_kit), at
 * most what the input still holds. */
static size_t kit_size(struct fuzz_input input)
{
	size_t start = input.pos;
	size_t size;

	/* flags, frame_size, sstatus offset, the three CSRs */
	input.pos += input_left(&input) < 17 ? input_left(&input) : 17;
	size = 18 + (size_t)(input_u8(&input) % (MAX_ENTRY_POINTS + 1)) * 3;
	input.pos = start;
	return size < input_left(&input) ? size : input_left(&input);
}

static void split(struct fuzz_input *input, struct parts *parts)
{
	struct header *header = &parts->header;

	header->flags = input_u8(input);
	header->max_depth = input_u8(input);
	header->small_line = input_u8(input);
	header->symtab_damage = input_u8(input);
	header->fde_index_damage = input_u8(input);
	header->stack_words = input_u16(input);
	header->text_size = input_u16(input);
	header->eh_frame_size = input_u16(input);
	header->fde_entries = input_u16(input);
	header->symbols = input_u16(input);
	header->names_size = input_u16(input);
	header->eh_frame_distance = input_u32(input);
	/* Fixed-size parts read zeros past the end of a short input. */
	parts->regs = take(input, input_count(input, REG_WORDS * 4, 1));
	parts->trap = take(input, input_count(input, TRAP_LAYOUT_BYTES, 1));
	parts->stack_count = 1 + (header->flags >> FLAG_STACKS_SHIFT & 3) % MAX_STACKS;
	take_stack(input, parts, 0, header->stack_words);
	parts->text_size = input_count(input, header->text_size, 1);
	parts->text = input_bytes(input, parts->text_size);
	parts->eh_frame_size = input_count(input, header->eh_frame_size, 1);
	parts->eh_frame = input_bytes(input, parts->eh_frame_size);
	parts->fde_entries = input_count(input, header->fde_entries, 8);
	if (parts->fde_entries > MAX_FDE_ENTRIES)
		parts->fde_entries = MAX_FDE_ENTRIES;
	parts->fde = take(input, parts->fde_entries * 8);
	parts->symbol_count = input_count(input, header->symbols, 12);
	if (parts->symbol_count > MAX_SYMBOLS)
		parts->symbol_count = MAX_SYMBOLS;
	parts->symbols = take(input, parts->symbol_count * 12);
	parts->names_size = input_count(input, header->names_size, 1);
	parts->names = input_bytes(input, parts->names_size);
	for (size_t i = 1; i < parts->stack_count; i++)
		take_stack(input, parts, i, input_u16(input));
	parts->row_count = input_u16(input);
	parts->unwind_damage = input_u8(input);
	parts->unwind_base = input_u16(input);
	parts->row_count = input_count(input, parts->row_count, 6);
	if (parts->row_count > MAX_ROWS)
		parts->row_count = MAX_ROWS;
	parts->rows = take(input, parts->row_count * 6);
	keep_rows(parts);
	parts->kit = take(input, kit_size(*input));
	parts->damage = take(input, input_left(input));
}

/* range.start + offset, wrapped to stay inside [start, end]: the end is a
 * valid value too (the top of the stack, the end of a function). */
static uintptr_t in_range(struct tracer_range range, uint32_t offset)
{
	return range.start + offset % (range.end - range.start + 1);
}

/* The low `bits` bits of value, as a signed number. */
static intptr_t sign_extend(uint32_t value, unsigned bits)
{
	uint32_t sign = (uint32_t)1 << (bits - 1);

	return (intptr_t)((value & (sign * 2 - 1)) ^ sign) - (intptr_t)sign;
}

/*
 * A machine word from 32 input bits: the top three choose what the low 29
 * are relative to, so that mutated pointers mostly stay inside the regions
 * and the walk goes on instead of stopping at the first word. With several
 * stacks, the top 3 of the 29 choose the stack of a stack offset (modulo
 * the count), and the low 26 are the offset.
 */
static uintptr_t decode_word(const struct tracer_config *config, uint32_t encoded)
{
	uint32_t offset = encoded & 0x1fffffff;
	intptr_t signed_offset = sign_extend(offset, 29);
	unsigned stack_bits = config->stack_count > 1 ? 26 : 29;
	struct tracer_range stack = config->stacks[(offset >> 26) % config->stack_count];
	uint32_t stack_offset = offset & (((uint32_t)1 << stack_bits) - 1);

	switch (encoded >> 29) {
	case 0:
		return in_range(config->text, offset);
	case 1:
		return in_range(stack, stack_offset);
	case 2:
		return offset;
	case 3:
		return in_range(config->eh_frame, offset);
	case 4:
		return config->text.start + (uintptr_t)signed_offset;
	case 5:
		return stack.start + (uintptr_t)sign_extend(stack_offset, stack_bits);
	case 6:
		return (uintptr_t)signed_offset;
	default:
		return UINTPTR_MAX - offset;
	}
}

static size_t page_round_up(size_t size)
{
	size_t page = fuzz_page_size();

	return (size + page - 1) / page * page;
}

/* .eh_frame's distance from text: a multiple of 8 (as in an image, and
 * for exact ASan poisoning), and at least a guard page past text's pages. */
static size_t eh_frame_distance(const struct parts *parts)
{
	size_t page = fuzz_page_size();
	size_t distance = (parts->header.eh_frame_distance & ~(uint32_t)7) %
			  (MAX_EH_FRAME_DISTANCE - page_round_up(MAX_BYTES) - page);
	size_t minimum = page_round_up(parts->text_size) + page;

	if (distance / page * page < minimum)
		distance += minimum - distance / page * page;
	return distance;
}

/* names[] holds the input's names and at least one NUL, to a multiple of 8
 * (a multiple of 4, as the format says, and the next array aligned). */
static size_t names_capacity(const struct parts *parts)
{
	return parts->symbol_count ? (parts->names_size + 8) / 8 * 8 : 0;
}

/* The blocks the rows need. */
static size_t block_count(const struct parts *parts)
{
	return parts->row_count ? (parts->last_row_pc >> TRACER_UNWIND_BLOCK_SHIFT) + 1
				: 0;
}

/* Distinct rules: at most one a row, and the format's maximum. */
static size_t rules_capacity(const struct parts *parts)
{
	return parts->row_count < TRACER_UNWIND_MAX_RULES ? parts->row_count
							  : TRACER_UNWIND_MAX_RULES;
}

/* The first 8-byte boundary of the tables at or after `at`. */
static void *tables_aligned(void *at)
{
	return tables_bytes + ((uint8_t *)at - tables_bytes + 7) / 8 * 8;
}

static void lay_out_tables(const struct parts *parts)
{
	tables.symtab = (struct tracer_symtab *)(void *)tables_bytes;
	tables.fde_index =
	    (struct tracer_fde_index *)(void *)(tables_bytes +
						sizeof(struct tracer_symtab));
	tables.unwind_table =
	    (struct tracer_unwind_table *)(void *)(tables.fde_index + 1);
	tables.entries =
	    (struct tracer_fde_entry *)(void *)(tables_bytes + TABLES_ARRAYS_AT);
	tables.symbols = (struct tracer_symbol *)(tables.entries + parts->fde_entries);
	/* On a 32-bit build the symbols are 12 bytes each. */
	tables.maps = tables_aligned(tables.symbols + parts->symbol_count);
	tables.rules =
	    (struct tracer_unwind_rule *)(void *)(tables.maps + block_count(parts));
	tables.lookup =
	    (uint16_t *)(void *)(tables.rules + (rules_capacity(parts) + 1) / 2 * 2);
	tables.rows = tables.lookup + (block_count(parts) + 3) / 4 * 4;
	tables.symtab_hashes =
	    (uint32_t *)(void *)(tables.rows + (parts->row_count + 3) / 4 * 4);
	tables.fde_index_hashes =
	    tables.symtab_hashes +
	    tracer_hash_blocks(parts->symbol_count * sizeof(struct tracer_symbol)) +
	    tracer_hash_blocks(names_capacity(parts));
	tables.unwind_hashes =
	    tables.fde_index_hashes +
	    tracer_hash_blocks(parts->fde_entries * sizeof(struct tracer_fde_entry)) +
	    tracer_hash_blocks(parts->eh_frame_size);
	tables.names = (char *)(tables.unwind_hashes +
				(tracer_hash_blocks(parts->row_count * 2) +
				 tracer_hash_blocks(block_count(parts) * 8) +
				 tracer_hash_blocks(block_count(parts) * 2) +
				 tracer_hash_blocks(rules_capacity(parts) *
						    sizeof(struct tracer_unwind_rule)) +
				 1) /
				    2 * 2);
	tables.size =
	    (size_t)(tables.names - (char *)tables_bytes) + names_capacity(parts);
}

/* Where the regions will be, before anything is loaded: the words of the
 * stack and the tables refer to all of them. */
static void declare_regions(const struct parts *parts, struct tracer_config *config)
{
	config->text.start = text_region.base;
	config->text.end = text_region.base + parts->text_size;
	for (size_t i = 0; i < parts->stack_count; i++) {
		size_t at = parts->header.flags & FLAG_STACKS_REVERSED
				? parts->stack_count - 1 - i
				: i;

		stacks[at].start = stack_regions[i].base;
		stacks[at].end =
		    stack_regions[i].base + parts->stack_words[i] * sizeof(uintptr_t);
	}
	config->stacks = stacks;
	config->stack_count = (unsigned)parts->stack_count;
	config->eh_frame.start = eh_frame_region.base + eh_frame_distance(parts);
	config->eh_frame.end = config->eh_frame.start + parts->eh_frame_size;
	config->tables.start = tables_region.base;
	config->tables.end = tables_region.base + tables.size;
	config->max_depth = parts->header.max_depth;
}

static void decode_regs(struct fuzz_input *input, const struct tracer_config *config,
			struct tracer_regs *regs)
{
	regs->pc = decode_word(config, input_u32(input));
	regs->ra = decode_word(config, input_u32(input));
	regs->sp = decode_word(config, input_u32(input));
	for (unsigned i = 0; i < 12; i++)
		regs->s[i] = decode_word(config, input_u32(input));
}

static void decode_trap(struct fuzz_input *input, const struct tracer_config *config,
			struct tracer_trap_layout *trap)
{
	uint16_t start = input_u16(input);
	uint16_t length = input_u16(input);

	trap->entry.start = in_range(config->text, start);
	trap->entry.end = trap->entry.start + length;
	trap->epc_offset = input_u16(input);
	trap->ra_offset = input_u16(input);
	trap->sp_offset = input_u16(input);
	for (unsigned i = 0; i < 12; i++)
		trap->s_offset[i] = input_u16(input);
	trap->cause_offset = input_u16(input);
	trap->tval_offset = input_u16(input);
}

/* The kit part (see the top): the layout's unsaved fields, sstatus, the
 * CSRs and the entry points. */
static void decode_kit(struct fuzz_input *input, struct tracer_config *config,
		       struct tracer_trap_layout *trap, struct tracer_trap_csrs *csrs,
		       struct tracer_range *entry_points)
{
	uint8_t flags = input_u8(input);
	uint16_t status_offset;

	trap->frame_size = input_u16(input);
	status_offset = input_u16(input);
	trap->status_offset =
	    flags & KIT_STATUS_SAVED ? status_offset : TRACER_TRAP_NOT_SAVED;
	if (flags & KIT_EPC_NOT_SAVED)
		trap->epc_offset = TRACER_TRAP_NOT_SAVED;
	if (flags & KIT_CAUSE_NOT_SAVED)
		trap->cause_offset = TRACER_TRAP_NOT_SAVED;
	if (flags & KIT_TVAL_NOT_SAVED)
		trap->tval_offset = TRACER_TRAP_NOT_SAVED;
	if (flags & KIT_SP_NOT_SAVED)
		trap->sp_offset = TRACER_TRAP_NOT_SAVED;
	csrs->epc = decode_word(config, input_u32(input));
	csrs->cause = decode_word(config, input_u32(input));
	csrs->tval = decode_word(config, input_u32(input));
	config->trap_csrs = flags & KIT_TRAP_CSRS ? csrs : NULL;
	config->entry_point_count = input_u8(input) % (MAX_ENTRY_POINTS + 1);
	for (unsigned i = 0; i < config->entry_point_count; i++) {
		uint16_t start = input_u16(input);

		entry_points[i].start = in_range(config->text, start);
		entry_points[i].end = entry_points[i].start + input_u8(input);
	}
	config->entry_points = entry_points;
	trap->mode =
	    flags & KIT_MACHINE_MODE ? TRACER_TRAP_MACHINE : TRACER_TRAP_SUPERVISOR;
	trap->exception_epc_added = flags & KIT_MACHINE_MODE ? 4 : 0;
	config->trap_frame = flags & KIT_RTOS_FRAMES ? csrs->tval : 0;
	config->task_entries = flags & KIT_RTOS_FRAMES ? entry_points : NULL;
	config->task_entry_count =
	    flags & KIT_RTOS_FRAMES ? config->entry_point_count : 0;
}

static int compare_symbols(const void *a, const void *b)
{
	uintptr_t left = ((const struct tracer_symbol *)a)->addr;
	uintptr_t right = ((const struct tracer_symbol *)b)->addr;

	return (left > right) - (left < right);
}

static int compare_entries(const void *a, const void *b)
{
	uintptr_t left = ((const struct tracer_fde_entry *)a)->pc_start;
	uintptr_t right = ((const struct tracer_fde_entry *)b)->pc_start;

	return (left > right) - (left < right);
}

/* Address the tracer sees for a part of the tables image. */
static uintptr_t tables_address(const void *part)
{
	return tables_region.base + (uintptr_t)((const uint8_t *)part - tables_bytes);
}

/* Hashes the blocks of `size` bytes at `data` (table_hash.h) into hashes[];
 * returns the next entry. */
static uint32_t *hash_array(uint32_t *hashes, enum tracer_hashed kind, const void *data,
			    size_t size)
{
	for (uint32_t block = 0; block < tracer_hash_blocks(size); block++)
		hashes[block] = tracer_hash_bytes(kind, block, data, size);
	return hashes + tracer_hash_blocks(size);
}

/* The descriptors' checksums (their counts and sizes), as symgen writes
 * them. */
static uint32_t symtab_header_checksum(const struct tracer_symtab *symtab)
{
	uint32_t words[2] = {symtab->count, symtab->names_size};

	return tracer_header_hash(TRACER_HASHED_SYMTAB_HEADER, words, 2);
}

static uint32_t fde_index_header_checksum(const struct tracer_fde_index *index)
{
	uint32_t words[4] = {index->count, (uint32_t)index->eh_frame,
			     (uint32_t)((uint64_t)index->eh_frame >> 32),
			     index->eh_frame_size};

	return tracer_header_hash(TRACER_HASHED_FDE_INDEX_HEADER, words, 4);
}

static uint32_t unwind_header_checksum(const struct tracer_unwind_table *table)
{
	uint32_t words[5] = {table->count, table->block_count, table->rule_count,
			     (uint32_t)table->base,
			     (uint32_t)((uint64_t)table->base >> 32)};

	return tracer_header_hash(TRACER_HASHED_UNWIND_HEADER, words, 5);
}

/* The checksum and the blocks' hashes, as symgen writes them, for the
 * table as it now is. */
static void symtab_hash(struct tracer_symtab *symtab)
{
	symtab->checksum = symtab_header_checksum(symtab);
	hash_array(hash_array(tables.symtab_hashes, TRACER_HASHED_SYMBOLS, tables.symbols,
			      symtab->count * sizeof(struct tracer_symbol)),
		   TRACER_HASHED_NAMES, tables.names, symtab->names_size);
}

static void fde_index_hash(struct tracer_fde_index *index, const uint8_t *eh_frame)
{
	index->checksum = fde_index_header_checksum(index);
	hash_array(hash_array(tables.fde_index_hashes, TRACER_HASHED_FDE_ENTRIES,
			      tables.entries,
			      index->count * sizeof(struct tracer_fde_entry)),
		   TRACER_HASHED_EH_FRAME, eh_frame, index->eh_frame_size);
}

/* Symbols sorted by address, one per address, names NUL-padded to a
 * multiple of 4: a table as symgen writes it. Returns the count. */
static uint32_t build_symbols(const struct parts *parts,
			      const struct tracer_config *config, uint32_t *names_size)
{
	struct fuzz_input input = parts->symbols;
	uint32_t count = 0;
	size_t padded = names_capacity(parts);

	if (parts->symbol_count == 0) {
		*names_size = 0;
		return 0;
	}
	memset(tables.names, 0, padded);
	memcpy(tables.names, parts->names, parts->names_size);
	for (size_t i = 0; i < parts->symbol_count; i++) {
		tables.symbols[i].addr = decode_word(config, input_u32(&input));
		tables.symbols[i].size = input_u32(&input);
		tables.symbols[i].name = input_u32(&input) % padded;
	}
	qsort(tables.symbols, parts->symbol_count, sizeof(tables.symbols[0]),
	      compare_symbols);
	for (size_t i = 0; i < parts->symbol_count; i++) {
		if (count == 0 ||
		    tables.symbols[i].addr != tables.symbols[count - 1].addr)
			tables.symbols[count++] = tables.symbols[i];
	}
	*names_size = (uint32_t)padded;
	return count;
}

static void unwind_table_hash(struct tracer_unwind_table *table)
{
	uint32_t *hashes = tables.unwind_hashes;

	table->checksum = unwind_header_checksum(table);
	if (table->count == 0)
		return;
	hashes =
	    hash_array(hashes, TRACER_HASHED_UNWIND_ROWS, tables.rows, table->count * 2);
	hashes = hash_array(hashes, TRACER_HASHED_UNWIND_MAPS, tables.maps,
			    table->block_count * 8);
	hashes = hash_array(hashes, TRACER_HASHED_UNWIND_LOOKUP, tables.lookup,
			    table->block_count * 2);
	hash_array(hashes, TRACER_HASHED_UNWIND_RULES, tables.rules,
		   table->rule_count * sizeof(struct tracer_unwind_rule));
}

/* The signed field of `bits` bits at `shift` of an input word. */
static int64_t input_field(uint32_t word, unsigned shift, unsigned bits)
{
	int64_t field = word >> shift & ((1u << bits) - 1);

	return field >= (int64_t)1 << (bits - 1) ? field - ((int64_t)1 << bits) : field;
}

/*
 * A rule symgen could write (docs/unwind-table-format.md) from the input's
 * word: bits 0-1 the CFA (0 no CFI, 1 sp, 2 s0, 3 interpret), bits 2-3 ra
 * modulo 3 (0 in its register, 1 saved, 2 undefined), bit 4 s0 saved,
 * bits 5-11 and 12-18 ra's and s0's offsets in words, bits 19-31 the
 * CFA's in units of 4 bytes (signed); an s0-based rule's frame size, in
 * 16-byte units, bits 5-7 xor 19-21 (0: none). What the format cannot
 * express is "interpret", as symgen makes it.
 */
static struct tracer_unwind_rule valid_rule(uint32_t word)
{
	static const struct tracer_unwind_rule no_cfi = {0, 0, 0, TRACER_UNWIND_NO_CFI,
							 0};
	static const struct tracer_unwind_rule interpret = {0, 0, 0,
							    TRACER_UNWIND_INTERPRET, 0};
	static const enum tracer_unwind_ra ra_kinds[3] = {
	    TRACER_UNWIND_RA_REGISTER, TRACER_UNWIND_RA_SAVED, TRACER_UNWIND_RA_LOST};
	const int64_t size = sizeof(uintptr_t);
	struct tracer_unwind_rule rule;

	if ((word & 3) == 0)
		return no_cfi;
	if ((word & 3) == 3 ||
	    !tracer_unwind_encode(&rule, (word & 3) == 2, 4 * input_field(word, 19, 13),
				  ra_kinds[(word >> 2 & 3) % 3],
				  size * input_field(word, 5, 7), word & 16,
				  size * input_field(word, 12, 7), sizeof(uintptr_t)))
		return interpret;
	/* A size for an s0-based rule, kept where validation accepts it (ra
	 * saved, the slots within it); a sp-based rule has its own. */
	if (rule.kind & TRACER_UNWIND_CFA_ON_S0) {
		rule.frame_size_16 = (uint8_t)((word >> 5 ^ word >> 19) & 7);
		if (!tracer_unwind_rule_valid(&rule, sizeof(uintptr_t)))
			rule.frame_size_16 = 0;
	}
	return rule;
}

/* Row `row`'s rule from its input word, with the measured frame size when
 * the damage part asks for them. */
static struct tracer_unwind_rule row_rule(uint32_t word, size_t row)
{
	struct tracer_unwind_rule rule = valid_rule(word);

	if (sizes_measured && rule.kind & TRACER_UNWIND_CFA_ON_S0 &&
	    rule.kind < TRACER_UNWIND_NO_CFI)
		rule.frame_size_16 = measured_sizes[row];
	return rule;
}

static bool same_rule(struct tracer_unwind_rule a, struct tracer_unwind_rule b)
{
	return a.kind == b.kind && a.cfa_offset == b.cfa_offset &&
	       a.ra_offset == b.ra_offset && a.s0_offset == b.s0_offset &&
	       a.frame_size_16 == b.frame_size_16;
}

/* The index of rule among the table's rules, added if new; rule 0 (no
 * CFI) once they are full. */
static uint32_t rule_index(struct tracer_unwind_table *table,
			   struct tracer_unwind_rule rule)
{
	for (uint32_t i = 0; i < table->rule_count; i++)
		if (same_rule(tables.rules[i], rule))
			return i;
	if (table->rule_count == TRACER_UNWIND_MAX_RULES)
		return 0;
	tables.rules[table->rule_count] = rule;
	return table->rule_count++;
}

/* Rows from pc 0 by the input's steps, the last one no-CFI (rule 0), their
 * rules, maps and lookup counts: a table as symgen writes it. */
static void build_rows(const struct parts *parts, struct tracer_unwind_table *table)
{
	struct fuzz_input input = parts->rows;
	uint32_t count = (uint32_t)parts->row_count;
	uint32_t pc = 0;
	uint32_t row = 0;

	table->count = count;
	table->rule_count = 0;
	table->block_count = (uint32_t)block_count(parts);
	if (count == 0)
		return;
	rule_index(table, valid_rule(0));
	memset(tables.maps, 0, table->block_count * sizeof(uint64_t));
	for (uint32_t i = 0; i < count; i++) {
		uint32_t rule;

		pc = next_row(&input, pc, i, &rule);
		tables.maps[pc >> TRACER_UNWIND_BLOCK_SHIFT] |= (uint64_t)1
								<< (pc >> 1 & 63);
		tables.rows[i] =
		    (uint16_t)(sizeof(struct tracer_unwind_rule) *
			       (i + 1 < count ? rule_index(table, row_rule(rule, i))
					      : 0));
	}
	for (uint32_t block = 0; block < table->block_count; block++) {
		row += tracer_unwind_popcount(tables.maps[block]);
		tables.lookup[block] = (uint16_t)row;
	}
}

static uint32_t build_fde_entries(const struct parts *parts,
				  const struct tracer_config *config)
{
	struct fuzz_input input = parts->fde;

	for (size_t i = 0; i < parts->fde_entries; i++) {
		tables.entries[i].pc_start = decode_word(config, input_u32(&input));
		tables.entries[i].fde = decode_word(config, input_u32(&input));
	}
	qsort(tables.entries, parts->fde_entries, sizeof(tables.entries[0]),
	      compare_entries);
	return (uint32_t)parts->fde_entries;
}

/* Flips one byte of `size` bytes at `bytes`, chosen by `which`. */
static void flip_byte(void *bytes, size_t size, unsigned which)
{
	if (size > 0)
		((uint8_t *)bytes)[which % size] ^= 0x5a;
}

static enum damage damage_symtab(uint8_t selector, struct tracer_config *config)
{
	struct tracer_symtab *symtab = tables.symtab;
	enum damage damage = selector % DAMAGE_KINDS;
	unsigned detail = selector / DAMAGE_KINDS;

	switch (damage) {
	case DAMAGE_CHECKSUM:
		symtab->checksum ^= 1u << detail % 32;
		break;
	case DAMAGE_MAGIC:
		symtab->magic = TRACER_FDE_INDEX_MAGIC;
		break;
	case DAMAGE_VERSION:
		symtab->version++;
		break;
	case DAMAGE_WORD_SIZE:
		symtab->word_size = OTHER_WORD_SIZE;
		break;
	case DAMAGE_DESCRIPTOR_OUTSIDE:
		config->symtab =
		    (const struct tracer_symtab *)(config->tables.start - 64);
		break;
	case DAMAGE_ARRAY_OUTSIDE:
		symtab->symbols = (const struct tracer_symbol *)config->tables.end;
		break;
	case DAMAGE_COUNT:
		/* The header's checksum only: the arrays' hashes stay. */
		symtab->count++;
		symtab->checksum = symtab_header_checksum(symtab);
		break;
	case DAMAGE_BYTE:
		/* Symbols and names are adjacent. */
		flip_byte(tables.symbols,
			  (size_t)(tables.names - (char *)tables.symbols) +
			      symtab->names_size,
			  detail);
		break;
	default:
		if (symtab->names_size > 0)
			tables.names[symtab->names_size - 1] = 'x';
		symtab_hash(symtab);
		break;
	}
	return damage;
}

static enum damage damage_fde_index(uint8_t selector, struct tracer_config *config)
{
	struct tracer_fde_index *index = tables.fde_index;
	/* DAMAGE_NAMES_UNTERMINATED, the last kind, is the symbol table's. */
	enum damage damage = selector % (DAMAGE_KINDS - 1);
	unsigned detail = selector / (DAMAGE_KINDS - 1);

	switch (damage) {
	case DAMAGE_CHECKSUM:
		index->checksum ^= 1u << detail % 32;
		break;
	case DAMAGE_MAGIC:
		index->magic = TRACER_SYMTAB_MAGIC;
		break;
	case DAMAGE_VERSION:
		index->version++;
		break;
	case DAMAGE_WORD_SIZE:
		index->word_size = OTHER_WORD_SIZE;
		break;
	case DAMAGE_DESCRIPTOR_OUTSIDE:
		config->fde_index =
		    (const struct tracer_fde_index *)(config->tables.end + 64);
		break;
	case DAMAGE_ARRAY_OUTSIDE:
		index->entries = (const struct tracer_fde_entry *)config->tables.end;
		break;
	case DAMAGE_COUNT:
		index->count++;
		index->checksum = fde_index_header_checksum(index);
		break;
	default:
		flip_byte(tables.entries, index->count * sizeof(struct tracer_fde_entry),
			  detail);
		break;
	}
	return damage;
}

static enum damage damage_unwind_table(uint8_t selector, struct tracer_config *config)
{
	struct tracer_unwind_table *table = tables.unwind_table;
	/* DAMAGE_NAMES_UNTERMINATED, the last kind, is the symbol table's. */
	enum damage damage = selector % (DAMAGE_KINDS - 1);
	unsigned detail = selector / (DAMAGE_KINDS - 1);

	switch (damage) {
	case DAMAGE_CHECKSUM:
		table->checksum ^= 1u << detail % 32;
		break;
	case DAMAGE_MAGIC:
		table->magic = TRACER_FDE_INDEX_MAGIC;
		break;
	case DAMAGE_VERSION:
		table->version++;
		break;
	case DAMAGE_WORD_SIZE:
		table->word_size = OTHER_WORD_SIZE;
		break;
	case DAMAGE_DESCRIPTOR_OUTSIDE:
		config->unwind_table =
		    (const struct tracer_unwind_table *)(config->tables.end + 64);
		break;
	case DAMAGE_ARRAY_OUTSIDE:
		table->rows = (const uint16_t *)config->tables.end;
		break;
	case DAMAGE_COUNT:
		table->count++;
		table->checksum = unwind_header_checksum(table);
		break;
	default:
		/* Maps, rules, lookup and rows are adjacent. */
		flip_byte(
		    tables.maps,
		    (size_t)((char *)(tables.rows + table->count) - (char *)tables.maps),
		    detail);
		break;
	}
	return damage;
}

/* What a table's damage promises about its check. */
struct table_expectation {
	bool damaged;
	enum damage damage;
	uint32_t count;
};

/* The unwind table, if the input has rows. */
static void build_unwind_table(const struct parts *parts, struct tracer_config *config,
			       struct table_expectation *expected)
{
	struct tracer_unwind_table *table = tables.unwind_table;

	table->magic = TRACER_UNWIND_TABLE_MAGIC;
	table->version = TRACER_UNWIND_VERSION;
	table->word_size = sizeof(uintptr_t);
	build_rows(parts, table);
	table->base = in_range(config->text, parts->unwind_base) & ~(uintptr_t)1;
	table->rows = (const uint16_t *)tables_address(tables.rows);
	table->maps = (const uint64_t *)tables_address(tables.maps);
	table->lookup = (const uint16_t *)tables_address(tables.lookup);
	table->rules = (const struct tracer_unwind_rule *)tables_address(tables.rules);
	table->hashes =
	    table->count ? (const uint32_t *)tables_address(tables.unwind_hashes) : NULL;
	unwind_table_hash(table);
	config->unwind_table =
	    table->count ? (const struct tracer_unwind_table *)tables_address(table)
			 : NULL;
	expected->count = table->count;
	expected->damaged = config->unwind_table && parts->unwind_damage != 0;
	if (expected->damaged)
		expected->damage = damage_unwind_table(parts->unwind_damage - 1, config);
}

static void build_tables(const struct parts *parts, struct tracer_config *config,
			 struct table_expectation *symtab_expected,
			 struct table_expectation *fde_index_expected)
{
	struct tracer_symtab *symtab = tables.symtab;
	struct tracer_fde_index *index = tables.fde_index;
	uint8_t flags = parts->header.flags;

	symtab->magic = TRACER_SYMTAB_MAGIC;
	symtab->version = TRACER_TABLE_VERSION;
	symtab->word_size = sizeof(uintptr_t);
	symtab->count = build_symbols(parts, config, &symtab->names_size);
	symtab->symbols =
	    symtab->count ? (const struct tracer_symbol *)tables_address(tables.symbols)
			  : NULL;
	symtab->names = symtab->count ? (const char *)tables_address(tables.names) : NULL;
	symtab->hashes =
	    symtab->count ? (const uint32_t *)tables_address(tables.symtab_hashes) : NULL;
	symtab_hash(symtab);
	pristine_count = symtab->count;
	memcpy(pristine_symbols, tables.symbols,
	       symtab->count * sizeof(struct tracer_symbol));
	memcpy(pristine_names, tables.names, symtab->names_size);
	index->magic = TRACER_FDE_INDEX_MAGIC;
	index->version = TRACER_TABLE_VERSION;
	index->word_size = sizeof(uintptr_t);
	index->count = build_fde_entries(parts, config);
	index->entries =
	    index->count ? (const struct tracer_fde_entry *)tables_address(tables.entries)
			 : NULL;
	/* .eh_frame as the config declares it, as symgen read it. */
	index->eh_frame = config->eh_frame.start;
	index->eh_frame_size = (uint32_t)parts->eh_frame_size;
	index->hashes = (const uint32_t *)tables_address(tables.fde_index_hashes);
	fde_index_hash(index, parts->eh_frame);

	config->symtab = flags & FLAG_SYMTAB
			     ? (const struct tracer_symtab *)tables_address(symtab)
			     : NULL;
	config->fde_index = flags & FLAG_FDE_INDEX
				? (const struct tracer_fde_index *)tables_address(index)
				: NULL;
	symtab_expected->count = symtab->count;
	symtab_expected->damaged = config->symtab && flags & FLAG_SYMTAB_DAMAGED;
	if (symtab_expected->damaged)
		symtab_expected->damage =
		    damage_symtab(parts->header.symtab_damage, config);
	fde_index_expected->count = index->count;
	fde_index_expected->damaged = config->fde_index && flags & FLAG_FDE_INDEX_DAMAGED;
	if (fde_index_expected->damaged)
		fde_index_expected->damage =
		    damage_fde_index(parts->header.fde_index_damage, config);
}

static void check_table(const char *name, enum tracer_table_status status,
			const struct table_expectation *expected)
{
	if (expected->damaged && damage_is_fatal(expected->damage, expected->count) &&
	    status == TRACER_TABLE_OK)
		fail("%s with damage %d accepted", name, expected->damage);
}

enum line_kind { LINE_FRAME, LINE_TRAP, LINE_HEADER, LINE_END, LINE_NOTE };

static char *format_line(enum line_kind kind, char *buf, size_t size,
			 const struct tracer_walk *walk, const struct tracer_frame *frame)
{
	switch (kind) {
	case LINE_FRAME:
		return tracer_format_frame(buf, size, frame);
	case LINE_TRAP:
		return tracer_format_trap(buf, size, frame);
	case LINE_HEADER:
		return tracer_format_header(buf, size, fuzz_unwinder);
	case LINE_END:
		return tracer_format_end(buf, size, tracer_stop_reason(walk));
	default: {
		/* A copy: the note is said once a walk (the walk's own call
		 * is walk_and_check's). */
		struct tracer_walk copy = *walk;

		return tracer_format_note(buf, size, &copy);
	}
	}
}

/* Output buffers: a full line and a smaller one of the input's size, both
 * heap blocks of exactly that size, so ASan reports a write past them. */
struct lines {
	char *full;
	char *small;
	size_t small_size;
};

static void check_line_in(enum line_kind kind, char *buf, size_t size,
			  const struct tracer_walk *walk,
			  const struct tracer_frame *frame)
{
	char *line;

	memset(buf, 0xa5, size);
	line = format_line(kind, buf, size, walk, frame);
	if (kind == LINE_NOTE && line == NULL)
		return;
	if (line != buf)
		fail("format kind %d returned %p, not its buffer", kind, (void *)line);
	if (!memchr(buf, '\0', size))
		fail("format kind %d: no NUL within %zu bytes", kind, size);
}

static void check_line(const struct lines *lines, enum line_kind kind,
		       const struct tracer_walk *walk, const struct tracer_frame *frame)
{
	check_line_in(kind, lines->full, TRACER_LINE_MAX, walk, frame);
	check_line_in(kind, lines->small, lines->small_size, walk, frame);
}

/* Whether pc follows a call: jal or jalr that links (rd != x0) at pc - 4,
 * or c.jalr at pc - 2; in a 32-bit build (fuzz_walk_auto_32, the tracer's
 * rv32 code) c.jal too, rv32's compressed call (rv64's c.addiw). */
static bool follows_call(struct tracer_range text, uintptr_t pc)
{
	uint16_t parcel;
	uint32_t insn;

	if (pc - text.start >= 2 && pc <= text.end) {
		memcpy(&parcel, (const void *)(pc - 2), 2);
		if ((parcel & 0xf07f) == 0x9002 && (parcel >> 7 & 0x1f) != 0)
			return true;
		if (sizeof(uintptr_t) == 4 && (parcel & 0xe003) == 0x2001)
			return true;
	}
	if (pc - text.start >= 4 && pc <= text.end) {
		memcpy(&insn, (const void *)(pc - 4), 4);
		if ((insn & 0x7f) == 0x6f && (insn >> 7 & 0x1f) != 0)
			return true;
		if ((insn & 0x707f) == 0x67 && (insn >> 7 & 0x1f) != 0)
			return true;
	}
	return false;
}

/* The stack a walk reads at sp, by tracer.h's rule, found here again: its
 * index in config->stacks, the lowest stack starting at or above sp if none
 * holds it, else -1. */
static int stack_of(const struct tracer_config *config, uintptr_t sp)
{
	int below = -1;

	for (unsigned i = 0; i < config->stack_count; i++) {
		if (config->stacks[i].start < sp && sp <= config->stacks[i].end)
			return (int)i;
	}
	for (unsigned i = 0; i < config->stack_count; i++) {
		struct tracer_range stack = config->stacks[i];

		if (stack.start < stack.end && stack.start >= sp &&
		    (below < 0 || stack.start < config->stacks[below].start))
			below = (int)i;
	}
	return below;
}

/* Whether the frame's code (a return address: its call) lies in one of the
 * entry points the walk looks at. */
static bool in_entry_point(const struct tracer_config *config,
			   const struct tracer_frame *frame)
{
	uintptr_t code = frame->pc - (frame->is_return_address ? 1 : 0);
	unsigned count = config->entry_point_count < TRACER_MAX_ENTRY_POINTS
			     ? config->entry_point_count
			     : TRACER_MAX_ENTRY_POINTS;

	for (unsigned i = 0; i < count; i++)
		if (code >= config->entry_points[i].start &&
		    code < config->entry_points[i].end)
			return true;
	return false;
}

/* The function of the symbol table as built (before any damage) that
 * holds code, as its search finds it; NULL if none does. */
static const struct tracer_symbol *pristine_holder(uintptr_t code)
{
	const struct tracer_symbol *holder = NULL;

	for (uint32_t i = 0; i < pristine_count; i++)
		if (pristine_symbols[i].addr <= code)
			holder = &pristine_symbols[i];
	return holder && code - holder->addr < holder->size ? holder : NULL;
}

/* The code a frame's step looks up: a return address's call. */
static uintptr_t frame_code(const struct tracer_frame *frame)
{
	return frame->pc - (frame->is_return_address ? 1 : 0);
}

/* Whether the symbol table as built names the frame's code `name`: a walk
 * prints a name only from blocks that hold. */
static bool pristine_name_is(const struct tracer_frame *frame, const char *name)
{
	const struct tracer_symbol *holder = pristine_holder(frame_code(frame));

	return holder && strcmp(pristine_names + holder->name, name) == 0;
}

/* tracer_function_range() at the frame's code reads the table as a walk
 * does: a range it gives is the function of the table as built (never a
 * false one, whatever the damage), and a frame the walk named (its own
 * function, not a call inlined into it) gets its function's range. */
static void check_function_range(const struct tracer_config *config,
				 const struct tracer_frame *frame, size_t i)
{
	uintptr_t code = frame_code(frame);
	struct tracer_range range = tracer_function_range(config, code);
	const struct tracer_symbol *holder = pristine_holder(code);

	if (range.start == range.end) {
		if (range.start != code)
			fail("frame %zu: empty range at %#lx, not at its code %#lx", i,
			     (unsigned long)range.start, (unsigned long)code);
		if (frame->name && !frame->inlined)
			fail("frame %zu: named %s by the walk, but no range", i,
			     frame->name);
		return;
	}
	if (!holder || range.start != holder->addr ||
	    range.end != holder->addr + holder->size)
		fail("frame %zu: range [%#lx, %#lx) at %#lx, not the built table's", i,
		     (unsigned long)range.start, (unsigned long)range.end,
		     (unsigned long)code);
	if (frame->name && !frame->inlined &&
	    (range.start != frame->pc - frame->offset ||
	     range.end - range.start != frame->size))
		fail("frame %zu: range [%#lx, %#lx), not the walk's %s+%#lx/%#lx", i,
		     (unsigned long)range.start, (unsigned long)range.end, frame->name,
		     (unsigned long)frame->offset, (unsigned long)frame->size);
}

/* Checks the frames; returns the stack the last one is on (-1: none). A
 * walk that ends at a trap from user mode shows that frame whatever its
 * sp: the last one, then, is not checked against the stacks. */
static int check_frames(const struct tracer_config *config,
			const struct tracer_frame *frames, size_t count,
			enum tracer_stop stop)
{
	int current = count ? stack_of(config, frames[0].sp) : -1;
	uint32_t left = 0;

	for (size_t i = 0; i < count; i++) {
		const struct tracer_frame *frame = &frames[i];

		/* The walk ends at the first frame in an entry point. */
		if (i + 1 < count && in_entry_point(config, frame))
			fail("frame %zu is in an entry point, but the walk went on", i);
		if (i + 1 == count && frame->after_trap && stop == TRACER_STOP_USER_ENTRY)
			break;

		if (frame->is_return_address) {
			if (!(frame->pc - 1 >= config->text.start &&
			      frame->pc - 1 < config->text.end))
				fail("frame %zu: return address %#lx - 1 outside text", i,
				     (unsigned long)frame->pc);
			if (!follows_call(config->text, frame->pc))
				fail("frame %zu: return address %#lx follows no call", i,
				     (unsigned long)frame->pc);
		}
		if (frame->name && !pristine_name_is(frame, frame->name))
			fail("frame %zu: named %s, not as the table was built", i,
			     frame->name);
		check_function_range(config, frame, i);
		if (i == 0)
			continue;
		/* Nothing is read without a stack: no frame follows one on
		 * none. */
		if (current < 0)
			fail("frame %zu follows a frame on no stack", i);
		/* A trap frame's sp chooses the stack: another one (the trap
		 * switched to an interrupt stack), never one the walk left;
		 * or none (a trap from user mode), and the walk stops after
		 * showing the frame. Else the frame is above the one before,
		 * on the same stack. */
		if (frame->after_trap && stack_of(config, frame->sp) != current) {
			int next = stack_of(config, frame->sp);

			if (next >= 0 && (left >> next & 1))
				fail("frame %zu: back on stack %d, which the walk left",
				     i, next);
			left |= (uint32_t)1 << current;
			current = next;
			continue;
		}
		if (!frame->after_trap && (frame->sp <= config->stacks[current].start ||
					   frame->sp > config->stacks[current].end))
			fail("frame %zu: sp %#lx outside the current stack (%#lx, %#lx]",
			     i, (unsigned long)frame->sp,
			     (unsigned long)config->stacks[current].start,
			     (unsigned long)config->stacks[current].end);
		if (frames[i - 1].is_return_address ? frame->sp <= frames[i - 1].sp
						    : frame->sp < frames[i - 1].sp)
			fail("frame %zu: sp %#lx not above frame %zu's %#lx", i,
			     (unsigned long)frame->sp, i - 1,
			     (unsigned long)frames[i - 1].sp);
	}
	return current;
}

/* A raw capture (tracer_capture) of the same walk gives its pcs and its
 * stop; room for one frame fewer stops at the depth limit. */
static void check_capture(const struct tracer_config *config,
			  const struct tracer_regs *regs,
			  const struct tracer_frame *frames, size_t count,
			  enum tracer_stop stop, const struct tracer_walk *start,
			  const struct tracer_walk *end)
{
	static uintptr_t pcs[MAX_FRAMES];
	struct tracer_prepared prepared;
	enum tracer_stop capture_stop;
	size_t captured;

	tracer_prepare(&prepared, config);
	/* The capture trusts tracer_prepare()'s verdict on every block; the
	 * walk checks only those it reads: alike only if both judged the
	 * tables alike, from the walk's start to its end. */
	if (prepared_of(&prepared)->symtab_status !=
		walk_of((struct tracer_walk *)start)->symtab_status ||
	    prepared_of(&prepared)->fde_index_status !=
		walk_of((struct tracer_walk *)start)->fde_index_status ||
	    prepared_of(&prepared)->unwind_table_status !=
		walk_of((struct tracer_walk *)start)->unwind_table_status ||
	    prepared_of(&prepared)->eh_frame_status !=
		walk_of((struct tracer_walk *)start)->eh_frame_status ||
	    walk_of((struct tracer_walk *)end)->symtab_status !=
		walk_of((struct tracer_walk *)start)->symtab_status ||
	    walk_of((struct tracer_walk *)end)->fde_index_status !=
		walk_of((struct tracer_walk *)start)->fde_index_status ||
	    walk_of((struct tracer_walk *)end)->unwind_table_status !=
		walk_of((struct tracer_walk *)start)->unwind_table_status ||
	    walk_of((struct tracer_walk *)end)->eh_frame_status !=
		walk_of((struct tracer_walk *)start)->eh_frame_status)
		return;
	captured =
	    tracer_capture(&prepared, fuzz_unwinder, regs, pcs, count, &capture_stop);
	if (captured != count || capture_stop != stop)
		fail("capture: %zu pcs, stop %d; the walk: %zu frames, stop %d", captured,
		     capture_stop, count, stop);
	for (size_t i = 0; i < count; i++) {
		if (pcs[i] != frames[i].pc)
			fail("capture: pc %zu is %#lx, the walk's %#lx", i,
			     (unsigned long)pcs[i], (unsigned long)frames[i].pc);
	}
	if (count > 0 && (tracer_capture(&prepared, fuzz_unwinder, regs, pcs, count - 1,
					 &capture_stop) != count - 1 ||
			  capture_stop != TRACER_STOP_DEPTH_LIMIT))
		fail("capture into %zu words: not the depth limit", count - 1);
}

/* The one-call printer's lines: the loop's, formatted here again from its
 * frames, one by one; and its stop. */
struct printed {
	const struct tracer_frame *frames;
	size_t count;
	size_t frame;	/* the next frame expected */
	bool note_done; /* the note before it was printed */
	bool trap_done; /* its trap line was printed */
	size_t lines;
	enum tracer_stop stop;
	/* The note the walk said before frame i (i = count: before the end
	 * line), if has_note[i]. */
	char (*notes)[TRACER_LINE_MAX];
	const bool *has_note;
};

static void compare_line(void *context, const char *line)
{
	struct printed *printed = context;
	char expected[TRACER_LINE_MAX];
	const struct tracer_frame *frame = &printed->frames[printed->frame];

	if (printed->lines++ == 0) {
		tracer_format_header(expected, sizeof(expected), fuzz_unwinder);
	} else if (!printed->note_done && printed->has_note[printed->frame]) {
		snprintf(expected, sizeof(expected), "%s",
			 printed->notes[printed->frame]);
		printed->note_done = true;
	} else if (printed->frame == printed->count) {
		tracer_format_end(expected, sizeof(expected), printed->stop);
	} else if (frame->after_trap && !printed->trap_done) {
		tracer_format_trap(expected, sizeof(expected), frame);
		printed->trap_done = true;
	} else {
		tracer_format_frame(expected, sizeof(expected), frame);
		printed->frame++;
		printed->trap_done = false;
		printed->note_done = false;
	}
	if (strcmp(line, expected) != 0)
		fail("printer line %zu: \"%s\", the walk's \"%s\"", printed->lines, line,
		     expected);
}

static void check_printer(const struct tracer_config *config,
			  const struct tracer_regs *regs,
			  const struct tracer_frame *frames, size_t count,
			  enum tracer_stop stop, char (*notes)[TRACER_LINE_MAX],
			  const bool *has_note)
{
	struct printed printed = {frames, count, 0,	false,	 false,
				  0,	  stop,	 notes, has_note};

	if (tracer_print_backtrace(config, regs, fuzz_unwinder, compare_line, &printed) !=
		stop ||
	    printed.frame != count)
		fail("printer: %zu frames, the walk's %zu", printed.frame, count);
}

/* The note the walk says now, as the documented loop prints it (once),
 * into notes[at]. */
static void take_note(const struct lines *lines, struct tracer_walk *walk,
		      char (*notes)[TRACER_LINE_MAX], bool *has_note, size_t at)
{
	check_line(lines, LINE_NOTE, walk, NULL);
	has_note[at] = tracer_format_note(notes[at], TRACER_LINE_MAX, walk) != NULL;
}

/* Whether the frame's code lies in a declared task entry (config's rules:
 * at most TRACER_MAX_ENTRY_POINTS). */
static bool in_task_entry(const struct tracer_config *config,
			  const struct tracer_frame *frame)
{
	uintptr_t code = frame->is_return_address ? frame->pc - 1 : frame->pc;

	for (unsigned i = 0; i < config->task_entry_count && i < TRACER_MAX_ENTRY_POINTS;
	     i++)
		if (code >= config->task_entries[i].start &&
		    code < config->task_entries[i].end)
			return true;
	return false;
}

/* How a walk ended: its frames, its stop, the tables as it judged them at
 * its end. */
struct walk_result {
	struct tracer_frame frames[MAX_FRAMES];
	size_t count;
	enum tracer_stop stop;
	enum tracer_table_status statuses[4];
};

static void walk_and_check(const struct tracer_config *config,
			   const struct tracer_regs *regs, const struct lines *lines,
			   struct walk_result *result)
{
	struct tracer_frame *frames = result->frames;
	static char notes[MAX_FRAMES + 1][TRACER_LINE_MAX];
	static bool has_note[MAX_FRAMES + 1];
	unsigned max_depth = config->max_depth ? config->max_depth : TRACER_DEFAULT_DEPTH;
	struct tracer_walk walk;
	struct tracer_walk start;
	struct tracer_frame after;
	size_t count = 0;
	enum tracer_stop stop;
	int last_stack;
	uintptr_t top;

	tracer_start(&walk, fuzz_unwinder, config, regs);
	start = walk;
	check_line(lines, LINE_HEADER, &walk, NULL);
	while (count <= max_depth && tracer_next(&walk, &frames[count])) {
		take_note(lines, &walk, notes, has_note, count);
		if (frames[count].after_trap)
			check_line(lines, LINE_TRAP, &walk, &frames[count]);
		check_line(lines, LINE_FRAME, &walk, &frames[count]);
		count++;
	}
	if (count > max_depth)
		fail("more than max_depth %u frames", max_depth);
	stop = tracer_stop_reason(&walk);
	if (stop == TRACER_RUNNING || stop >= TRACER_STOP_COUNT ||
	    stop == TRACER_STOP_BAD_UNWINDER)
		fail("stop reason %d", stop);
	take_note(lines, &walk, notes, has_note, count);
	if (tracer_next(&walk, &after) || tracer_next(&walk, &after) ||
	    tracer_stop_reason(&walk) != stop)
		fail("tracer_next went on after stopping with %d", stop);
	check_line(lines, LINE_END, &walk, NULL);
	if (stop == TRACER_STOP_DEPTH_LIMIT && count != max_depth)
		fail("depth limit after %zu frames, limit %u", count, max_depth);
	check_capture(config, regs, frames, count, stop, &start, &walk);
	if (stop == TRACER_STOP_USER_ENTRY && config->entry_point_count == 0 &&
	    !(config->trap && config->trap->status_offset != TRACER_TRAP_NOT_SAVED))
		fail("user-mode entry with no entry point and no sstatus");
	if ((stop == TRACER_STOP_TRAP_NOT_SAVED ||
	     stop == TRACER_STOP_MACHINE_TRAP_NOT_SAVED) &&
	    !(config->trap &&
	      (stop == TRACER_STOP_MACHINE_TRAP_NOT_SAVED) ==
		  (config->trap->mode == TRACER_TRAP_MACHINE) &&
	      (config->trap->epc_offset == TRACER_TRAP_NOT_SAVED ||
	       config->trap->cause_offset == TRACER_TRAP_NOT_SAVED ||
	       config->trap->tval_offset == TRACER_TRAP_NOT_SAVED)))
		fail("no saved sepc/scause/stval, but the layout saves them");
	check_printer(config, regs, frames, count, stop, notes, has_note);
	last_stack = check_frames(config, frames, count, stop);
	/* Outermost: the last frame's sp, or (DWARF, table) the CFA it was entered
	 * with, which the harness does not know, is the top of its stack; or
	 * its code is a task entry's. */
	top = last_stack >= 0 ? config->stacks[last_stack].end : 0;
	if (stop == TRACER_STOP_OUTERMOST &&
	    !(count > 0 && in_task_entry(config, &frames[count - 1])) &&
	    (last_stack < 0 || frames[count - 1].sp > top ||
	     (frames[count - 1].sp != top && fuzz_unwinder != TRACER_DWARF &&
	      fuzz_unwinder != TRACER_TABLE && fuzz_unwinder != TRACER_AUTO)))
		fail("outermost frame's sp %#lx is not the top %#lx of its stack",
		     count ? (unsigned long)frames[count - 1].sp : 0UL,
		     (unsigned long)top);
	result->count = count;
	result->stop = stop;
	result->statuses[0] = walk_of(&walk)->symtab_status;
	result->statuses[1] = walk_of(&walk)->fde_index_status;
	result->statuses[2] = walk_of(&walk)->unwind_table_status;
	result->statuses[3] = walk_of(&walk)->eh_frame_status;
}

struct damage_spec {
	uint8_t flags;
	enum outside_damage kind;
	uint32_t position;
	uint32_t value;
};

static void decode_damage(struct fuzz_input *input, struct damage_spec *damage)
{
	damage->flags = input_u8(input);
	damage->kind = (enum outside_damage)(input_u8(input) % OUTSIDE_KINDS);
	damage->position = input_u32(input);
	damage->value = input_u32(input);
}

/* The index of the unwind table's row (as built) that holds code address
 * `code`, -1 if none: before the base, or past the last block. */
static long row_at(const struct parts *parts, uintptr_t code)
{
	const struct tracer_unwind_table *table = tables.unwind_table;
	struct fuzz_input input = parts->rows;
	uint32_t pc = 0;
	uint32_t rule;
	long found = -1;

	if (code < table->base ||
	    (code - table->base) >> TRACER_UNWIND_BLOCK_SHIFT >= table->block_count)
		return -1;
	for (size_t i = 0; i < parts->row_count; i++) {
		pc = next_row(&input, pc, i, &rule);
		if (table->base + pc > code)
			break;
		found = (long)i;
	}
	return found;
}

static const struct tracer_unwind_rule *rule_of_row(long row)
{
	return &tables.rules[tables.rows[row] / sizeof(struct tracer_unwind_rule)];
}

/* DAMAGE_SIZES_MEASURED: each row that holds a return address's call
 * states the size the walk found for that frame (its caller's sp less its
 * own), the first one if several frames share it. */
static void measure_sizes(const struct parts *parts, const struct walk_result *walk)
{
	memset(measured_sizes, 0, sizeof(measured_sizes));
	for (size_t j = 0; j + 1 < walk->count; j++) {
		const struct tracer_frame *frame = &walk->frames[j];
		uintptr_t size = walk->frames[j + 1].sp - frame->sp;
		long row = row_at(parts, frame_code(frame));

		if (frame->is_return_address && !walk->frames[j + 1].after_trap &&
		    size % TRACER_UNWIND_FRAME_UNIT == 0 && size > 0 &&
		    size / TRACER_UNWIND_FRAME_UNIT <= UINT8_MAX && row >= 0 &&
		    measured_sizes[row] == 0)
			measured_sizes[row] = (uint8_t)(size / TRACER_UNWIND_FRAME_UNIT);
	}
}

/*
 * Whether the walk checks frame `frame`'s CFA, taken from s0, against a
 * frame size (its caller `caller` as the undamaged walk found it): a return
 * address in the table's call window (its call inside the table's blocks, 4
 * bytes of text before it) whose row is s0-based and states the size the
 * walk found.
 */
static bool size_witnessed(const struct parts *parts, const struct tracer_config *config,
			   const struct tracer_frame *frame,
			   const struct tracer_frame *caller)
{
	const struct tracer_unwind_table *table = tables.unwind_table;
	const struct tracer_unwind_rule *rule;
	long row;

	if (!frame->is_return_address || caller->after_trap ||
	    frame->pc - config->text.start < 4 || frame->pc <= table->base ||
	    (frame->pc - table->base) >> TRACER_UNWIND_BLOCK_SHIFT >= table->block_count)
		return false;
	row = row_at(parts, frame->pc - 1);
	if (row < 0)
		return false;
	rule = rule_of_row(row);
	return rule->kind < TRACER_UNWIND_NO_CFI &&
	       rule->kind & TRACER_UNWIND_CFA_ON_S0 && rule->frame_size_16 != 0 &&
	       caller->sp - frame->sp ==
		   (uintptr_t)rule->frame_size_16 * TRACER_UNWIND_FRAME_UNIT;
}

/*
 * Whether the stack word at `address` (`old` before the damage) is the s0
 * that unwinding the undamaged walk's frame i read for its caller (i+1),
 * in a walk that checks frame i+1's CFA against its frame size (issue 17's
 * second witness), so that no other s0 can pass there: the word inside
 * frame i (from its sp up to its caller's), its value the caller's fp and
 * not its return address; frame i unwound by the frame pointer, or by a
 * table row (not DWARF's, whose CFA expressions may read any word); the
 * caller not after a trap, and its size witnessed (size_witnessed) unless
 * it is the last frame (nothing above it to skip).
 */
static bool saved_s0_witnessed(const struct parts *parts,
			       const struct tracer_config *config,
			       const struct walk_result *given, uintptr_t address,
			       uintptr_t old)
{
	for (size_t i = 0; i + 1 < given->count; i++) {
		const struct tracer_frame *frame = &given->frames[i];
		const struct tracer_frame *caller = &given->frames[i + 1];
		long row;

		if (address < frame->sp || address >= caller->sp)
			continue;
		if (caller->after_trap || old != caller->fp || old == caller->pc)
			return false;
		if (fuzz_unwinder != TRACER_FRAME_POINTER) {
			row = row_at(parts, frame_code(frame));
			if (row < 0 || rule_of_row(row)->kind >= TRACER_UNWIND_NO_CFI)
				return false;
		}
		return i + 2 == given->count ||
		       size_witnessed(parts, config, caller, &given->frames[i + 2]);
	}
	return false;
}

/*
 * Whether the library claims to find the damage: then a damaged walk that
 * rejects no table the undamaged one kept (and so says no note of it) must
 * not claim the outermost frame without every frame the undamaged walk
 * gave. The library hashes .eh_frame (its blocks, with the FDE index): a
 * walk either reads a damaged block, and rejects it, or reads what it read
 * before. It has no hash of the code (the prologue decoder, the call check
 * and the trap-entry check read it), nor of the stack: a changed return
 * address or saved register is what the stack says, and is believed where
 * the code and the CFI are consistent with it. Its one claim there is the
 * frame size: a saved s0 forged where the frame it becomes states one
 * (saved_s0_witnessed), with the frame-pointer unwinder (the size witnesses
 * the CFA it takes from s0) and the table and auto (the size gives the CFA:
 * the forged s0 is not read for it). Not DWARF: it checks the size only where the FDE the
 * index gives takes the CFA from register s0, and the input's FDEs and index need not
 * agree with the table's rows (a run claiming every damage found a forged s0 believed
 * through an FDE index the fuzzer had changed); nor one a CFA expression computes. Not
 * the prologue decoder: it reads no table sizes.
 */
static bool damage_claimed(const struct parts *parts, const struct tracer_config *config,
			   enum outside_damage kind, const struct walk_result *given,
			   bool table_intact, uintptr_t address, uintptr_t old)
{
	switch (kind) {
	case OUTSIDE_EH_FRAME:
		return true;
	case OUTSIDE_STACK:
		return (fuzz_unwinder == TRACER_FRAME_POINTER ||
			fuzz_unwinder == TRACER_TABLE || fuzz_unwinder == TRACER_AUTO) &&
		       table_intact && given->statuses[2] == TRACER_TABLE_OK &&
		       saved_s0_witnessed(parts, config, given, address, old);
	default:
		return false;
	}
}

/* Makes the damage in the loaded regions; false if it changes nothing.
 * *address and *old: where, and what was there. */
static bool apply_damage(const struct parts *parts, const struct tracer_config *config,
			 const struct damage_spec *damage, uintptr_t *address,
			 uintptr_t *old)
{
	static uint8_t bytes[MAX_BYTES];
	bool eh_frame = damage->kind == OUTSIDE_EH_FRAME;
	const uint8_t *from = eh_frame ? parts->eh_frame : parts->text;
	size_t size = eh_frame ? parts->eh_frame_size : parts->text_size;
	size_t at;

	if (damage->kind == OUTSIDE_STACK) {
		size_t words = 0;

		for (size_t i = 0; i < parts->stack_count; i++)
			words += parts->stack_words[i];
		if (words == 0)
			return false;
		at = damage->position % words;
		for (size_t i = 0; i < parts->stack_count; i++) {
			uintptr_t value = decode_word(config, damage->value);

			if (at >= parts->stack_words[i]) {
				at -= parts->stack_words[i];
				continue;
			}
			if (stack_words[i][at] == value)
				return false;
			*old = stack_words[i][at];
			*address = stack_regions[i].base + at * sizeof(uintptr_t);
			stack_words[i][at] = value;
			fuzz_region_load(&stack_regions[i], 0, stack_words[i],
					 parts->stack_words[i] * sizeof(uintptr_t));
			return true;
		}
		return false;
	}
	if (damage->kind == OUTSIDE_NONE || size == 0)
		return false;
	at = damage->position % size;
	if (from[at] == (uint8_t)damage->value)
		return false;
	memcpy(bytes, from, size);
	bytes[at] = (uint8_t)damage->value;
	*old = from[at];
	if (eh_frame) {
		*address = config->eh_frame.start + at;
		fuzz_region_load(&eh_frame_region,
				 config->eh_frame.start - eh_frame_region.base, bytes,
				 size);
	} else {
		*address = config->text.start + at;
		fuzz_region_load(&text_region, 0, bytes, size);
	}
	return true;
}

/* Whether the walk shows a frame at sp with pc. */
static bool shows_frame(const struct walk_result *walk, const struct tracer_frame *frame)
{
	for (size_t k = 0; k < walk->count; k++)
		if (walk->frames[k].sp == frame->sp && walk->frames[k].pc == frame->pc)
			return true;
	return false;
}

/*
 * The damage part: after an undamaged walk (`given`) that reached the
 * outermost frame, the damage, then the walk again (every invariant of
 * walk_and_check holds for it too). A frame the damaged walk skips is one
 * of the undamaged walk's frames (its sp and pc: the frame the stack and
 * the tables gave) that it does not show. For damage the library claims to
 * find (damage_claimed), a damaged walk that claims the outermost frame
 * with the tables judged as before must skip none.
 */
static void check_damaged_walk(const struct parts *parts,
			       const struct tracer_config *config,
			       const struct tracer_regs *regs, const struct lines *lines,
			       const struct damage_spec *damage,
			       const struct walk_result *given, bool table_intact)
{
	static struct walk_result damaged;
	uintptr_t address;
	uintptr_t old;
	bool claimed;

	/* A "task entry" the walk went past is no task's first function:
	 * a damaged return address 0 there ends the walk as documented. */
	for (size_t i = 0; i + 1 < given->count; i++)
		if (in_task_entry(config, &given->frames[i]))
			return;
	if (given->stop != TRACER_STOP_OUTERMOST ||
	    !apply_damage(parts, config, damage, &address, &old))
		return;
	claimed = damage_claimed(parts, config, damage->kind, given, table_intact,
				 address, old);
	walk_and_check(config, regs, lines, &damaged);
	if (damaged.stop != TRACER_STOP_OUTERMOST || !claimed ||
	    memcmp(damaged.statuses, given->statuses, sizeof(given->statuses)) != 0)
		return;
	for (size_t i = 0; i < given->count; i++)
		if (!shows_frame(&damaged, &given->frames[i]))
			fail("damage %d at %#lx (%#lx before): the walk claims the "
			     "outermost "
			     "frame without frame %zu (pc %#lx, sp %#lx)",
			     damage->kind, (unsigned long)address, (unsigned long)old, i,
			     (unsigned long)given->frames[i].pc,
			     (unsigned long)given->frames[i].sp);
}

static void load_regions(const struct parts *parts, const struct tracer_config *config)
{
	for (size_t i = 0; i < parts->stack_count; i++) {
		struct fuzz_input stack = parts->stack[i];

		for (size_t k = 0; k < parts->stack_words[i]; k++)
			stack_words[i][k] = decode_word(config, input_u32(&stack));
		fuzz_region_load(&stack_regions[i], 0, stack_words[i],
				 parts->stack_words[i] * sizeof(uintptr_t));
	}
	fuzz_region_load(&text_region, 0, parts->text, parts->text_size);
	fuzz_region_load(&eh_frame_region, config->eh_frame.start - eh_frame_region.base,
			 parts->eh_frame, parts->eh_frame_size);
	fuzz_region_load(&tables_region, 0, tables_bytes, tables.size);
}

/* Before the next input: its text may lie where this one's .eh_frame was. */
static void unload_regions(void)
{
	for (size_t i = 0; i < MAX_STACKS; i++)
		fuzz_region_unload(&stack_regions[i]);
	fuzz_region_unload(&text_region);
	fuzz_region_unload(&eh_frame_region);
	fuzz_region_unload(&tables_region);
}

/* A 32-bit build's names end in _32 (fuzz.mk builds fuzz_walk_auto_32), so
 * that a name says the build too. */
#if UINTPTR_MAX == 0xffffffffu
#define BUILD_SUFFIX "_32"

/* The i386 build runs under qemu-i386 (tests/fuzz_tests.py), whose user
 * mode refuses the clone() that LeakSanitizer's check at exit makes
 * (CLONE_UNTRACED: EINVAL); the check then waits forever. ASan reads
 * ASAN_OPTIONS from /proc/self/environ, which is QEMU's, so the default
 * is here. A quarantine of 16 MB, not 256: with the default, ASan's
 * allocator failed a CHECK of its own (asan_poisoning.cpp:36) under QEMU
 * once the process held about 350 MB, after 330,000 runs (twice); with
 * 16 MB, 594,000 runs held 114 MB. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0:quarantine_size_mb=16";
}
#else
#define BUILD_SUFFIX ""
#endif

/* fuzz_unwinder from the binary's name, fuzz_walk_<unwinder>[_32]; exits
 * with a message for another name. */
static void choose_unwinder(const char *path)
{
	static const struct {
		const char *name;
		enum tracer_unwinder unwinder;
	} binaries[] = {{"fuzz_walk_fp" BUILD_SUFFIX, TRACER_FRAME_POINTER},
			{"fuzz_walk_dwarf" BUILD_SUFFIX, TRACER_DWARF},
			{"fuzz_walk_prologue" BUILD_SUFFIX, TRACER_PROLOGUE},
			{"fuzz_walk_auto" BUILD_SUFFIX, TRACER_AUTO},
			{"fuzz_walk_table" BUILD_SUFFIX, TRACER_TABLE}};
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	for (size_t i = 0; i < sizeof(binaries) / sizeof(binaries[0]); i++) {
		if (strcmp(name, binaries[i].name) == 0) {
			fuzz_unwinder = binaries[i].unwinder;
			return;
		}
	}
	fprintf(stderr,
		"fuzz_walk: run as fuzz_walk_<fp, dwarf, prologue, auto or "
		"table>" BUILD_SUFFIX " (the unwinder), not as %s\n",
		name);
	exit(2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	choose_unwinder((*argv)[0]);
	for (size_t i = 0; i < MAX_STACKS; i++)
		fuzz_region_init(&stack_regions[i], STACK_AT + i * STACK_SPACING,
				 MAX_STACK_WORDS * sizeof(uintptr_t));
	fuzz_region_init(&tables_region, TABLES_AT, page_round_up(TABLES_CAPACITY));
	fuzz_region_init(&text_region, TEXT_AT, MAX_BYTES);
	/* The same window as text: .eh_frame lies at a distance from it. */
	fuzz_region_init(&eh_frame_region, TEXT_AT, MAX_EH_FRAME_DISTANCE + MAX_BYTES);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input input = {data, size, 0};
	struct parts parts;
	struct tracer_config config = {0};
	struct tracer_trap_layout trap;
	struct tracer_trap_csrs csrs;
	static struct tracer_range entry_points[MAX_ENTRY_POINTS];
	struct tracer_regs regs;
	struct table_expectation symtab_expected, fde_index_expected, unwind_expected;
	struct lines lines;
	struct damage_spec damage;
	static struct walk_result walk;

	split(&input, &parts);
	decode_damage(&parts.damage, &damage);
	sizes_measured = damage.flags & DAMAGE_SIZES_MEASURED;
	memset(measured_sizes, 0, sizeof(measured_sizes));
	lay_out_tables(&parts);
	declare_regions(&parts, &config);
	decode_regs(&parts.regs, &config, &regs);
	decode_trap(&parts.trap, &config, &trap);
	config.trap = parts.header.flags & FLAG_TRAP ? &trap : NULL;
	decode_kit(&parts.kit, &config, &trap, &csrs, entry_points);
	build_tables(&parts, &config, &symtab_expected, &fde_index_expected);
	build_unwind_table(&parts, &config, &unwind_expected);
	load_regions(&parts, &config);

	check_table("symbol table", tracer_symtab_check(&config), &symtab_expected);
	check_table("FDE index", tracer_fde_index_check(&config), &fde_index_expected);
	check_table("unwind table", tracer_unwind_table_check(&config), &unwind_expected);

	lines.small_size = 1 + parts.header.small_line % TRACER_LINE_MAX;
	lines.full = malloc(TRACER_LINE_MAX);
	lines.small = malloc(lines.small_size);
	if (!lines.full || !lines.small)
		abort();
	walk_and_check(&config, &regs, &lines, &walk);
	/* The sizes measured, the table built again and the walk made
	 * again: its frames are those the damage is checked against. */
	if (sizes_measured && config.unwind_table && !unwind_expected.damaged) {
		measure_sizes(&parts, &walk);
		build_unwind_table(&parts, &config, &unwind_expected);
		fuzz_region_load(&tables_region, 0, tables_bytes, tables.size);
		walk_and_check(&config, &regs, &lines, &walk);
	}
	check_damaged_walk(&parts, &config, &regs, &lines, &damage, &walk,
			   !unwind_expected.damaged);
	free(lines.full);
	free(lines.small);
	unload_regions();
	return 0;
}
