/*
 * fake_tables.c - see fake_tables.h.
 */
#include "fake_tables.h"

void fake_symtab_fill(struct tracer_symtab *symtab, const struct tracer_symbol *symbols,
		      uint32_t count, const char *names, uint32_t names_size)
{
	struct table_checksum sum;

	symtab->magic = TRACER_SYMTAB_MAGIC;
	symtab->version = TRACER_TABLE_VERSION;
	symtab->word_size = sizeof(uintptr_t);
	symtab->count = count;
	symtab->names_size = names_size;
	symtab->symbols = symbols;
	symtab->names = names;
	table_checksum_start(&sum);
	table_checksum_word(&sum, count);
	table_checksum_word(&sum, names_size);
	table_checksum_words(&sum, (const uint32_t *)(const void *)symbols,
			     count * sizeof(*symbols) / 4);
	table_checksum_words(&sum, (const uint32_t *)(const void *)names, names_size / 4);
	symtab->checksum = table_checksum_end(&sum);
}

void fake_fde_index_fill(struct tracer_fde_index *index,
			 const struct tracer_fde_entry *entries, uint32_t count)
{
	struct table_checksum sum;

	index->magic = TRACER_FDE_INDEX_MAGIC;
	index->version = TRACER_TABLE_VERSION;
	index->word_size = sizeof(uintptr_t);
	index->count = count;
	index->entries = entries;
	table_checksum_start(&sum);
	table_checksum_word(&sum, count);
	table_checksum_words(&sum, (const uint32_t *)(const void *)entries,
			     count * sizeof(*entries) / 4);
	index->checksum = table_checksum_end(&sum);
}

void fake_unwind_table_fill(struct tracer_unwind_table *table, uintptr_t base,
			    const uint16_t *rows, uint32_t count, const uint64_t *maps,
			    const uint16_t *lookup, uint32_t block_count,
			    const struct tracer_unwind_rule *rules, uint32_t rule_count)
{
	struct table_checksum sum;

	table->magic = TRACER_UNWIND_TABLE_MAGIC;
	table->version = TRACER_UNWIND_VERSION;
	table->word_size = sizeof(uintptr_t);
	table->count = count;
	table->block_count = block_count;
	table->rule_count = rule_count;
	table->base = base;
	table->rows = rows;
	table->maps = maps;
	table->lookup = lookup;
	table->rules = rules;
	/* The checksum as UNWIND_TABLE.md words it, written out here apart
	 * from tracer_unwind_checksum(). */
	table_checksum_start(&sum);
	table_checksum_word(&sum, count);
	table_checksum_word(&sum, block_count);
	table_checksum_word(&sum, rule_count);
	table_checksum_word(&sum, (uint32_t)base);
	table_checksum_word(&sum, (uint32_t)((uint64_t)base >> 32));
	if (count > 0) {
		for (uint32_t i = 0; i < count; i++)
			table_checksum_word(&sum, rows[i]);
		for (uint32_t i = 0; i < block_count; i++) {
			table_checksum_word(&sum, (uint32_t)maps[i]);
			table_checksum_word(&sum, (uint32_t)(maps[i] >> 32));
		}
		for (uint32_t i = 0; i < block_count; i++)
			table_checksum_word(&sum, lookup[i]);
		table_checksum_words(&sum, (const uint32_t *)(const void *)rules,
				     2 * rule_count);
	}
	table->checksum = table_checksum_end(&sum);
}

void fake_tables_anywhere(struct tracer_config *config)
{
	config->tables.start = 0;
	config->tables.end = UINTPTR_MAX;
}
