/*
 * fuzz_lines.c - libFuzzer target: the line table's lookups alone
 * (tracer/lines.h) on a table carved from the input, each array in guarded
 * memory (fuzz_regions.h), so a read outside one is reported.
 *
 * Input (little-endian; reads past the end give zeros):
 *   header   magic u32, version u32, block_bytes u16, literal_bytes u8,
 *            file_bits u8, call_bits u8, group_shift u8, record_bytes u8,
 *            name_bits u8, call_line_bits u8, row_count u32, block_count
 *            u32, page_count u32, stream_size u32, file_count u32,
 *            call_count u32, name_count u32, base u64
 *   pcs      PC_CHOICES u32: offsets from base, modulo the table's pages
 *            and two more (so some fall past the last row)
 *   records  call_count * record_bytes bytes
 *   groups   (page_count >> group_shift) + 1 u16 entries
 *   pages    page_count + 1 bytes
 *   stream   stream_size bytes
 * An array the input is too short for shrinks, and the header's count with
 * it: the header's lengths are always those of the arrays (what symgen
 * writes and the checksums hold); every other field is the input's. If
 * tracer_lines_valid() accepts the table, it is looked up at each pc and at
 * the edges (below base, base, past the last page, 0 and UINTPTR_MAX), and
 * each answer's chain of inlined calls is followed to its end.
 *
 * Invariants (abort with a message): results are of the enum; a FOUND
 * row's file is in 1 .. file_count - 1 and its call at most call_count, as
 * is a NONE's; a record's parent is below its call, its name at most
 * name_count and its file below file_count; a chain ends within
 * call_count steps; calls 0 and call_count + 1 have no record.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "fuzz_regions.h"
#include "lines.h"

#define PC_CHOICES 16

#define MiB ((size_t)1 << 20)
/* Each region's capacity: 1 MiB, far above a real table's arrays; a MiB
 * of guard pages after each. */
#define REGION_CAPACITY MiB
#define RECORDS_AT	(1 * MiB)
#define GROUPS_AT	(3 * MiB)
#define PAGES_AT	(5 * MiB)
#define STREAM_AT	(7 * MiB)

static struct fuzz_region records_region, groups_region, pages_region, stream_region;

static void fail(const char *format, ...)
{
	va_list args;

	fputs("fuzz_lines: invariant violated: ", stderr);
	va_start(args, format);
	vfprintf(stderr, format, args);
	va_end(args);
	fputc('\n', stderr);
	abort();
}

/* count elements of element_size bytes carved from the input into region,
 * or fewer if the input or the region holds fewer: *count says how many.
 * NULL if none. */
static const void *carve(struct fuzz_input *input, struct fuzz_region *region,
			 uint64_t *count, size_t element_size)
{
	size_t carved = input_count(input, *count < SIZE_MAX ? (size_t)*count : SIZE_MAX,
				    element_size);

	if (carved > REGION_CAPACITY / element_size)
		carved = REGION_CAPACITY / element_size;
	*count = carved;
	if (carved == 0)
		return NULL;
	return (const void *)fuzz_region_load(
	    region, 0, input_bytes(input, carved * element_size), carved * element_size);
}

/* The chain of inlined calls from call, to its end. */
static void follow_chain(const struct tracer_lines *table, uint32_t call, uintptr_t pc)
{
	for (uint32_t steps = 0; call != 0; steps++) {
		struct tracer_inline_call record;
		enum tracer_line_result result;

		if (steps == table->call_count)
			fail("pc %#lx: the chain goes on past %u calls",
			     (unsigned long)pc, table->call_count);
		result = tracer_inline_call_at(table, call, &record);
		if (result == TRACER_LINE_CORRUPT)
			return;
		if (result != TRACER_LINE_FOUND)
			fail("call %u: result %d", call, (int)result);
		if (record.parent >= call || record.name > table->name_count ||
		    record.file >= table->file_count)
			fail("call %u: parent %u, name %u of %u, file %u of %u", call,
			     record.parent, record.name, table->name_count, record.file,
			     table->file_count);
		call = record.parent;
	}
}

static void look_up(const struct tracer_lines *table, uintptr_t pc)
{
	struct tracer_line found = {0, 0, 0};
	enum tracer_line_result result = tracer_line_at(table, pc, &found);

	if (result == TRACER_LINE_CORRUPT)
		return;
	if (result != TRACER_LINE_FOUND && result != TRACER_LINE_NONE)
		fail("pc %#lx: result %d", (unsigned long)pc, (int)result);
	if (result == TRACER_LINE_FOUND &&
	    (found.file == 0 || found.file >= table->file_count))
		fail("pc %#lx: a row of file %u of %u", (unsigned long)pc, found.file,
		     table->file_count);
	if (found.call > table->call_count)
		fail("pc %#lx: call %u of %u", (unsigned long)pc, found.call,
		     table->call_count);
	follow_chain(table, found.call, pc);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_region_init(&records_region, RECORDS_AT, REGION_CAPACITY);
	fuzz_region_init(&groups_region, GROUPS_AT, REGION_CAPACITY);
	fuzz_region_init(&pages_region, PAGES_AT, REGION_CAPACITY);
	fuzz_region_init(&stream_region, STREAM_AT, REGION_CAPACITY);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input input = {data, size, 0};
	struct tracer_lines table = {0};
	uint32_t pc_offsets[PC_CHOICES];
	uint64_t records, groups, pages, stream, span;
	struct tracer_inline_call record;

	table.magic = input_u32(&input);
	table.version = input_u32(&input);
	table.block_bytes = input_u16(&input);
	table.literal_bytes = input_u8(&input);
	table.file_bits = input_u8(&input);
	table.call_bits = input_u8(&input);
	table.group_shift = input_u8(&input);
	table.record_bytes = input_u8(&input);
	table.name_bits = input_u8(&input);
	table.call_line_bits = input_u8(&input);
	table.row_count = input_u32(&input);
	table.block_count = input_u32(&input);
	table.page_count = input_u32(&input);
	table.stream_size = input_u32(&input);
	table.file_count = input_u32(&input);
	table.call_count = input_u32(&input);
	table.name_count = input_u32(&input);
	table.base = input_u32(&input);
	table.base |= (uintptr_t)((uint64_t)input_u32(&input) << 32);
	for (unsigned i = 0; i < PC_CHOICES; i++)
		pc_offsets[i] = input_u32(&input);

	/* Each array as long as the header says, or the header says what
	 * could be carved. Records of 0 bytes: none carved, call_count kept
	 * (the header check rejects such records if there are calls). */
	if (table.record_bytes != 0) {
		records = table.call_count;
		table.records =
		    carve(&input, &records_region, &records, table.record_bytes);
		table.call_count = (uint32_t)records;
	}
	groups = (table.group_shift < 32 ? table.page_count >> table.group_shift : 0) + 1;
	table.group_block = carve(&input, &groups_region, &groups, sizeof(uint16_t));
	if (groups == 0)
		table.page_count = 0;
	else if (table.group_shift < 32 &&
		 (uint64_t)table.page_count >> table.group_shift >= groups)
		table.page_count = (uint32_t)((groups << table.group_shift) - 1);
	pages = (uint64_t)table.page_count + 1;
	table.page_block = carve(&input, &pages_region, &pages, 1);
	table.page_count = pages ? (uint32_t)pages - 1 : 0;
	stream = table.stream_size;
	table.stream = carve(&input, &stream_region, &stream, 1);
	table.stream_size = (uint32_t)stream;

	if (tracer_lines_valid(&table)) {
		span = ((uint64_t)table.page_count + 2) << TRACER_LINES_PAGE_SHIFT;
		for (unsigned i = 0; i < PC_CHOICES; i++)
			look_up(&table, table.base + (uintptr_t)(pc_offsets[i] % span));
		look_up(&table, table.base - 1);
		look_up(&table, table.base);
		look_up(&table, table.base + (uintptr_t)(span - 1));
		look_up(&table, 0);
		look_up(&table, UINTPTR_MAX);
		if (tracer_inline_call_at(&table, 0, &record) != TRACER_LINE_CORRUPT ||
		    tracer_inline_call_at(&table, table.call_count + 1, &record) !=
			TRACER_LINE_CORRUPT)
			fail("call 0 or call_count + 1 has a record");
	}
	fuzz_region_unload(&records_region);
	fuzz_region_unload(&groups_region);
	fuzz_region_unload(&pages_region);
	fuzz_region_unload(&stream_region);
	return 0;
}
