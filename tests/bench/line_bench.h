/*
 * line_bench.h - PROTOTYPE (issue 19): what line_lookup --emit-c writes for
 * tests/bench/line_bench.c: a line table, the pcs to look up, the rows'
 * answers (file, line; file 0 for none) and dwarf_inline_chain()'s: pc i's
 * chain, innermost first, is bench_chain_calls[3 * bench_chain_start[i]]
 * up to [3 * bench_chain_start[i + 1]], a call's name, file and line each.
 */
#ifndef LINE_BENCH_H
#define LINE_BENCH_H

#include <stdint.h>

#include "lines.h"

extern const struct tracer_lines bench_table;
extern const uint8_t bench_stream[];
extern const uint16_t bench_group_block[];
extern const uint8_t bench_page_block[];
extern const uint8_t bench_records[];
extern const uint64_t bench_pcs[];
extern const uint32_t bench_answers[];
extern const uint32_t bench_chain_start[];
extern const uint32_t bench_chain_calls[];
extern const uint32_t bench_pc_count;

#endif /* LINE_BENCH_H */
