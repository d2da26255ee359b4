/*
 * unwind_bench.c - instructions per frame of the tracer's unwinders against
 * libgcc's _Unwind_Backtrace, on the same stack. `make bench` builds it into
 * a separate kernel (with libgcc_support.c) and boots it with
 * `scenario=call:bench_unwinders` (or bench_unwinders_fp in a kernel built
 * with frame pointers) under QEMU -icount shift=0, where rdinstret counts
 * retired instructions exactly.
 *
 * Each unwinder walks the whole stack from the bottom of a recursion of
 * BENCH_SHALLOW, then BENCH_DEEP levels, in two modes: raw (tracer_capture()
 * into an array, the tables validated beforehand by tracer_prepare()) and
 * symbolized (tracer_start() and tracer_next(), as panic() walks, without
 * printing). libgcc's walk is raw. The cost of one frame is the slope
 * (instret deep - shallow) / (frames deep - shallow): setup, the frames
 * below the recursion and rdinstret itself cancel.
 *
 * Output: a line for the kernel, one line per walk:
 *   BENCH kernel build=<build> frame-pointers=<0|1>
 *   BENCH <unwinder> <raw|symbolized> depth=<levels> frames=<seen> instret=<count>
 * complete=<0|1> complete=1: the walk ended at the outermost frame (_start), not earlier.
 * The cost of starting a walk with each unwinder, up to its first frame
 * (tracer_start() and the first tracer_next(); unwind: the unwind table's
 * rows and blocks):
 *   BENCH walk-start <unwinder> instret=<count> symbols=<n> fdes=<n> unwind=<n>
 * The unwinders' walks run without the line table (config.lines NULL): its
 * lookups are measured apart (tests/bench/line_bench.py). What it adds to a
 * walk's start, its whole check before the first lookup:
 *   BENCH lines-check instret=<count> bytes=<the table's arrays>
 * Then the slopes, in the form tools read (build: gcc-O2-fp0, ...):
 *   bench <build> <unwinder> raw slope <N> instr/frame
 *   bench <build> <unwinder> symbolized slope <N> instr/frame
 * and what symbolizing adds against the bound, 15 * log2(symbols):
 *   bench <build> <unwinder> symbolization <N> instr/frame, 15*log2(<symbols>) = <L>
 */
#include <stdbool.h>
#include <stdint.h>
#include <unwind.h>

#include "console.h"
#include "panic.h"
#include "tracer_tables.h"

#define BENCH_SHALLOW 16u
#define BENCH_DEEP    64u
/* Above any depth measured here: the walks must end at _start, not at a cap. */
#define BENCH_MAX_FRAMES 1000u

/* Frames must stay as written: never inlined, never cloned. */
#define BENCH_FN __attribute__((noinline, noclone))

/* "-10x" for the kernel with ten times the functions (Makefile), else "". */
#ifndef BENCH_VARIANT
#define BENCH_VARIANT ""
#endif
#ifndef BENCH_OPT
#error "build with -DBENCH_OPT='\"-O2\"' (the Makefile's bench kernels do)"
#endif
#ifdef __clang__
#define BENCH_COMPILER "clang"
#else
#define BENCH_COMPILER "gcc"
#endif
/* rv32 kernels (make bench builds them beside the rv64 ones) say so first. */
#if __riscv_xlen == 32
#define BENCH_ARCH "rv32-"
#else
#define BENCH_ARCH ""
#endif
/* The build's name in the output: gcc-O2-fp0, gcc-O2-fp1, gcc-O2-fp0-10x,
 * rv32-gcc-O2-fp0, rv32-gcc-O2-fp1. */
#define BENCH_BUILD(fp) BENCH_ARCH BENCH_COMPILER BENCH_OPT "-fp" fp BENCH_VARIANT

/* Provided by the linker script, the boot code and symgen (as in panic.c). */
extern char __eh_frame_start[];

/* libgcc's registration entry point (unwind-dw2-fde.h, not in unwind.h). */
void __register_frame_info(const void *eh_frame, void *object);

void bench_unwinders(void);
void bench_unwinders_fp(void);

/* The tracer's unwinders the benchmark measures, one line each.
 * frame-pointer-alone: the frame pointer in a kernel without an unwind
 * table (config_alone), so without its frame-size witness. */
static const struct {
	const char *name;
	enum tracer_unwinder unwinder;
	bool needs_frame_pointers;
	bool alone;
} benched[] = {
    {"frame-pointer", TRACER_FRAME_POINTER, true, false},
    {"frame-pointer-alone", TRACER_FRAME_POINTER, true, true},
    {"dwarf", TRACER_DWARF, false, false},
    {"prologue", TRACER_PROLOGUE, false, false},
    {"auto", TRACER_AUTO, false, false},
    {"table", TRACER_TABLE, false, false},
};

#define BENCH_TRACERS (sizeof(benched) / sizeof(benched[0]))
#define BENCH_LIBGCC  BENCH_TRACERS /* after the tracer's, in results[] */

enum bench_mode { BENCH_RAW, BENCH_SYMBOLIZED, BENCH_MODES };
static const char *const mode_names[BENCH_MODES] = {"raw", "symbolized"};

struct bench_result {
	unsigned frames;
	unsigned long instret;
	bool complete;
};

/* [unwinder][mode][0: shallow, 1: deep] */
static struct bench_result results[BENCH_TRACERS + 1][BENCH_MODES][2];
static bool measure_frame_pointer;
static unsigned current_slot;

/* What a panic's walk reads (panic_describe_kernel), with no depth limit
 * below BENCH_MAX_FRAMES; validated once for the raw walks. */
static struct tracer_config config;
static struct tracer_trap_layout trap;
static struct tracer_prepared prepared;
static struct tracer_config config_alone;
/* The line table panic_describe_kernel() gives: the walks above run
 * without it. */
static const struct tracer_lines *lines_of_panic;
static struct tracer_prepared prepared_alone;
static uintptr_t pcs[BENCH_MAX_FRAMES];

/* libgcc keeps its list of registered .eh_frame sections in a private
 * struct object of about 6 words; reserve generously, aligned. */
static _Alignas(16) unsigned char libgcc_object[64 * sizeof(void *)];

static inline unsigned long read_instret(void)
{
	unsigned long count;

	__asm__ volatile("csrr %0, instret" : "=r"(count)::"memory");
	return count;
}

/* A full walk as panic() makes it (symbolized frames), minus the printing. */
BENCH_FN static void measure_symbolized(unsigned which)
{
	struct tracer_regs regs;
	struct tracer_walk walk;
	struct tracer_frame frame;
	struct bench_result *result = &results[which][BENCH_SYMBOLIZED][current_slot];
	unsigned long start;

	TRACER_CAPTURE_REGS(&regs);
	result->frames = 0;
	start = read_instret();
	tracer_start(&walk, benched[which].unwinder,
		     benched[which].alone ? &config_alone : &config, &regs);
	while (tracer_next(&walk, &frame))
		result->frames++;
	result->instret = read_instret() - start;
	result->complete = tracer_stop_reason(&walk) == TRACER_STOP_OUTERMOST;
}

/* The same walk, pcs only, as a hot path records them. */
BENCH_FN static void measure_raw(unsigned which)
{
	struct tracer_regs regs;
	struct bench_result *result = &results[which][BENCH_RAW][current_slot];
	enum tracer_stop stop;
	unsigned long start;
	size_t frames;

	TRACER_CAPTURE_REGS(&regs);
	start = read_instret();
	frames =
	    tracer_capture(benched[which].alone ? &prepared_alone : &prepared,
			   benched[which].unwinder, &regs, pcs, BENCH_MAX_FRAMES, &stop);
	result->instret = read_instret() - start;
	result->frames = (unsigned)frames;
	result->complete = stop == TRACER_STOP_OUTERMOST;
}

static _Unwind_Reason_Code count_frame(struct _Unwind_Context *context, void *frames)
{
	/* Past the outermost frame (ra undefined) libgcc calls once more,
	 * with pc 0: that is no frame. */
	if (_Unwind_GetIP(context) != 0)
		++*(unsigned *)frames;
	return _URC_NO_REASON;
}

/* libgcc's walk starts at its caller: this function, as the tracer's does. */
BENCH_FN static void measure_libgcc(void)
{
	struct bench_result *result = &results[BENCH_LIBGCC][BENCH_RAW][current_slot];
	unsigned long start;
	_Unwind_Reason_Code end;

	result->frames = 0;
	start = read_instret();
	end = _Unwind_Backtrace(count_frame, &result->frames);
	result->instret = read_instret() - start;
	result->complete = end == _URC_END_OF_STACK;
}

static bool measured(unsigned which)
{
	return which == BENCH_LIBGCC || !benched[which].needs_frame_pointers ||
	       measure_frame_pointer;
}

BENCH_FN static void measure_all(void)
{
	for (unsigned i = 0; i < BENCH_TRACERS; i++) {
		if (!measured(i))
			continue;
		measure_raw(i);
		measure_symbolized(i);
	}
	measure_libgcc();
	/* No tail call: every walk must start below this same frame. */
	__asm__ volatile("" ::: "memory");
}

/*
 * Recursion that stays recursion: the callee reads the caller's local through
 * a pointer, so every level keeps a live frame. a, b and c live across the
 * call, so each frame also saves callee-saved registers, as real code does.
 */
BENCH_FN static unsigned descend(unsigned levels, const volatile unsigned *parent)
{
	volatile unsigned mine = *parent + levels;
	unsigned a = mine * 3u;
	unsigned b = mine ^ levels;
	unsigned c = mine + 7u;

	if (levels == 0) {
		measure_all();
		return a + b + c;
	}
	return descend(levels - 1, &mine) * a + b * c;
}

/* Everything before a walk's first frame line: tracer_start(), which
 * checks the tables' headers, and the first tracer_next(), which finds and
 * symbolizes the first frame and unwinds its caller, checking each block
 * of the tables and of .eh_frame it reads. */
BENCH_FN static void measure_walk_start(unsigned which)
{
	struct tracer_regs regs;
	struct tracer_walk walk;
	struct tracer_frame frame;
	unsigned long start;
	unsigned long instret;

	TRACER_CAPTURE_REGS(&regs);
	start = read_instret();
	tracer_start(&walk, benched[which].unwinder,
		     benched[which].alone ? &config_alone : &config, &regs);
	(void)tracer_next(&walk, &frame);
	instret = read_instret() - start;
	/* The counts are uint32_t: unsigned long on rv32 (ilp32), unsigned on rv64. */
	kprintf("BENCH walk-start %s instret=%lu symbols=%u fdes=%u unwind=%u\n",
		benched[which].name, instret, (unsigned)config.symtab->count,
		(unsigned)config.fde_index->count,
		benched[which].alone ? 0u
				     : (unsigned)(config.unwind_table->count +
						  config.unwind_table->block_count));
}

/* A walk's start (the auto unwinder) with the line table, less without:
 * the table's check before the first lookup, and that lookup. */
BENCH_FN static void measure_lines_check(void)
{
	struct tracer_config with_lines = config;
	const struct tracer_lines *lines = lines_of_panic;
	struct tracer_regs regs;
	struct tracer_walk walk;
	struct tracer_frame frame;
	unsigned long start, without, with;

	with_lines.lines = lines;
	TRACER_CAPTURE_REGS(&regs);
	start = read_instret();
	tracer_start(&walk, TRACER_AUTO, &config, &regs);
	(void)tracer_next(&walk, &frame);
	without = read_instret() - start;
	start = read_instret();
	tracer_start(&walk, TRACER_AUTO, &with_lines, &regs);
	(void)tracer_next(&walk, &frame);
	with = read_instret() - start;
	kprintf("BENCH lines-check instret=%lu bytes=%u\n", with - without,
		(unsigned)(((lines->page_count >> lines->group_shift) + 1) * 2 +
			   lines->page_count + 1 + lines->stream_size +
			   lines->call_count * lines->record_bytes +
			   (lines->file_count - 1 + lines->name_count) * 4 +
			   lines->strings_size));
}

static const char *unwinder_name(unsigned which)
{
	return which == BENCH_LIBGCC ? "libgcc" : benched[which].name;
}

static void print_result(unsigned which, enum bench_mode mode, unsigned slot,
			 unsigned depth)
{
	const struct bench_result *result = &results[which][mode][slot];

	kprintf("BENCH %s %s depth=%u frames=%u instret=%lu complete=%d\n",
		unwinder_name(which), mode_names[mode], depth, result->frames,
		result->instret, result->complete);
}

/* Instructions per frame between the two depths, rounded (0: the frames
 * did not grow). */
static unsigned long slope(unsigned which, enum bench_mode mode)
{
	const struct bench_result *shallow = &results[which][mode][0];
	const struct bench_result *deep = &results[which][mode][1];
	unsigned long frames = deep->frames - shallow->frames;

	if (deep->frames <= shallow->frames || deep->instret < shallow->instret)
		return 0;
	return (deep->instret - shallow->instret + frames / 2) / frames;
}

/* 15 * log2(n), rounded, for n >= 1, without floats: the integer part of
 * log2 from the top bit, then 16 fraction bits by repeated squaring of the
 * mantissa (a 1.16 fixed-point number in [1, 2), whose square needs 34 bits:
 * 64-bit on rv32 too). */
static unsigned long fifteen_log2(unsigned long n)
{
	unsigned long whole = 0;
	uint64_t mantissa;
	unsigned long fraction = 0;

	while (n >> (whole + 1))
		whole++;
	mantissa = ((uint64_t)n << 16) >> whole;
	for (unsigned bit = 0; bit < 16; bit++) {
		mantissa = (mantissa * mantissa) >> 16;
		fraction <<= 1;
		if (mantissa >= 2ull << 16) {
			fraction |= 1;
			mantissa >>= 1;
		}
	}
	return (15 * ((whole << 16) + fraction) + (1ul << 15)) >> 16;
}

static void print_slopes(const char *build)
{
	unsigned long symbols = config.symtab->count;

	for (unsigned i = 0; i <= BENCH_LIBGCC; i++) {
		unsigned long raw = slope(i, BENCH_RAW);
		unsigned long symbolized;

		if (!measured(i))
			continue;
		kprintf("bench %s %s raw slope %lu instr/frame\n", build,
			unwinder_name(i), raw);
		if (i == BENCH_LIBGCC)
			continue;
		symbolized = slope(i, BENCH_SYMBOLIZED);
		kprintf("bench %s %s symbolized slope %lu instr/frame\n", build,
			unwinder_name(i), symbolized);
		kprintf("bench %s %s symbolization %ld instr/frame, 15*log2(%lu) = %lu\n",
			build, unwinder_name(i), (long)(symbolized - raw), symbols,
			fifteen_log2(symbols));
	}
}

static void bench_run(bool with_frame_pointer)
{
	static const unsigned depths[2] = {BENCH_SHALLOW, BENCH_DEEP};
	const char *build = with_frame_pointer ? BENCH_BUILD("1") : BENCH_BUILD("0");
	volatile unsigned seed = 1;

	/* No timer tick may land inside a measured walk (sstatus.SIE, bit 1). */
	__asm__ volatile("csrci sstatus, 2" ::: "memory");
	kprintf("BENCH kernel build=%s frame-pointers=%d\n", build, with_frame_pointer);
	measure_frame_pointer = with_frame_pointer;
	panic_describe_kernel(&config, &trap);
	config.max_depth = BENCH_MAX_FRAMES;
	lines_of_panic = config.lines;
	config.lines = NULL;
	tracer_prepare(&prepared, &config);
	config_alone = config;
	config_alone.unwind_table = NULL;
	tracer_prepare(&prepared_alone, &config_alone);
	__register_frame_info(__eh_frame_start, libgcc_object);
	/* libgcc sorts its FDEs on first use: keep that one-time cost out. */
	descend(0, &seed);
	for (current_slot = 0; current_slot < 2; current_slot++)
		descend(depths[current_slot], &seed);
	for (unsigned i = 0; i <= BENCH_LIBGCC; i++) {
		for (unsigned mode = 0; mode < BENCH_MODES && measured(i); mode++) {
			if (i == BENCH_LIBGCC && mode != BENCH_RAW)
				continue;
			print_result(i, mode, 0, BENCH_SHALLOW);
			print_result(i, mode, 1, BENCH_DEEP);
		}
	}
	for (unsigned i = 0; i < BENCH_TRACERS; i++) {
		if (measured(i))
			measure_walk_start(i);
	}
	measure_lines_check();
	print_slopes(build);
}

/* For kernels built without frame pointers: all but the frame-pointer tracer. */
void bench_unwinders(void)
{
	bench_run(false);
}

/* For kernels built with frame pointers (FP=1): every unwinder. */
void bench_unwinders_fp(void)
{
	bench_run(true);
}
