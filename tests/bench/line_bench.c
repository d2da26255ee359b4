/*
 * line_bench.c - PROTOTYPE (issue 19): instructions of the line lookup
 * (tracer/lines.c) per pc, and of the walk of its chain of inlined calls, on bare-metal
 * RISC-V (machine mode, QEMU's virt board, -bios none) under -icount shift=0, where
 * minstret counts retired instructions exactly. tests/bench/line_bench.py builds it with
 * a table and pcs from line_lookup --emit-c and reads its one line:
 *
 *   LINEBENCH lookups=<n> total=<instructions> max=<instructions>
 *   max_pc=<hex> stack=<bytes> wrong=<answers unlike the rows'>
 *   lines=<instructions> calls=<inlined calls walked>
 *
 * total and max count the lookup and the walk of its chain together, lines
 * the lookup alone (all pcs). A count runs from the instruction after one
 * minstret read to the next read, less what two reads back to back count:
 * the calls, their arguments and the returns included. The walk reads each
 * call's record and compares it with the expected after the count.
 */
#include <stdbool.h>
#include <stdint.h>

#include "line_bench.h"

#define UART_DATA   ((volatile uint8_t *)0x10000000u)
#define TEST_FINISH ((volatile uint32_t *)0x100000u)
#define STACK_FILL  0x5au

extern uint8_t bench_stack[];
extern uint8_t bench_stack_top[];

void bench_main(void);

static inline uint64_t retired(void)
{
	uint64_t count;

	__asm__ volatile("csrr %0, minstret" : "=r"(count) : : "memory");
	return count;
}

static void put_string(const char *text)
{
	while (*text)
		*UART_DATA = (uint8_t)*text++;
}

static void put_number(uint64_t value, unsigned base)
{
	char digits[24];
	unsigned count = 0;

	do {
		digits[count++] = "0123456789abcdef"[value % base];
		value /= base;
	} while (value);
	while (count)
		*UART_DATA = (uint8_t)digits[--count];
}

/* The deepest the stack went below sp at the call: bytes no longer
 * STACK_FILL, from the bottom. */
static uint64_t stack_used(const uint8_t *sp)
{
	const uint8_t *low = bench_stack;

	while (low < sp && *low == STACK_FILL)
		low++;
	return (uint64_t)(sp - low);
}

static __attribute__((noinline)) const uint8_t *current_sp(void)
{
	const uint8_t *sp;

	__asm__ volatile("mv %0, sp" : "=r"(sp));
	return sp;
}

/* The walk of the chain from call, each record read counted into *count
 * and then compared with the expected; false if one differs or is
 * corrupt. Inlined, so that the stack figure is the lookups' alone. */
static inline __attribute__((always_inline)) bool
walk_chain(uint32_t call, uint32_t pc_index, uint64_t overhead, uint64_t *count,
	   uint64_t *walked)
{
	const uint32_t *expected = &bench_chain_calls[3 * bench_chain_start[pc_index]];
	const uint32_t length =
	    bench_chain_start[pc_index + 1] - bench_chain_start[pc_index];
	uint32_t level = 0;

	*count = 0;
	for (; call != 0; level++) {
		struct tracer_inline_call record;
		enum tracer_line_result result;
		uint64_t before = retired();

		result = tracer_inline_call_at(&bench_table, call, &record);
		*count += retired() - before - overhead;
		if (result != TRACER_LINE_FOUND || level >= length ||
		    record.name != expected[3 * level] ||
		    record.file != expected[3 * level + 1] ||
		    record.line != expected[3 * level + 2])
			return false;
		call = record.parent;
		++*walked;
	}
	return level == length;
}

void bench_main(void)
{
	uint64_t before, overhead, total = 0, most = 0, most_pc = 0, wrong = 0, stack;
	uint64_t lines = 0, walked = 0;
	const uint8_t *sp = current_sp();

	for (uint8_t *byte = bench_stack; byte < sp; byte++)
		*byte = STACK_FILL;
	before = retired();
	overhead = retired() - before;
	if (!tracer_lines_valid(&bench_table))
		put_string("LINEBENCH invalid table\n");
	for (uint32_t i = 0; i < bench_pc_count; i++) {
		struct tracer_line found = {0, 0, 0};
		enum tracer_line_result result;
		uint64_t count, chain_count = 0;
		bool chain_good;

		before = retired();
		result = tracer_line_at(&bench_table, (uintptr_t)bench_pcs[i], &found);
		count = retired() - before - overhead;
		lines += count;
		chain_good = result != TRACER_LINE_CORRUPT &&
			     walk_chain(found.call, i, overhead, &chain_count, &walked);
		count += chain_count;
		total += count;
		if (count > most) {
			most = count;
			most_pc = bench_pcs[i];
		}
		if (!chain_good || result == TRACER_LINE_CORRUPT ||
		    (result == TRACER_LINE_NONE && bench_answers[2 * i] != 0) ||
		    (result == TRACER_LINE_FOUND &&
		     (found.file != bench_answers[2 * i] ||
		      found.line != bench_answers[2 * i + 1])))
			wrong++;
	}
	stack = stack_used(sp);
	put_string("LINEBENCH lookups=");
	put_number(bench_pc_count, 10);
	put_string(" total=");
	put_number(total, 10);
	put_string(" max=");
	put_number(most, 10);
	put_string(" max_pc=");
	put_number(most_pc, 16);
	put_string(" stack=");
	put_number(stack, 10);
	put_string(" wrong=");
	put_number(wrong, 10);
	put_string(" lines=");
	put_number(lines, 10);
	put_string(" calls=");
	put_number(walked, 10);
	put_string("\n");
	*TEST_FINISH = 0x5555;
	for (;;)
		;
}
