/*
 * tables.c - validation of the tables symgen embeds: the symbol table, the
 * FDE index and the unwind table. A walk checks them once, in tracer_start(), and reads
 * only the ones that pass; the lookups then need no checks of their own.
 *
 * What is checked, in this order (each step makes the next one safe): the
 * descriptor lies inside config->tables; its magic, version and word size
 * are the library's; its arrays, sized by its counts, lie inside
 * config->tables too and are aligned; the checksum over the counts and the
 * arrays is the one symgen wrote; the entries are sorted, as the binary
 * searches need, and every name offset lies inside names[], which ends with
 * a NUL (so every name a lookup returns ends inside it). The last checks
 * hold for any table symgen wrote: they guard against crafted ones.
 */
#include "internal.h"

/* Whether [start, start + size) lies inside range, without overflow. */
static bool range_holds(struct tracer_range range, uintptr_t start, uintptr_t size)
{
	return start >= range.start && start <= range.end && size <= range.end - start;
}

/* Whether `count` elements of `size` bytes at `array` lie in config->tables,
 * aligned for their type. Counts are 32-bit, so count * size cannot
 * overflow a 64-bit word; on rv32 the check before the product says so. */
static bool array_inside(const struct tracer_config *config, const void *array,
			 uint32_t count, uintptr_t size, uintptr_t align)
{
	uintptr_t start = (uintptr_t)array;

	if (count == 0)
		return true;
	if (start % align != 0 || count > UINTPTR_MAX / size)
		return false;
	return range_holds(config->tables, start, count * size);
}

static bool header_valid(uint32_t magic, uint16_t version, uint16_t word_size,
			 uint32_t expected_magic, uint16_t expected_version)
{
	return magic == expected_magic && version == expected_version &&
	       word_size == sizeof(uintptr_t);
}

enum tracer_table_status tracer_symtab_check(const struct tracer_config *config)
{
	const struct tracer_symtab *symtab = config->symtab;
	struct table_checksum sum;

	if (!symtab)
		return TRACER_TABLE_ABSENT;
	if (!array_inside(config, symtab, 1, sizeof(*symtab),
			  _Alignof(struct tracer_symtab)))
		return TRACER_TABLE_OUTSIDE;
	if (!header_valid(symtab->magic, symtab->version, symtab->word_size,
			  TRACER_SYMTAB_MAGIC, TRACER_TABLE_VERSION) ||
	    symtab->names_size % 4 != 0 ||
	    (symtab->count == 0) != (symtab->names_size == 0))
		return TRACER_TABLE_MALFORMED;
	if (!array_inside(config, symtab->symbols, symtab->count,
			  sizeof(struct tracer_symbol), _Alignof(struct tracer_symbol)) ||
	    !array_inside(config, symtab->names, symtab->names_size / 4, 4, 4))
		return TRACER_TABLE_OUTSIDE;
	table_checksum_start(&sum);
	table_checksum_word(&sum, symtab->count);
	table_checksum_word(&sum, symtab->names_size);
	table_checksum_words(&sum, (const uint32_t *)(const void *)symtab->symbols,
			     symtab->count * (sizeof(struct tracer_symbol) / 4));
	table_checksum_words(&sum, (const uint32_t *)(const void *)symtab->names,
			     symtab->names_size / 4);
	if (table_checksum_end(&sum) != symtab->checksum)
		return TRACER_TABLE_BAD_CHECKSUM;
	if (symtab->count > 0 && symtab->names[symtab->names_size - 1] != '\0')
		return TRACER_TABLE_MALFORMED;
	for (uint32_t i = 0; i < symtab->count; i++) {
		if (symtab->symbols[i].name >= symtab->names_size ||
		    (i > 0 && symtab->symbols[i].addr <= symtab->symbols[i - 1].addr))
			return TRACER_TABLE_MALFORMED;
	}
	return TRACER_TABLE_OK;
}

enum tracer_table_status tracer_fde_index_check(const struct tracer_config *config)
{
	const struct tracer_fde_index *index = config->fde_index;
	struct table_checksum sum;

	if (!index)
		return TRACER_TABLE_ABSENT;
	if (!array_inside(config, index, 1, sizeof(*index),
			  _Alignof(struct tracer_fde_index)))
		return TRACER_TABLE_OUTSIDE;
	if (!header_valid(index->magic, index->version, index->word_size,
			  TRACER_FDE_INDEX_MAGIC, TRACER_TABLE_VERSION))
		return TRACER_TABLE_MALFORMED;
	if (!array_inside(config, index->entries, index->count,
			  sizeof(struct tracer_fde_entry),
			  _Alignof(struct tracer_fde_entry)))
		return TRACER_TABLE_OUTSIDE;
	table_checksum_start(&sum);
	table_checksum_word(&sum, index->count);
	table_checksum_words(&sum, (const uint32_t *)(const void *)index->entries,
			     index->count * (sizeof(struct tracer_fde_entry) / 4));
	if (table_checksum_end(&sum) != index->checksum)
		return TRACER_TABLE_BAD_CHECKSUM;
	for (uint32_t i = 1; i < index->count; i++) {
		if (index->entries[i].pc_start < index->entries[i - 1].pc_start)
			return TRACER_TABLE_MALFORMED;
	}
	return TRACER_TABLE_OK;
}

/*
 * Rules valid (table_format.h); the base even, as code is; each lookup
 * entry the last one (0 before the first block) plus the rows its block's
 * map marks, the last one the row count (so at most
 * TRACER_UNWIND_MAX_ROWS, what a 16-bit entry holds); each row a rule's offset in
 * rules[];
 * the first row at the base; the last row no-CFI, in the last block. A
 * lookup then finds the row in effect at any pc from the base on, and
 * every address past the last block is in the last row's no-CFI range.
 */
static bool unwind_table_consistent(const struct tracer_unwind_table *table)
{
	uint32_t count = table->count;
	uint32_t blocks = table->block_count;
	uint64_t rows_so_far = 0;

	if (count == 0)
		return blocks == 0 && table->rule_count == 0;
	if (blocks == 0 || table->rule_count > TRACER_UNWIND_MAX_RULES)
		return false;
	for (uint32_t i = 0; i < table->rule_count; i++) {
		if (!tracer_unwind_rule_valid(&table->rules[i], TARGET_WORD_SIZE))
			return false;
	}
	if (table->base % 2 != 0 || !(table->maps[0] & 1) || table->maps[blocks - 1] == 0)
		return false;
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

enum tracer_table_status tracer_unwind_table_check(const struct tracer_config *config)
{
	const struct tracer_unwind_table *table = config->unwind_table;

	if (!table)
		return TRACER_TABLE_ABSENT;
	if (!array_inside(config, table, 1, sizeof(*table),
			  _Alignof(struct tracer_unwind_table)))
		return TRACER_TABLE_OUTSIDE;
	if (!header_valid(table->magic, table->version, table->word_size,
			  TRACER_UNWIND_TABLE_MAGIC, TRACER_UNWIND_VERSION))
		return TRACER_TABLE_MALFORMED;
	/* An empty table has no arrays. */
	if (table->count > 0 &&
	    (!array_inside(config, table->rows, table->count, 2, 2) ||
	     !array_inside(config, table->maps, table->block_count, 8,
			   _Alignof(uint64_t)) ||
	     !array_inside(config, table->lookup, table->block_count, 2, 2) ||
	     !array_inside(config, table->rules, table->rule_count,
			   sizeof(struct tracer_unwind_rule),
			   _Alignof(struct tracer_unwind_rule))))
		return TRACER_TABLE_OUTSIDE;
	if (tracer_unwind_checksum(table->count, table->block_count, table->rule_count,
				   table->base, table->rows, table->maps, table->lookup,
				   table->rules) != table->checksum)
		return TRACER_TABLE_BAD_CHECKSUM;
	return unwind_table_consistent(table) ? TRACER_TABLE_OK : TRACER_TABLE_MALFORMED;
}
