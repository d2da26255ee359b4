/*
 * tables.c - validation of the tables symgen embeds: the symbol table, the
 * FDE index (with the .eh_frame it indexes), the unwind table and the line
 * table.
 *
 * A walk checks their headers in tracer_start(), in a few instructions
 * whatever their size: the descriptor lies inside config->tables; its
 * magic, version and word size are the library's; its checksum (a hash of
 * its counts and sizes) holds; its arrays, sized by its counts, and their
 * hashes lie inside config->tables too, 4-byte aligned; names[] ends with
 * a NUL (so every name a lookup returns ends inside it). Each block of an
 * array is then checked as the walk reads it, and each entry it reads
 * (verify.c). tracer_prepare() and the tracer_*_check() functions check
 * everything at once: every block, and every entry as the walk would
 * (linked with TRACER_LINKS_CAPTURE only).
 */
#include "lines.h"
#include "table_lookup.h"
#include "verify.h"

#if TRACER_READS_TABLES
/* Whether [start, start + size) lies inside range, without overflow. */
static bool range_holds(struct tracer_range range, uintptr_t start, uintptr_t size)
{
	return start >= range.start && start <= range.end && size <= range.end - start;
}

/* Whether `count` elements of `size` bytes at `array` lie in config->tables,
 * word-aligned (for the hash's words: verify.c) and aligned for their
 * type, in fewer than 2^32 bytes (a block's id). */
static bool array_inside(const struct tracer_config *config, const void *array,
			 uint32_t count, uintptr_t size, uintptr_t align)
{
	uintptr_t start = (uintptr_t)array;

	if (count == 0)
		return true;
	if (start % align != 0 || start % sizeof(uintptr_t) != 0 ||
	    count > UINT32_MAX / size)
		return false;
	return range_holds(config->tables, start, count * size);
}

/* Whether the hashes of `blocks` blocks lie in config->tables. */
static bool hashes_inside(const struct tracer_config *config, const uint32_t *hashes,
			  uint64_t blocks)
{
	return blocks == 0 ||
	       ((uintptr_t)hashes % 4 == 0 && blocks <= UINT32_MAX / 4 &&
		range_holds(config->tables, (uintptr_t)hashes, blocks * 4));
}

static bool header_valid(uint32_t magic, uint16_t version, uint16_t word_size,
			 uint32_t expected_magic, uint16_t expected_version)
{
	return magic == expected_magic && version == expected_version &&
	       word_size == sizeof(uintptr_t);
}

#endif

#if TRACER_LINKS_SYMBOLS
enum tracer_table_status symtab_header_check(const struct tracer_config *config)
{
	const struct tracer_symtab *symtab = config->symtab;
	uint32_t words[2];

	if (!symtab)
		return TRACER_TABLE_ABSENT;
	if (!array_inside(config, symtab, 1, sizeof(*symtab),
			  _Alignof(struct tracer_symtab)))
		return TRACER_TABLE_OUTSIDE;
	words[0] = symtab->count;
	words[1] = symtab->names_size;
	if (!header_valid(symtab->magic, symtab->version, symtab->word_size,
			  TRACER_SYMTAB_MAGIC, TRACER_TABLE_VERSION))
		return TRACER_TABLE_MALFORMED;
	if (symtab->names_size % 4 != 0 ||
	    (symtab->count == 0) != (symtab->names_size == 0))
		return TRACER_TABLE_MALFORMED;
	if (!array_inside(config, symtab->symbols, symtab->count,
			  sizeof(struct tracer_symbol), _Alignof(struct tracer_symbol)) ||
	    !array_inside(config, symtab->names, symtab->names_size / 4, 4, 4) ||
	    !hashes_inside(config, symtab->hashes,
			   (uint64_t)tracer_hash_blocks((uint64_t)symtab->count *
							sizeof(struct tracer_symbol)) +
			       tracer_hash_blocks(symtab->names_size)))
		return TRACER_TABLE_OUTSIDE;
	if (tracer_header_hash(TRACER_HASHED_SYMTAB_HEADER, words, 2) != symtab->checksum)
		return TRACER_TABLE_BAD_CHECKSUM;
	if (symtab->count > 0 && symtab->names[symtab->names_size - 1] != '\0')
		return TRACER_TABLE_MALFORMED;
	return TRACER_TABLE_OK;
}

#endif

#if TRACER_LINKS_CAPTURE && TRACER_READS_TABLES
/* Whether every block of the arrays of these kinds holds. */
TRACER_COLD static bool arrays_intact(const struct tracer_config *config,
				      enum tracer_hashed first, enum tracer_hashed last)
{
	for (unsigned kind = first; kind <= last; kind++) {
		struct hashed_array array = table_array(config, (enum tracer_hashed)kind);

		if (!hashed_array_intact(&array))
			return false;
	}
	return true;
}

#endif

#if TRACER_LINKS_CAPTURE && TRACER_LINKS_SYMBOLS
TRACER_COLD enum tracer_table_status
tracer_symtab_check(const struct tracer_config *config)
{
	const struct tracer_symtab *symtab = config->symtab;
	enum tracer_table_status status = symtab_header_check(config);

	if (status != TRACER_TABLE_OK)
		return status;
	if (!arrays_intact(config, TRACER_HASHED_SYMBOLS, TRACER_HASHED_NAMES))
		return TRACER_TABLE_BAD_CHECKSUM;
	/* Names inside names[]; entries sorted, each ending at or before the
	 * next one's start (walk_symbol_check relies on it). */
	for (uint32_t i = 0; i < symtab->count; i++) {
		const struct tracer_symbol *symbol = &symtab->symbols[i];

		if (symbol->name >= symtab->names_size ||
		    (i > 0 && (symbol->addr <= symbol[-1].addr ||
			       symbol->addr - symbol[-1].addr < symbol[-1].size)))
			return TRACER_TABLE_MALFORMED;
	}
	return TRACER_TABLE_OK;
}
#endif

/* The DWARF unwinder's tables. */
#if TRACER_LINKS_DWARF
enum tracer_table_status fde_index_header_check(const struct tracer_config *config)
{
	const struct tracer_fde_index *index = config->fde_index;
	uint32_t words[4];

	if (!index)
		return TRACER_TABLE_ABSENT;
	if (!array_inside(config, index, 1, sizeof(*index),
			  _Alignof(struct tracer_fde_index)))
		return TRACER_TABLE_OUTSIDE;
	if (!header_valid(index->magic, index->version, index->word_size,
			  TRACER_FDE_INDEX_MAGIC, TRACER_TABLE_VERSION))
		return TRACER_TABLE_MALFORMED;
	words[0] = index->count;
	words[1] = (uint32_t)index->eh_frame;
	words[2] = (uint32_t)((uint64_t)index->eh_frame >> 32);
	words[3] = index->eh_frame_size;
	if (!array_inside(config, index->entries, index->count,
			  sizeof(struct tracer_fde_entry),
			  _Alignof(struct tracer_fde_entry)) ||
	    !hashes_inside(config, index->hashes,
			   (uint64_t)tracer_hash_blocks((uint64_t)index->count *
							sizeof(struct tracer_fde_entry)) +
			       tracer_hash_blocks(index->eh_frame_size)))
		return TRACER_TABLE_OUTSIDE;
	return tracer_header_hash(TRACER_HASHED_FDE_INDEX_HEADER, words, 4) ==
		       index->checksum
		   ? TRACER_TABLE_OK
		   : TRACER_TABLE_BAD_CHECKSUM;
}

/* .eh_frame's header checks, the index's having passed: the bytes it
 * hashed are the ones config->eh_frame declares, word-aligned. An empty
 * index (symgen without --cfi) reads no .eh_frame: absent. */
enum tracer_table_status eh_frame_header_check(const struct tracer_config *config)
{
	const struct tracer_fde_index *index = config->fde_index;

	if (index->count == 0)
		return TRACER_TABLE_ABSENT;
	if (index->eh_frame != config->eh_frame.start ||
	    config->eh_frame.end - config->eh_frame.start != index->eh_frame_size ||
	    index->eh_frame % sizeof(uintptr_t) != 0)
		return TRACER_TABLE_MALFORMED;
	return TRACER_TABLE_OK;
}

#if TRACER_LINKS_CAPTURE
TRACER_COLD enum tracer_table_status
tracer_fde_index_check(const struct tracer_config *config)
{
	const struct tracer_fde_index *index = config->fde_index;
	enum tracer_table_status status = fde_index_header_check(config);

	if (status != TRACER_TABLE_OK)
		return status;
	if (!arrays_intact(config, TRACER_HASHED_FDE_ENTRIES, TRACER_HASHED_FDE_ENTRIES))
		return TRACER_TABLE_BAD_CHECKSUM;
	for (uint32_t i = 1; i < index->count; i++) {
		if (index->entries[i].pc_start < index->entries[i - 1].pc_start)
			return TRACER_TABLE_MALFORMED;
	}
	return TRACER_TABLE_OK;
}

TRACER_COLD enum tracer_table_status
tracer_eh_frame_check(const struct tracer_config *config)
{
	enum tracer_table_status status;

	if (fde_index_header_check(config) != TRACER_TABLE_OK)
		return TRACER_TABLE_ABSENT;
	status = eh_frame_header_check(config);
	if (status != TRACER_TABLE_OK)
		return status;
	return arrays_intact(config, TRACER_HASHED_EH_FRAME, TRACER_HASHED_EH_FRAME)
		   ? TRACER_TABLE_OK
		   : TRACER_TABLE_BAD_CHECKSUM;
}
#endif

#endif

/* The unwind table: the table unwinder's, and the frame-size witness. */
#if TRACER_LINKS_TABLE
enum tracer_table_status unwind_table_header_check(const struct tracer_config *config)
{
	const struct tracer_unwind_table *table = config->unwind_table;
	uint32_t words[5];

	if (!table)
		return TRACER_TABLE_ABSENT;
	if (!array_inside(config, table, 1, sizeof(*table),
			  _Alignof(struct tracer_unwind_table)))
		return TRACER_TABLE_OUTSIDE;
	if (!header_valid(table->magic, table->version, table->word_size,
			  TRACER_UNWIND_TABLE_MAGIC, TRACER_UNWIND_VERSION))
		return TRACER_TABLE_MALFORMED;
	words[0] = table->count;
	words[1] = table->block_count;
	words[2] = table->rule_count;
	words[3] = (uint32_t)table->base;
	words[4] = (uint32_t)((uint64_t)table->base >> 32);
	/* An empty table has no arrays. */
	if (table->count > 0 &&
	    (!array_inside(config, table->rows, table->count, 2, 2) ||
	     !array_inside(config, table->maps, table->block_count, 8,
			   _Alignof(uint64_t)) ||
	     !array_inside(config, table->lookup, table->block_count, 2, 2) ||
	     !array_inside(config, table->rules, table->rule_count,
			   sizeof(struct tracer_unwind_rule),
			   _Alignof(struct tracer_unwind_rule)) ||
	     !hashes_inside(config, table->hashes,
			    (uint64_t)tracer_hash_blocks((uint64_t)table->count * 2) +
				tracer_hash_blocks((uint64_t)table->block_count * 8) +
				tracer_hash_blocks((uint64_t)table->block_count * 2) +
				tracer_hash_blocks((uint64_t)table->rule_count * 8))))
		return TRACER_TABLE_OUTSIDE;
	if (tracer_header_hash(TRACER_HASHED_UNWIND_HEADER, words, 5) != table->checksum)
		return TRACER_TABLE_BAD_CHECKSUM;
	if (table->count == 0)
		return table->block_count == 0 && table->rule_count == 0
			   ? TRACER_TABLE_OK
			   : TRACER_TABLE_MALFORMED;
	if (table->block_count == 0 || table->rule_count > TRACER_UNWIND_MAX_RULES ||
	    table->count > TRACER_UNWIND_MAX_ROWS || table->base % 2 != 0)
		return TRACER_TABLE_MALFORMED;
	return TRACER_TABLE_OK;
}

#if TRACER_LINKS_CAPTURE
/*
 * Rules valid (table_format.h); each lookup
 * entry the last one (0 before the first block) plus the rows its block's
 * map marks, the last one the row count (so at most
 * TRACER_UNWIND_MAX_ROWS, what a 16-bit entry holds); each row a rule's offset in
 * rules[]. With the header's checks (the base even, the first row at the
 * base, the last block's map not empty) and the last row no-CFI, a lookup
 * then finds the row in effect at any pc from the base on, and every
 * address past the last block is in the last row's no-CFI range.
 */
TRACER_COLD static bool unwind_table_consistent(const struct tracer_unwind_table *table)
{
	uint32_t count = table->count;
	uint32_t blocks = table->block_count;
	uint64_t rows_so_far = 0;

	if (count == 0)
		return true;
	for (uint32_t i = 0; i < table->rule_count; i++) {
		if (!tracer_unwind_rule_valid(&table->rules[i], TARGET_WORD_SIZE))
			return false;
	}
	for (uint32_t block = 0; block < blocks; block++) {
		rows_so_far += tracer_unwind_popcount(table->maps[block]);
		if (table->lookup[block] != rows_so_far)
			return false;
	}
	if (rows_so_far != count)
		return false;
	for (uint32_t i = 0; i < count; i++) {
		if (table->rows[i] % sizeof(struct tracer_unwind_rule) != 0 ||
		    table->rows[i] / sizeof(struct tracer_unwind_rule) >=
			table->rule_count)
			return false;
	}
	return unwind_table_rule_of(table->rules, table->rows[count - 1])->kind ==
	       TRACER_UNWIND_NO_CFI;
}

TRACER_COLD enum tracer_table_status
tracer_unwind_table_check(const struct tracer_config *config)
{
	const struct tracer_unwind_table *table = config->unwind_table;
	enum tracer_table_status status = unwind_table_header_check(config);

	if (status != TRACER_TABLE_OK || table->count == 0)
		return status;
	if (!arrays_intact(config, TRACER_HASHED_UNWIND_ROWS, TRACER_HASHED_UNWIND_RULES))
		return TRACER_TABLE_BAD_CHECKSUM;
	if (!(table->maps[0] & 1) || table->maps[table->block_count - 1] == 0)
		return TRACER_TABLE_MALFORMED;
	return unwind_table_consistent(table) ? TRACER_TABLE_OK : TRACER_TABLE_MALFORMED;
}
#endif
#endif

#if TRACER_LINKS_LINES
/*
 * The line table (line_format.h). Its header is checked when a walk starts,
 * as the others'; its arrays whole, before the walk's first lookup
 * (walk.c): a lookup reads a block of the stream, the page map around pc
 * and a record per inlined call, and a printed trace (the only user of
 * lines) pays the check once (its cost: docs/speed.md).
 */
#define LINES_ARRAYS 6u

/* Array `index` of a table whose header check passed, in the order of its
 * hashes (line_format.h); *hashes, the first of its blocks' hashes, moves
 * past them. One at a time: the walk's stack holds one. */
static __attribute__((noinline)) struct hashed_array
lines_array(const struct tracer_lines *table, unsigned index, uintptr_t *hashes)
{
	struct hashed_array array = {TRACER_HASHED_LINES_GROUPS + index, 0, 0, *hashes};

	switch (index) {
	case 0:
		array.data = (uintptr_t)table->group_block;
		array.size = ((table->page_count >> table->group_shift) + 1) * 2;
		break;
	case 1:
		array.data = (uintptr_t)table->page_block;
		array.size = table->page_count + 1;
		break;
	case 2:
		array.data = (uintptr_t)table->stream;
		array.size = table->stream_size;
		break;
	case 3:
		array.data = (uintptr_t)table->records;
		array.size = table->call_count * table->record_bytes;
		break;
	case 4:
		array.data = (uintptr_t)table->string_offsets;
		array.size = (table->file_count - 1 + table->name_count) * 4;
		break;
	default:
		array.data = (uintptr_t)table->strings;
		array.size = table->strings_size;
		break;
	}
	*hashes += 4 * (uintptr_t)tracer_hash_blocks(array.size);
	return array;
}

enum tracer_table_status lines_header_check(const struct tracer_config *config)
{
	const struct tracer_lines *table = config->lines;
	uintptr_t hashes;

	if (!table)
		return TRACER_TABLE_ABSENT;
	if (!array_inside(config, table, 1, sizeof(*table),
			  _Alignof(struct tracer_lines)))
		return TRACER_TABLE_OUTSIDE;
	if (!header_valid(table->magic, table->version, table->word_size,
			  TRACER_LINES_MAGIC, TRACER_LINES_VERSION))
		return TRACER_TABLE_MALFORMED;
	if (tracer_lines_checksum(table) != table->checksum)
		return TRACER_TABLE_BAD_CHECKSUM;
	if (table->row_count == 0)
		return TRACER_TABLE_ABSENT; /* built without -g: not an error */
	/* What the lookup assumes (its bounds), and sizes that fit 32 bits:
	 * the page map's and the strings' counts are at most 2^16 each. */
	if (!tracer_lines_valid(table) || table->file_count == 0 ||
	    table->page_count >= UINT32_MAX / 2 || table->record_bytes > 8 ||
	    table->call_count > 0xffffu || table->name_count > 0xffffu ||
	    table->strings_size % 4 != 0 || table->strings_size == 0)
		return TRACER_TABLE_MALFORMED;
	hashes = 0;
	for (unsigned i = 0; i < LINES_ARRAYS; i++) {
		struct hashed_array array = lines_array(table, i, &hashes);

		if (!array_inside(config, (const void *)array.data, array.size, 1, 1))
			return TRACER_TABLE_OUTSIDE;
	}
	/* hashes is now the bytes of them all. */
	return hashes_inside(config, table->hashes, hashes / 4) ? TRACER_TABLE_OK
								: TRACER_TABLE_OUTSIDE;
}

enum tracer_table_status lines_arrays_check(const struct tracer_config *config)
{
	const struct tracer_lines *table = config->lines;
	const uint32_t strings = table->file_count - 1 + table->name_count;
	uintptr_t hashes = (uintptr_t)table->hashes;

	for (unsigned i = 0; i < LINES_ARRAYS; i++) {
		struct hashed_array array = lines_array(table, i, &hashes);

		if (!hashed_array_intact(&array))
			return TRACER_TABLE_BAD_CHECKSUM;
	}
	/* Every name a lookup returns ends inside strings[]. */
	if (table->strings[table->strings_size - 1] != '\0')
		return TRACER_TABLE_MALFORMED;
	for (uint32_t i = 0; i < strings; i++)
		if (table->string_offsets[i] >= table->strings_size)
			return TRACER_TABLE_MALFORMED;
	return TRACER_TABLE_OK;
}

#if TRACER_LINKS_CAPTURE
TRACER_COLD enum tracer_table_status
tracer_lines_check(const struct tracer_config *config)
{
	enum tracer_table_status status = lines_header_check(config);

	return status == TRACER_TABLE_OK ? lines_arrays_check(config) : status;
}
#endif

#endif
