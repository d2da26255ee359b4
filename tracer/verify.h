/*
 * verify.h - checking the embedded tables against memory corruption: their
 * headers when a walk starts (tables.c), each block of them the first time a
 * walk reads it (verify.c), all of them for tracer_prepare().
 */
#ifndef TRACER_VERIFY_H
#define TRACER_VERIFY_H

#include "walk.h"

/* Whether this build reads a table symgen embeds: with neither the symbol
 * table nor the unwinders' tables (a frame pointer printing raw frames),
 * none of the checks below is built. */
#define TRACER_READS_TABLES                                                              \
	(TRACER_LINKS_SYMBOLS || TRACER_LINKS_TABLE || TRACER_LINKS_DWARF ||             \
	 TRACER_LINKS_LINES)

/* The rule in effect just below `end` bytes past the table's base (even,
 * in one of its blocks), what the lookup reads checked (verify.c); NULL,
 * the table rejected, if it does not hold. */
const struct tracer_unwind_rule *walk_unwind_rule(struct walk *walk, uintptr_t end);

/* Before a step of a walk that checks what it reads: what dwarf_step()
 * will read, false with walk->stop set if that does not hold (the index's
 * search and answer, the FDE and its CIE). */
bool walk_dwarf_check(struct walk *walk);

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
#if TRACER_LINKS_DWARF
	const struct tracer_fde_index *index = config->fde_index;
#endif
#if TRACER_LINKS_TABLE
	const struct tracer_unwind_table *table = config->unwind_table;
#endif
	struct hashed_array array = {kind, 0, 0, 0};

	/* Only the kinds of the tables this build reads: fewer cases. */
	switch (kind) {
	case TRACER_HASHED_SYMBOLS:
		array.data = (uintptr_t)symtab->symbols;
		array.size = symtab->count * (uint32_t)sizeof(struct tracer_symbol);
		array.hashes = (uintptr_t)symtab->hashes;
		break;
#if TRACER_LINKS_DWARF
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
#endif
#if TRACER_LINKS_TABLE
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
	case TRACER_HASHED_UNWIND_RULES:
		array.data = (uintptr_t)table->rules;
		array.size =
		    table->rule_count * (uint32_t)sizeof(struct tracer_unwind_rule);
		array.hashes =
		    (uintptr_t)table->hashes +
		    4 * (uintptr_t)(tracer_hash_blocks(table->count * 2) +
				    tracer_hash_blocks(table->block_count * 8) +
				    tracer_hash_blocks(table->block_count * 2));
		break;
#endif
	default: /* TRACER_HASHED_NAMES */
		array.data = (uintptr_t)symtab->names;
		array.size = symtab->names_size;
		array.hashes = (uintptr_t)symtab->hashes +
			       4 * (uintptr_t)tracer_hash_blocks(
				       symtab->count * sizeof(struct tracer_symbol));
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
/* The line table's header (its arrays inside config->tables), then its
 * arrays' hashes and names, for a table whose header check passed. */
enum tracer_table_status lines_header_check(const struct tracer_config *config);
enum tracer_table_status lines_arrays_check(const struct tracer_config *config);

#endif /* TRACER_VERIFY_H */
