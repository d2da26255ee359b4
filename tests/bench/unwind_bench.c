/*
 * unwind_bench.c - instructions per frame of the tracer's unwinders against
 * libgcc's _Unwind_Backtrace, on the same stack. `make bench` builds it into
 * a separate kernel (with libgcc_support.c) and boots it with
 * `scenario=call:bench_unwinders` (or bench_unwinders_fp in a kernel built
 * with frame pointers) under QEMU -icount shift=0, where rdinstret counts
 * retired instructions exactly.
 *
 * Each unwinder walks the whole stack from the bottom of a recursion of
 * BENCH_SHALLOW, then BENCH_DEEP levels, without printing. The cost of one
 * frame is the slope (instret deep - shallow) / (frames deep - shallow):
 * setup, the frames below the recursion and rdinstret itself cancel.
 *
 * Output: a line for the kernel, one line per walk, then a summary:
 *   BENCH kernel frame-pointers=<0|1>
 *   BENCH <unwinder> depth=<levels> frames=<seen> instret=<count> complete=<0|1>
 * complete=1: the walk ended at the outermost frame (_start), not earlier.
 * And the cost of starting a walk, which validates the embedded tables
 * (unwind: the unwind table's rows and lookup entries):
 *   BENCH walk-start instret=<count> symbols=<n> fdes=<n> unwind=<n>
 */
#include <stdbool.h>
#include <stdint.h>
#include <unwind.h>

#include "console.h"
#include "panic.h"
#include "tracer.h"

#define BENCH_SHALLOW 16u
#define BENCH_DEEP    64u
/* Above any depth measured here: the walks must end at _start, not at a cap. */
#define BENCH_MAX_FRAMES 1000u

/* Frames must stay as written: never inlined, never cloned. */
#define BENCH_FN __attribute__((noinline, noclone))

/* Provided by the linker script, the boot code and symgen (as in panic.c). */
extern char __eh_frame_start[];

/* libgcc's registration entry point (unwind-dw2-fde.h, not in unwind.h). */
void __register_frame_info(const void *eh_frame, void *object);

void bench_unwinders(void);
void bench_unwinders_fp(void);

enum bench_unwinder {
	BENCH_DWARF,
	BENCH_FRAME_POINTER,
	BENCH_PROLOGUE,
	BENCH_AUTO,
	BENCH_TABLE,
	BENCH_LIBGCC,
	BENCH_UNWINDERS
};

static const char *const bench_names[BENCH_UNWINDERS] = {"dwarf", "fp",    "prologue",
							 "auto",  "table", "libgcc"};
/* The tracer's unwinder for each of the tracer's entries above. */
static const enum tracer_unwinder tracer_unwinders[BENCH_LIBGCC] = {
    TRACER_DWARF, TRACER_FRAME_POINTER, TRACER_PROLOGUE, TRACER_AUTO, TRACER_TABLE};

struct bench_result {
	unsigned frames;
	unsigned long instret;
	bool complete;
};

/* [unwinder][0: shallow, 1: deep] */
static struct bench_result results[BENCH_UNWINDERS][2];
static bool measure_frame_pointer;
static unsigned current_slot;

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
BENCH_FN static void measure_tracer(enum bench_unwinder which)
{
	struct tracer_regs regs;
	struct tracer_config config;
	struct tracer_trap_layout trap;
	struct tracer_walk walk;
	struct tracer_frame frame;
	struct bench_result *result = &results[which][current_slot];
	unsigned long start;

	TRACER_CAPTURE_REGS(&regs);
	/* Exactly what a panic's walk reads; only the depth limit differs. */
	panic_describe_kernel(&config, &trap);
	config.max_depth = BENCH_MAX_FRAMES;
	result->frames = 0;
	start = read_instret();
	tracer_start(&walk, tracer_unwinders[which], &config, &regs);
	while (tracer_next(&walk, &frame))
		result->frames++;
	result->instret = read_instret() - start;
	result->complete = walk.stop == TRACER_STOP_OUTERMOST;
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
	struct bench_result *result = &results[BENCH_LIBGCC][current_slot];
	unsigned long start;
	_Unwind_Reason_Code end;

	result->frames = 0;
	start = read_instret();
	end = _Unwind_Backtrace(count_frame, &result->frames);
	result->instret = read_instret() - start;
	result->complete = end == _URC_END_OF_STACK;
}

BENCH_FN static void measure_all(void)
{
	measure_tracer(BENCH_DWARF);
	if (measure_frame_pointer)
		measure_tracer(BENCH_FRAME_POINTER);
	measure_tracer(BENCH_PROLOGUE);
	measure_tracer(BENCH_AUTO);
	measure_tracer(BENCH_TABLE);
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

/* tracer_start() alone: it checks the symbol table, the FDE index and the
 * unwind table (bounds, header, checksum, order) before the walk reads them. */
BENCH_FN static void measure_walk_start(void)
{
	struct tracer_regs regs;
	struct tracer_config config;
	struct tracer_trap_layout trap;
	struct tracer_walk walk;
	unsigned long start;
	unsigned long instret;

	TRACER_CAPTURE_REGS(&regs);
	panic_describe_kernel(&config, &trap);
	start = read_instret();
	tracer_start(&walk, TRACER_AUTO, &config, &regs);
	instret = read_instret() - start;
	kprintf("BENCH walk-start instret=%lu symbols=%u fdes=%u unwind=%u\n", instret,
		config.symtab->count, config.fde_index->count,
		config.unwind_table->count + config.unwind_table->lookup_count);
}

static void print_result(enum bench_unwinder which, unsigned slot, unsigned depth)
{
	const struct bench_result *result = &results[which][slot];

	kprintf("BENCH %s depth=%u frames=%u instret=%lu complete=%d\n",
		bench_names[which], depth, result->frames, result->instret,
		result->complete);
}

/* Instructions per frame between the two depths, in tenths (no floats). */
static unsigned long slope_tenths(enum bench_unwinder which)
{
	const struct bench_result *shallow = &results[which][0];
	const struct bench_result *deep = &results[which][1];
	unsigned long frames = deep->frames - shallow->frames;

	if (deep->frames <= shallow->frames || deep->instret < shallow->instret)
		return 0;
	return ((deep->instret - shallow->instret) * 10 + frames / 2) / frames;
}

static void print_summary(void)
{
	unsigned long dwarf = slope_tenths(BENCH_DWARF);
	unsigned long libgcc = slope_tenths(BENCH_LIBGCC);

	for (unsigned i = 0; i < BENCH_UNWINDERS; i++) {
		unsigned long slope = slope_tenths(i);

		if (i == BENCH_FRAME_POINTER && !measure_frame_pointer)
			continue;
		kprintf("summary: %s %lu.%lu instructions per frame\n", bench_names[i],
			slope / 10, slope % 10);
	}
	if (dwarf)
		kprintf("summary: libgcc / dwarf = %lu.%lu\n", libgcc / dwarf,
			libgcc * 10 / dwarf % 10);
}

static void bench_run(bool with_frame_pointer)
{
	static const unsigned depths[2] = {BENCH_SHALLOW, BENCH_DEEP};
	volatile unsigned seed = 1;

	/* No timer tick may land inside a measured walk (sstatus.SIE, bit 1). */
	__asm__ volatile("csrci sstatus, 2" ::: "memory");
	kprintf("BENCH kernel frame-pointers=%d\n", with_frame_pointer);
	measure_frame_pointer = with_frame_pointer;
	__register_frame_info(__eh_frame_start, libgcc_object);
	/* libgcc sorts its FDEs on first use: keep that one-time cost out. */
	descend(0, &seed);
	for (current_slot = 0; current_slot < 2; current_slot++)
		descend(depths[current_slot], &seed);
	for (unsigned i = 0; i < BENCH_UNWINDERS; i++) {
		if (i == BENCH_FRAME_POINTER && !with_frame_pointer)
			continue;
		print_result(i, 0, BENCH_SHALLOW);
		print_result(i, 1, BENCH_DEEP);
	}
	measure_walk_start();
	print_summary();
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
