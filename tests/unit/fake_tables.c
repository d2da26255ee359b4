/*
 * fake_tables.c - see fake_tables.h.
 */
#include "fake_tables.h"

#include "table_format.h"

/* Hashes live here unless a test gave storage (fake_hashes_at): a ring,
 * reused from the start when full; each test's tables are far smaller. */
static uint32_t hash_pool[1u << 16];
static size_t hash_pool_next;
static uint32_t *hash_storage;

void fake_hashes_at(uint32_t *storage)
{
	hash_storage = storage;
}

static uint32_t *hashes_for(uint64_t blocks)
{
	uint32_t *hashes = hash_storage;

	hash_storage = NULL;
	if (hashes)
		return hashes;
	if (hash_pool_next + blocks > sizeof(hash_pool) / sizeof(hash_pool[0]))
		hash_pool_next = 0;
	hashes = hash_pool + hash_pool_next;
	hash_pool_next += blocks;
	return hashes;
}

/* Hashes the blocks of one array (table_hash.h) into hashes[]; returns
 * the next free entry. */
static uint32_t *hash_array(uint32_t *hashes, enum tracer_hashed kind, const void *data,
			    uint64_t size)
{
	uint32_t blocks = tracer_hash_blocks(size);

	for (uint32_t block = 0; block < blocks; block++)
		hashes[block] = tracer_hash_bytes(kind, block, data, size);
	return hashes + blocks;
}

void fake_symtab_fill(struct tracer_symtab *symtab, const struct tracer_symbol *symbols,
		      uint32_t count, const char *names, uint32_t names_size)
{
	uint64_t symbols_size = (uint64_t)count * sizeof(*symbols);
	uint32_t words[2] = {count, names_size};
	uint32_t *hashes =
	    hashes_for(tracer_hash_blocks(symbols_size) + tracer_hash_blocks(names_size));

	symtab->magic = TRACER_SYMTAB_MAGIC;
	symtab->version = TRACER_TABLE_VERSION;
	symtab->word_size = sizeof(uintptr_t);
	symtab->count = count;
	symtab->names_size = names_size;
	symtab->symbols = symbols;
	symtab->names = names;
	symtab->checksum = tracer_header_hash(TRACER_HASHED_SYMTAB_HEADER, words, 2);
	symtab->hashes = hashes;
	hash_array(hash_array(hashes, TRACER_HASHED_SYMBOLS, symbols, symbols_size),
		   TRACER_HASHED_NAMES, names, names_size);
}

void fake_fde_index_fill(struct tracer_fde_index *index,
			 const struct tracer_fde_entry *entries, uint32_t count,
			 struct tracer_range eh_frame)
{
	uint64_t entries_size = (uint64_t)count * sizeof(*entries);
	uint32_t eh_frame_size = (uint32_t)(eh_frame.end - eh_frame.start);
	uint32_t words[4] = {count, (uint32_t)eh_frame.start,
			     (uint32_t)((uint64_t)eh_frame.start >> 32), eh_frame_size};
	uint32_t *hashes = hashes_for(tracer_hash_blocks(entries_size) +
				      tracer_hash_blocks(eh_frame_size));

	index->magic = TRACER_FDE_INDEX_MAGIC;
	index->version = TRACER_TABLE_VERSION;
	index->word_size = sizeof(uintptr_t);
	index->count = count;
	index->entries = entries;
	index->eh_frame = eh_frame.start;
	index->eh_frame_size = eh_frame_size;
	index->checksum = tracer_header_hash(TRACER_HASHED_FDE_INDEX_HEADER, words, 4);
	index->hashes = hashes;
	hash_array(hash_array(hashes, TRACER_HASHED_FDE_ENTRIES, entries, entries_size),
		   TRACER_HASHED_EH_FRAME, (const void *)eh_frame.start, eh_frame_size);
}

void fake_unwind_table_fill(struct tracer_unwind_table *table, uintptr_t base,
			    const uint16_t *rows, uint32_t count, const uint64_t *maps,
			    const uint16_t *lookup, uint32_t block_count,
			    const struct tracer_unwind_rule *rules, uint32_t rule_count)
{
	uint32_t words[5] = {count, block_count, rule_count, (uint32_t)base,
			     (uint32_t)((uint64_t)base >> 32)};
	/* An empty table has no arrays (docs/unwind-table-format.md). */
	uint64_t rows_size = count > 0 ? (uint64_t)count * 2 : 0;
	uint64_t maps_size = count > 0 ? (uint64_t)block_count * 8 : 0;
	uint64_t lookup_size = count > 0 ? (uint64_t)block_count * 2 : 0;
	uint64_t rules_size = count > 0 ? (uint64_t)rule_count * sizeof(*rules) : 0;
	uint32_t *hashes =
	    hashes_for(tracer_hash_blocks(rows_size) + tracer_hash_blocks(maps_size) +
		       tracer_hash_blocks(lookup_size) + tracer_hash_blocks(rules_size));

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
	table->checksum = tracer_header_hash(TRACER_HASHED_UNWIND_HEADER, words, 5);
	table->hashes = hashes;
	hash_array(hash_array(hash_array(hash_array(hashes, TRACER_HASHED_UNWIND_ROWS,
						    rows, rows_size),
					 TRACER_HASHED_UNWIND_MAPS, maps, maps_size),
			      TRACER_HASHED_UNWIND_LOOKUP, lookup, lookup_size),
		   TRACER_HASHED_UNWIND_RULES, rules, rules_size);
}

void fake_tables_anywhere(struct tracer_config *config)
{
	config->tables.start = 0;
	config->tables.end = UINTPTR_MAX;
}
