/*
 * verify.c - checking the embedded tables and .eh_frame as a walk reads
 * them: each block the first time (table_hash.h), and each entry's
 * structure where it is read, so that a walk's cost does not grow with the
 * tables and a crafted table whose hashes hold is still read safely.
 *
 * A walk remembers the blocks it has checked in a small direct-mapped
 * cache (struct tracer_walk): a block evicted by another is checked again,
 * which costs time, never trust. A block that fails ends its table's use
 * for the rest of the walk (status TRACER_TABLE_BAD_CHECKSUM; an entry
 * that breaks the format, TRACER_TABLE_MALFORMED), and tracer_format_note
 * says so before the next frame line.
 *
 * A sorted table's search (the symbol table, the FDE index) is proved by
 * its answer alone: symgen wrote the keys sorted, so if the blocks of the
 * entry found and of the one after it hold, and their keys bracket the
 * address, the entry is the one a search of the intact table finds,
 * whatever the probes on the way read. Keys that do not bracket it mean a
 * probe read a damaged block (or the table is not sorted): the whole table
 * is checked then, once, to say which.
 */
#include "internal.h"

/* Whether block `block` (< its count) of `array` hashes as symgen wrote.
 * The array is 4-byte aligned (the header checks say so), and so is every
 * block: whole words are single loads. */
static bool block_intact(const struct hashed_array *array, uint32_t block)
{
	uint32_t start = block << TRACER_HASH_BLOCK_SHIFT;
	uint32_t bytes = array->size - start < TRACER_HASH_BLOCK ? array->size - start
								 : TRACER_HASH_BLOCK;
	uintptr_t pos = array->data + start;
	uintptr_t words_end = pos + (bytes & ~3u);
	uint32_t hash = tracer_hash_start(array->kind, block);

	for (; pos < words_end; pos += 4)
		hash = tracer_hash_word(hash, target_u32(pos));
	if (bytes % 4 != 0) {
		uint32_t word = 0;

		for (unsigned i = 0; i < bytes % 4; i++)
			word |= (uint32_t)target_u8(pos + i) << (8 * i);
		hash = tracer_hash_word(hash, word);
	}
	return hash == target_u32((uintptr_t)(array->hashes + block));
}

bool hashed_array_intact(const struct hashed_array *array)
{
	uint32_t blocks = tracer_hash_blocks(array->size);

	for (uint32_t block = 0; block < blocks; block++) {
		if (!block_intact(array, block))
			return false;
	}
	return true;
}

/* A block's id in the walk's cache: its array's kind above its index (an
 * array holds less than 2^32 bytes: below 2^26 blocks). */
static inline uint32_t block_id(uint32_t kind, uint32_t block)
{
	return kind << 26 | block;
}

/* The first of the two slots (a set) where the cache may hold a block. */
static inline unsigned cache_set(uint32_t id)
{
	return (id * TRACER_HASH_MULTIPLIER) >> (32 - TRACER_VERIFIED_SHIFT) & ~1u;
}

static inline bool cache_holds(const struct tracer_walk *walk, unsigned slot, uint32_t id)
{
	return (walk->verified_valid >> slot & 1) && walk->verified[slot] == id;
}

/* Whether the bytes [offset, offset + length) of `array` (inside it,
 * length > 0) lie in blocks that hold: each checked unless the walk has.
 * Two ways a set: a new block takes the first, the one there moves to the
 * second, so that two blocks a frame reads never evict each other. */
static bool walk_verify(struct tracer_walk *walk, const struct hashed_array *array,
			uint32_t offset, uint32_t length)
{
	uint32_t last = (offset + (length - 1)) >> TRACER_HASH_BLOCK_SHIFT;

	for (uint32_t block = offset >> TRACER_HASH_BLOCK_SHIFT; block <= last; block++) {
		uint32_t id = block_id(array->kind, block);
		unsigned set = cache_set(id);
		uint32_t first_valid;

		if (cache_holds(walk, set, id) || cache_holds(walk, set + 1, id))
			continue;
		if (!block_intact(array, block))
			return false;
		first_valid = walk->verified_valid >> set & 1;
		walk->verified[set + 1] = walk->verified[set];
		walk->verified[set] = id;
		walk->verified_valid = (walk->verified_valid & ~((uint32_t)3 << set)) |
				       first_valid << (set + 1) | (uint32_t)1 << set;
	}
	return true;
}

/* Ends the use of the symbol table for the rest of the walk. */
static bool reject_symtab(struct tracer_walk *walk, enum tracer_table_status status)
{
	walk->symtab_status = status;
	walk->symtab_searchable = false;
	return false;
}

static bool reject_fde_index(struct tracer_walk *walk, enum tracer_table_status status)
{
	walk->fde_index_status = status;
	walk->fde_searchable = false;
	return false;
}

static bool reject_eh_frame(struct tracer_walk *walk, enum tracer_table_status status)
{
	walk->eh_frame_status = status;
	return false;
}

static bool reject_unwind_table(struct tracer_walk *walk, enum tracer_table_status status)
{
	walk->unwind_table_status = status;
	walk->next_table_common = false;
	return false;
}

/*
 * Whether `entry`, the i-th of `count` sorted entries of `size` bytes (a
 * search's answer for key), and the one after it lie in blocks that hold
 * and bracket key: the answer of the intact table. TRACER_TABLE_OK if so;
 * else BAD_CHECKSUM if a block of the array fails, MALFORMED if none does
 * (keys not sorted).
 */
static enum tracer_table_status sorted_answer_status(struct tracer_walk *walk,
						     const struct hashed_array *array,
						     uint32_t i, uint32_t count,
						     uint32_t size, uintptr_t key)
{
	const char *entry = (const char *)array->data + (uintptr_t)i * size;
	bool has_next = i + 1 < count;

	if (!walk_verify(walk, array, i * size, has_next ? 2 * size : size))
		return TRACER_TABLE_BAD_CHECKSUM;
	/* The first entry stands for "none" when its key is above key. */
	if ((i == 0 || *(const uintptr_t *)entry <= key) &&
	    (!has_next || *(const uintptr_t *)(entry + size) > key))
		return TRACER_TABLE_OK;
	return hashed_array_intact(array) ? TRACER_TABLE_MALFORMED
					  : TRACER_TABLE_BAD_CHECKSUM;
}

/* Whether names[offset...] up to its NUL lies in blocks that hold. The
 * header checks made the last byte of names[] NUL: the scan ends inside. */
static bool name_intact(struct tracer_walk *walk, const struct hashed_array *names,
			uint32_t offset)
{
	uint32_t end = offset;

	while (target_u8(names->data + end) != '\0')
		end++;
	return walk_verify(walk, names, offset, end - offset + 1);
}

bool walk_symbol_check(struct tracer_walk *walk, const struct tracer_symbol *symbol,
		       uintptr_t addr)
{
	const struct tracer_config *config = walk->config;
	const struct tracer_symtab *symtab = config->symtab;
	struct hashed_array symbols = table_array(config, TRACER_HASHED_SYMBOLS);
	struct hashed_array names;
	enum tracer_table_status status =
	    sorted_answer_status(walk, &symbols, (uint32_t)(symbol - symtab->symbols),
				 symtab->count, sizeof(*symbol), addr);

	if (status != TRACER_TABLE_OK)
		return reject_symtab(walk, status);
	if (!symbol_holding(symbol, addr))
		return true;
	if (symbol->name >= symtab->names_size)
		return reject_symtab(walk, TRACER_TABLE_MALFORMED);
	names = table_array(config, TRACER_HASHED_NAMES);
	return name_intact(walk, &names, symbol->name) ||
	       reject_symtab(walk, TRACER_TABLE_BAD_CHECKSUM);
}

bool walk_fde_entry_check(struct tracer_walk *walk, const struct tracer_fde_entry *entry,
			  uintptr_t pc)
{
	const struct tracer_config *config = walk->config;
	const struct tracer_fde_index *index = config->fde_index;
	struct hashed_array entries = table_array(config, TRACER_HASHED_FDE_ENTRIES);
	enum tracer_table_status status =
	    sorted_answer_status(walk, &entries, (uint32_t)(entry - index->entries),
				 index->count, sizeof(*entry), pc);

	return status == TRACER_TABLE_OK || reject_fde_index(walk, status);
}

/* Whether the .eh_frame entry at addr lies, from its length field to its
 * end, in blocks that hold. The hashed bytes are config->eh_frame (the
 * header checks say so): what lies outside them, or past them, the parser
 * rejects itself; the bytes it reads first are checked. */
static bool eh_frame_entry_intact(struct tracer_walk *walk,
				  const struct hashed_array *eh_frame, uintptr_t addr)
{
	uint32_t offset = (uint32_t)(addr - eh_frame->data);
	uint32_t room;
	uint32_t length;

	if (addr < eh_frame->data || addr - eh_frame->data >= eh_frame->size)
		return true;
	room = eh_frame->size - offset;
	if (room < 4)
		return walk_verify(walk, eh_frame, offset, room);
	if (!walk_verify(walk, eh_frame, offset, 4))
		return false;
	length = memory_u32_unaligned(addr);
	if (length > room - 4)
		length = room - 4;
	return length == 0 || walk_verify(walk, eh_frame, offset + 4, length);
}

bool walk_eh_frame_check(struct tracer_walk *walk, uintptr_t fde)
{
	struct hashed_array eh_frame = table_array(walk->config, TRACER_HASHED_EH_FRAME);
	uintptr_t cie_pointer;

	if (!eh_frame_entry_intact(walk, &eh_frame, fde))
		return reject_eh_frame(walk, TRACER_TABLE_BAD_CHECKSUM);
	/* The FDE's CIE, where its (intact) CIE pointer says: counted back
	 * from the pointer's own field. Another pointer: the parser says
	 * what is wrong. */
	if (fde < eh_frame.data || fde - eh_frame.data >= eh_frame.size ||
	    eh_frame.size - (fde - eh_frame.data) < 8)
		return true;
	cie_pointer = memory_u32_unaligned(fde + 4);
	if (cie_pointer == 0 || cie_pointer > fde + 4 - eh_frame.data)
		return true;
	return eh_frame_entry_intact(walk, &eh_frame, fde + 4 - cie_pointer) ||
	       reject_eh_frame(walk, TRACER_TABLE_BAD_CHECKSUM);
}

/*
 * The rule in effect just below `end` bytes past the table's base (even, in
 * one of its blocks), read from blocks that hold, the entries on the way
 * checked as tracer_unwind_table_check checks the whole table: the row
 * inside rows[], a rule's offset in rules[], the rule valid. NULL, the
 * table rejected, if not.
 */
const struct tracer_unwind_rule *walk_unwind_rule(struct tracer_walk *walk, uintptr_t end)
{
	const struct tracer_config *config = walk->config;
	const struct tracer_unwind_table *table = config->unwind_table;
	uint32_t block = (uint32_t)(end >> TRACER_UNWIND_BLOCK_SHIFT);
	struct hashed_array maps = table_array(config, TRACER_HASHED_UNWIND_MAPS);
	struct hashed_array lookup = table_array(config, TRACER_HASHED_UNWIND_LOOKUP);
	struct hashed_array rows = table_array(config, TRACER_HASHED_UNWIND_ROWS);
	struct hashed_array rules = table_array(config, TRACER_HASHED_UNWIND_RULES);
	uintptr_t below;
	uint16_t row;
	const struct tracer_unwind_rule *rule;

	if (!walk_verify(walk, &maps, block * 8, 8) ||
	    !walk_verify(walk, &lookup, block * 2, 2)) {
		reject_unwind_table(walk, TRACER_TABLE_BAD_CHECKSUM);
		return NULL;
	}
	below = unwind_table_rows_below(table->maps, table->lookup, end);
	if (below == 0 || below > table->count) {
		reject_unwind_table(walk, TRACER_TABLE_MALFORMED);
		return NULL;
	}
	if (!walk_verify(walk, &rows, (uint32_t)(below - 1) * 2, 2)) {
		reject_unwind_table(walk, TRACER_TABLE_BAD_CHECKSUM);
		return NULL;
	}
	row = table->rows[below - 1];
	if (row % sizeof(struct tracer_unwind_rule) != 0 ||
	    row / sizeof(struct tracer_unwind_rule) >= table->rule_count) {
		reject_unwind_table(walk, TRACER_TABLE_MALFORMED);
		return NULL;
	}
	if (!walk_verify(walk, &rules, row, sizeof(struct tracer_unwind_rule))) {
		reject_unwind_table(walk, TRACER_TABLE_BAD_CHECKSUM);
		return NULL;
	}
	rule = unwind_table_rule_of(table->rules, row);
	if (!tracer_unwind_rule_valid(rule, TARGET_WORD_SIZE)) {
		reject_unwind_table(walk, TRACER_TABLE_MALFORMED);
		return NULL;
	}
	return rule;
}

void walk_table_check(struct tracer_walk *walk)
{
	const struct tracer_unwind_table *table = walk->config->unwind_table;
	/* The pc table_step() looks up: a return address's call. */
	uintptr_t pc = walk->next_is_exact ? walk->next.pc : walk->next.pc - 1;
	uintptr_t end;

	if (!walk->tables_verified && walk->unwind_table_status == TRACER_TABLE_OK &&
	    unwind_table_end(table, pc, &end))
		(void)walk_unwind_rule(walk, end);
}

bool walk_dwarf_check(struct tracer_walk *walk)
{
	/* The pc dwarf_step() looks up: a return address's call. */
	uintptr_t pc = walk->next_is_exact ? walk->next.pc : walk->next.pc - 1;
	const struct tracer_fde_entry *entry;

	if (walk->eh_frame_status != TRACER_TABLE_OK &&
	    walk->eh_frame_status != TRACER_TABLE_ABSENT) {
		walk->stop = TRACER_STOP_BAD_EH_FRAME;
		return false;
	}
	/* dwarf_step() says what stops it without an index. */
	if (walk->tables_verified || !walk->fde_searchable)
		return true;
	entry =
	    sorted_search_from(walk->config->fde_index->entries, walk->fde_first_probe,
			       walk->fde_levels, sizeof(struct tracer_fde_entry), pc);
	if (!walk_fde_entry_check(walk, entry, pc)) {
		walk->stop = TRACER_STOP_BAD_FDE_INDEX;
		return false;
	}
	if (pc >= entry->pc_start && !walk_eh_frame_check(walk, entry->fde)) {
		walk->stop = TRACER_STOP_BAD_EH_FRAME;
		return false;
	}
	return true;
}
