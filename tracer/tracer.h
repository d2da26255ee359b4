/*
 * tracer.h - symbolized backtraces for RISC-V kernels (rv32 and rv64).
 *
 * The only public header of the tracer library. Freestanding: it needs
 * <stdint.h>, <stddef.h> and <stdbool.h>, nothing from the kernel.
 *
 * Use from a panic handler, with no callbacks and no allocation:
 *
 *     struct tracer_regs regs;
 *     struct tracer_walk walk;
 *     struct tracer_frame frame;
 *     char line[TRACER_LINE_MAX];
 *
 *     TRACER_CAPTURE_REGS(&regs);
 *     tracer_start(&walk, TRACER_FRAME_POINTER, &config, &regs);
 *     while (tracer_next(&walk, &frame)) {
 *         if (tracer_format_note(line, sizeof line, &walk))
 *             print(line);    (a table failed validation: see the note)
 *         if (frame.after_trap)
 *             print(tracer_format_trap(line, sizeof line, &frame));
 *         print(tracer_format_frame(line, sizeof line, &frame));
 *     }
 *     if (tracer_format_note(line, sizeof line, &walk))
 *         print(line);
 *     print(tracer_format_end(line, sizeof line, tracer_stop_reason(&walk)));
 *
 * or, the same lines in one call (put_line prints one and a newline):
 *
 *     tracer_print_backtrace(&config, &regs, TRACER_FRAME_POINTER, put_line, NULL);
 *
 * The walk reads memory only inside the regions the caller declares in
 * struct tracer_config; anything else ends it with a stop reason. It
 * believes a caller only if its frame lies above the one before, inside the
 * current stack, and its return address follows a call instruction; it says
 * "outermost" only at the top of that stack. It moves to another declared
 * stack only across a trap frame, and never back to one it left.
 */
#ifndef TRACER_H
#define TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The tables symgen embeds (tracer_tables.h): a config points at them. */
struct tracer_symtab;
struct tracer_fde_index;
struct tracer_unwind_table;

/* A half-open address range [start, end). */
struct tracer_range {
	uintptr_t start;
	uintptr_t end;
};

/*
 * How the kernel's trap entry saves the interrupted state. Contract: the
 * entry code stores the registers in a trap frame and calls its C handler
 * with sp pointing at that trap frame. A return address inside `entry` then
 * tells the unwinder that a trap frame starts at the caller's sp.
 * The offsets are bytes from the start of the trap frame to each saved
 * register, one machine word each. Set every one: 0 is an offset.
 *
 * A vector need not change to fit: where it saves no sepc, scause or
 * stval, say TRACER_TRAP_NOT_SAVED, and give the CSRs as the kernel read
 * them at panic time in config->trap_csrs: they are the innermost trap
 * frame's (the first the walk crosses). A deeper trap frame without them
 * ends the walk: "End of trace: trap frame holds no saved sepc/scause/stval".
 * A vector that stores sp after taking its frame (addi sp, sp, -N; sd sp,
 * ...) says sp_offset = TRACER_TRAP_NOT_SAVED and frame_size = N: the
 * interrupted sp is the trap frame's address plus N.
 */
#define TRACER_TRAP_NOT_SAVED 0xffffu

struct tracer_trap_layout {
	struct tracer_range entry; /* code of the trap entry */
	uint16_t epc_offset;	   /* sepc: the interrupted pc */
	uint16_t ra_offset;	   /* x1 */
	uint16_t sp_offset;	   /* x2, the interrupted sp */
	uint16_t s_offset[12];	   /* s0 (x8), s1 (x9), s2-s11 (x18-x27) */
	uint16_t cause_offset;	   /* scause */
	uint16_t tval_offset;	   /* stval */
	/* sstatus: a trap frame whose SPP bit (8) is clear holds a trap from
	 * user mode; the walk shows the interrupted pc (the trap line and a
	 * raw frame), then ends: "End of trace: reached the kernel entry
	 * from user mode". TRACER_TRAP_NOT_SAVED: the walk cannot tell. */
	uint16_t status_offset;
	uint16_t frame_size; /* with sp_offset TRACER_TRAP_NOT_SAVED: see above */
};

/* sepc, scause and stval as the kernel read them at panic time, for a
 * layout that does not save them (TRACER_TRAP_NOT_SAVED). Give them only
 * when the walk starts inside the handler of that trap (its panic()), not
 * from registers a trap frame saved. */
struct tracer_trap_csrs {
	uintptr_t epc;
	uintptr_t cause;
	uintptr_t tval;
};

/* Stacks a config may declare; entries past it are ignored, as if absent. */
#define TRACER_MAX_STACKS 16u

/* What the walk may read and believe. Filled in by the kernel. */
struct tracer_config {
	struct tracer_range text; /* every pc must lie in here */
	/*
	 * The stacks the walk may read, in any order: a task's stack, the
	 * interrupt stack, the emergency stack, ...; each [start, end), end
	 * the top. A one-stack caller writes stacks = &stack, stack_count = 1.
	 * The walk reads only the *current* stack: the one with start < sp <=
	 * end; else, sp having overflowed below a stack's bottom (into its
	 * guard page), the lowest non-empty stack with start >= sp; else none
	 * (sp above every stack, or a trap from user mode: that frame is
	 * shown, then the walk stops). It changes stacks only across a trap
	 * frame, by the interrupted sp, and never back to one it left (that
	 * would be a loop). At most TRACER_MAX_STACKS entries are looked at;
	 * NULL or 0 declares none.
	 */
	const struct tracer_range *stacks;
	unsigned stack_count;
	const struct tracer_symtab *symtab;    /* NULL: frames print raw */
	const struct tracer_trap_layout *trap; /* NULL: never cross a trap */
	struct tracer_range eh_frame; /* .eh_frame: the CFI the DWARF unwinder reads */
	const struct tracer_fde_index *fde_index;	/* NULL: no DWARF unwinding */
	const struct tracer_unwind_table *unwind_table; /* NULL: no table unwinding */
	/* Where the tables symgen embeds lie (__tracer_symtab_start/_end in
	 * linker/tracer_symtab.ld): a table whose descriptor or arrays are
	 * outside is rejected. */
	struct tracer_range tables;
	unsigned max_depth; /* frames to print at most; 0 means TRACER_DEFAULT_DEPTH */
	/* NULL: none; see struct tracer_trap_csrs. */
	const struct tracer_trap_csrs *trap_csrs;
	/*
	 * Where a walk legitimately ends: code entered from user mode by a
	 * jump, with user ra and s0 still in the registers (a usertrap()
	 * reached from a trampoline). A frame whose code lies in one is shown,
	 * then the walk ends: "End of trace: reached the kernel entry from
	 * user mode", not a guess at its caller. At most
	 * TRACER_MAX_ENTRY_POINTS entries are looked at; NULL or 0: none.
	 * Frames between the lowest and the highest of these ranges and the
	 * trap entry take the walk's general path, not its fastest one.
	 */
	const struct tracer_range *entry_points;
	unsigned entry_point_count;
};

#define TRACER_MAX_ENTRY_POINTS 16u

#define TRACER_DEFAULT_DEPTH 64u

/*
 * A register state to start from (the call site, or a saved trap frame): the
 * pc and the registers a function must give back to its caller unchanged,
 * which is all an unwinder can recover in the frames above.
 */
struct tracer_regs {
	uintptr_t pc;
	uintptr_t ra;	 /* x1 */
	uintptr_t sp;	 /* x2 */
	uintptr_t s[12]; /* s0 (x8, the frame pointer), s1 (x9), s2-s11 (x18-x27) */
};

#if __riscv_xlen == 32
#define TRACER_STORE_WORD "sw"
#else
#define TRACER_STORE_WORD "sd"
#endif

/*
 * Captures the registers at the point of use into *regs. A macro, so that
 * the captured pc, sp and s-registers belong to the calling function itself.
 */
#define TRACER_CAPTURE_REGS(regs)                                                        \
	__asm__ volatile(                                                                \
	    "auipc %0, 0\n\t"                                                            \
	    "mv %1, ra\n\t"                                                              \
	    "mv %2, sp\n\t" TRACER_STORE_WORD " s0, %3\n\t" TRACER_STORE_WORD            \
	    " s1, %4\n\t" TRACER_STORE_WORD " s2, %5\n\t" TRACER_STORE_WORD              \
	    " s3, %6\n\t" TRACER_STORE_WORD " s4, %7\n\t" TRACER_STORE_WORD              \
	    " s5, %8\n\t" TRACER_STORE_WORD " s6, %9\n\t" TRACER_STORE_WORD              \
	    " s7, %10\n\t" TRACER_STORE_WORD " s8, %11\n\t" TRACER_STORE_WORD            \
	    " s9, %12\n\t" TRACER_STORE_WORD " s10, %13\n\t" TRACER_STORE_WORD           \
	    " s11, %14"                                                                  \
	    : "=&r"((regs)->pc), "=&r"((regs)->ra), "=&r"((regs)->sp),                   \
	      "=m"((regs)->s[0]), "=m"((regs)->s[1]), "=m"((regs)->s[2]),                \
	      "=m"((regs)->s[3]), "=m"((regs)->s[4]), "=m"((regs)->s[5]),                \
	      "=m"((regs)->s[6]), "=m"((regs)->s[7]), "=m"((regs)->s[8]),                \
	      "=m"((regs)->s[9]), "=m"((regs)->s[10]), "=m"((regs)->s[11]))

enum tracer_unwinder {
	TRACER_FRAME_POINTER, /* saved {fp, ra} records below s0 */
	/* .eh_frame call-frame information, found through the FDE index (needs
	 * config->eh_frame and config->fde_index). Restores ra, sp and s0-s11.
	 * Stack: TRACER_STACK_DWARF, most of it rows of the rule table (a
	 * slot per register it restores, CFI_STATE_DEPTH remembered rows:
	 * cfi.h). */
	TRACER_DWARF,
	/* The prologue unwinder (the seed's CompilerTracer): decodes each
	 * function's code from its start (found
	 * in config->symtab) to the pc, to find the frame size and where ra and
	 * s0 were saved. Needs neither frame pointers nor CFI; restores ra, sp
	 * and s0. Reads code only inside config->text. Stack:
	 * TRACER_STACK_PROLOGUE, mostly the decoder's table of constant
	 * registers. */
	TRACER_PROLOGUE,
	/* Per frame: the unwind table where it covers the pc, else DWARF where
	 * an FDE does, else the prologue decoder where the symbol table knows
	 * the function and the decoder understands its code, else the frame
	 * pointer. */
	TRACER_AUTO,
	/* The unwind table (needs config->unwind_table): a lookup (a count of
	 * bits in the block's map, no search) and the row applied; rows the table cannot
	 * express go to the DWARF unwinder (which needs config->eh_frame and
	 * config->fde_index; not linked, TRACER_STOP_UNSUPPORTED_CFI). Restores ra, sp
	 * and s0; s1-s11 keep the callee's values, as in the prologue unwinder. Stack:
	 * TRACER_STACK_TABLE; TRACER_STACK_DWARF if the table has interpreted
	 * rows. */
	TRACER_TABLE,
	TRACER_UNWINDER_COUNT
};

/*
 * The unwinders this build links: each is 1 (the default: all) unless the
 * build defines it 0 and leaves that unwinder's files out (symgen/tracer.mk,
 * TRACER_UNWINDERS). A walk with an unwinder not linked ends with
 * TRACER_STOP_NOT_LINKED; auto uses those linked. The tables only a left-out
 * unwinder reads are not read, and their check functions not built:
 * tracer_fde_index_check() and tracer_eh_frame_check() go with DWARF,
 * tracer_unwind_table_check() with the table (which is also the frame-size
 * witness of frame-pointer and DWARF walks: without it they have none).
 */
#ifndef TRACER_LINKS_FRAME_POINTER
#define TRACER_LINKS_FRAME_POINTER 1
#endif
#ifndef TRACER_LINKS_DWARF
#define TRACER_LINKS_DWARF 1
#endif
#ifndef TRACER_LINKS_PROLOGUE
#define TRACER_LINKS_PROLOGUE 1
#endif
#ifndef TRACER_LINKS_TABLE
#define TRACER_LINKS_TABLE 1
#endif

/*
 * Stack each unwinder needs below its caller's frame, in bytes: the deepest
 * path from tracer_start(), tracer_next() or tracer_prepare(), as GCC 12
 * reports it (-fcallgraph-info=su) for rv64 at -O2, with or without frame
 * pointers.
 * tests/stack_usage.py fails when a change grows past them. The caller's
 * own frame holds struct tracer_walk, a tracer_frame and a line on top.
 * Other compilers and levels differ (-O0 needs more): measure yours so.
 */
#define TRACER_STACK_FRAME_POINTER 464u /* the witness checks table blocks */
#define TRACER_STACK_DWARF	   1040u
#define TRACER_STACK_PROLOGUE	   880u
#define TRACER_STACK_TABLE	   464u /* rows the table holds; interpreted ones: DWARF's */
#define TRACER_STACK_AUTO	   1040u /* the largest of them */
/* What tracer_capture() needs on top of its unwinder's figure. */
#define TRACER_STACK_CAPTURE 624u
/* What tracer_print_backtrace() needs on top of it (put_line's aside). */
#define TRACER_STACK_PRINT 912u

/* Why a walk ended. TRACER_RUNNING while frames remain. */
enum tracer_stop {
	TRACER_RUNNING,
	TRACER_STOP_OUTERMOST,	     /* the first frame of the stack: its sp is the top */
	TRACER_STOP_OUTSIDE_STACK,   /* frame record not inside the declared stack */
	TRACER_STOP_MISALIGNED,	     /* frame pointer not 16-byte aligned (psABI) */
	TRACER_STOP_NOT_ASCENDING,   /* next frame not above the current one: loop or
					corruption */
	TRACER_STOP_PC_OUTSIDE_TEXT, /* return address not inside the declared text */
	TRACER_STOP_DEPTH_LIMIT,     /* max_depth frames printed */
	TRACER_STOP_BAD_UNWINDER,    /* unknown enum tracer_unwinder */
	TRACER_STOP_NO_CFI,	     /* no FDE covers the pc */
	TRACER_STOP_BAD_CFI,	     /* CFI malformed: past its end, bad index, ... */
	TRACER_STOP_UNSUPPORTED_CFI, /* valid CFI this unwinder does not evaluate */
	TRACER_STOP_NO_SYMBOL,	     /* pc in no function of the symbol table */
	TRACER_STOP_UNKNOWN_CODE,    /* code the prologue decoder cannot follow */
	TRACER_STOP_RA_NOT_SAVED,    /* a caller's frame that saved no ra */
	TRACER_STOP_NOT_A_CALL,	     /* return address not just after a call */
	TRACER_STOP_FP_ZERO, /* frame pointer 0 in a frame below the stack's top */
	TRACER_STOP_EARLY_OUTERMOST, /* CFI or code marks a frame below the top as
					the first of its stack */
	TRACER_STOP_BAD_SYMTAB,	     /* the prologue unwinder has no valid symbol table */
	TRACER_STOP_BAD_FDE_INDEX,   /* the DWARF unwinder has no valid FDE index */
	TRACER_STOP_BAD_UNWIND_TABLE, /* the table unwinder has no valid unwind table */
	TRACER_STOP_USER_ENTRY,	      /* a frame in config->entry_points, or a trap
					 from user mode (its sstatus.SPP clear) */
	TRACER_STOP_TRAP_NOT_SAVED,   /* a trap frame past the innermost lacks sepc,
					 scause or stval (TRACER_TRAP_NOT_SAVED) */
	TRACER_STOP_BAD_EH_FRAME,     /* the DWARF unwinder read a damaged .eh_frame */
	TRACER_STOP_FRAME_SIZE,	      /* a caller's CFA (from s0) is not sp plus the
					 frame size its function states */
	TRACER_STOP_NOT_LINKED,	      /* the walk's unwinder is not linked into this
					 build (TRACER_LINKS_*) */
	TRACER_STOP_COUNT
};

/* One frame of the walk. */
struct tracer_frame {
	uintptr_t pc; /* current pc (first frame, interrupted frame) or return address */
	uintptr_t sp; /* stack pointer in this frame */
	uintptr_t fp; /* frame address: s0 as this frame holds it */
	bool is_return_address; /* pc was read from memory: symbolized at pc - 1 */
	bool after_trap;	/* first frame of code a trap interrupted */
	uintptr_t trap_cause;	/* scause, when after_trap */
	uintptr_t trap_tval;	/* stval, when after_trap */
	const char *name;	/* function containing the pc, NULL if unknown */
	uintptr_t offset;	/* pc - function start */
	uintptr_t size;		/* function size */
	/* The unwinder that found this frame from the one before; for a frame
	 * from a register set (the first, the one a trap interrupted), the
	 * walk's own. */
	enum tracer_unwinder found_by;
	/* Found by a fallback of a TRACER_AUTO walk (not the table, not
	 * DWARF, which interprets what the table does not hold):
	 * tracer_format_frame then names found_by after the frame. */
	bool found_by_fallback;
};

/*
 * A walk's state, private to the library: declare one (on the stack is
 * fine) and pass it to tracer_start(). Its size: 36 machine words and 78
 * 32-bit fields (walk.h checks it: 600 bytes on rv64, 456 on rv32).
 */
struct tracer_walk {
	uintptr_t opaque[36 + 78 * 4 / sizeof(uintptr_t)];
};

/* Begins a walk at `regs`. Copies *regs; keeps a pointer to *config.
 * Checks the headers of config->symtab, config->fde_index and
 * config->unwind_table, a few instructions whatever their size; the walk
 * then checks each block of them, and of .eh_frame, the first time it
 * reads it, and each entry it reads (see tracer_symtab_check). A table
 * found damaged is not read again in the walk: tracer_format_note() says
 * so. Its cost does not grow with the tables' size (docs/speed.md). */
void tracer_start(struct tracer_walk *walk, enum tracer_unwinder unwinder,
		  const struct tracer_config *config, const struct tracer_regs *regs);

/* Fills *frame with the next frame and returns true, or returns false once
 * the walk has stopped; tracer_stop_reason() then says why. */
bool tracer_next(struct tracer_walk *walk, struct tracer_frame *frame);

/* Why the walk stopped; TRACER_RUNNING while it has not. */
enum tracer_stop tracer_stop_reason(const struct tracer_walk *walk);

/*
 * Raw capture, for hot paths (allocation sites, lock checking, profiling):
 * the pcs of a walk into an array, no symbolization, no formatting.
 *
 *     static struct tracer_prepared prepared;    (once, at boot)
 *     tracer_prepare(&prepared, &config);
 *     ...
 *     uintptr_t pcs[16];
 *     struct tracer_regs regs;
 *     enum tracer_stop stop;
 *
 *     TRACER_CAPTURE_REGS(&regs);
 *     size_t n = tracer_capture(&prepared, TRACER_FRAME_POINTER, &regs, pcs, 16, &stop);
 *
 * tracer_prepare() checks the tables whole once (every block of every
 * table and of .eh_frame, every entry: about 9 instructions per 8 bytes);
 * tracer_capture() reuses its verdict, so its cost does
 * not depend on the tables' size. Prepare again if the tables may have
 * changed since: a capture reads the tables the verdict accepted, and a
 * damaged one can mislead it (never outside the declared regions, whose
 * checks stay). The config must outlive the prepared form, which points
 * at it.
 *
 * A frame costs tens of instructions for the frame pointer and the table,
 * hundreds for DWARF and the prologue decoder (docs/speed.md, measured by
 * `make bench`).
 */
struct tracer_prepared {
	uintptr_t opaque[1 + 16 / sizeof(uintptr_t)]; /* private: walk.h */
};

void tracer_prepare(struct tracer_prepared *prepared, const struct tracer_config *config);

/*
 * Stores in pcs[] the pc of each frame the walk tracer_start() and
 * tracer_next() would make from *regs with this unwinder (their
 * tracer_frame.pc, in order, the same checks made), at most `max`; returns
 * how many. *stop (if stop is not NULL) gets the walk's stop reason, or
 * TRACER_STOP_DEPTH_LIMIT if frames remained; config->max_depth is not
 * used. pcs[0], and a pc a trap interrupted, are exact; the others are
 * return addresses: look a return address up at pc - 1. Stack:
 * TRACER_STACK_CAPTURE more than the unwinder's TRACER_STACK_* figure (the
 * walk lives in tracer_capture()'s own frame).
 */
size_t tracer_capture(const struct tracer_prepared *prepared,
		      enum tracer_unwinder unwinder, const struct tracer_regs *regs,
		      uintptr_t *pcs, size_t max, enum tracer_stop *stop);

/*
 * The whole trace in one call, each line passed to put_line (NUL-terminated,
 * without newline): the header, the note if a table was rejected, per frame
 * the trap line (a frame a trap interrupted) and the frame line, and the
 * end line; returns the stop reason. The lines are those the loop at the
 * top of this file prints, from one TRACER_LINE_MAX buffer on the stack.
 * Stack: TRACER_STACK_PRINT more than the unwinder's TRACER_STACK_* figure,
 * plus what put_line needs.
 */
typedef void tracer_put_line_fn(void *context, const char *line);
enum tracer_stop tracer_print_backtrace(const struct tracer_config *config,
					const struct tracer_regs *regs,
					enum tracer_unwinder unwinder,
					tracer_put_line_fn *put_line, void *context);

/* Human-readable texts for the output. Never NULL. */
const char *tracer_stop_text(enum tracer_stop stop);
const char *tracer_unwinder_name(enum tracer_unwinder unwinder);
const char *tracer_trap_cause_name(uintptr_t scause);

/* Output lines, NUL-terminated and without newline; each returns buf. */
#define TRACER_LINE_MAX 160
/* " [<0x0000000080201234>] do_work+0x1c/0x60", or raw " [<0x...>]"; in an
 * auto walk, a frame a fallback found ends with " (prologue)" or
 * " (frame-pointer)". */
char *tracer_format_frame(char *buf, size_t size, const struct tracer_frame *frame);
/* "--- trap: load access fault sepc=0x... stval=0x... ---" */
char *tracer_format_trap(char *buf, size_t size, const struct tracer_frame *frame);
/* "Call Trace (frame-pointer unwinder):", "Call Trace (auto unwinder):" */
char *tracer_format_header(char *buf, size_t size, enum tracer_unwinder unwinder);
/* "End of trace: <reason>" */
char *tracer_format_end(char *buf, size_t size, enum tracer_stop stop);
/* "Note: symbol table rejected (checksum mismatch): frames print raw", and
 * the like for the FDE index, the unwind table and .eh_frame, for the
 * tables the walk has rejected since the last call (each once); NULL if
 * none. A walk finds damage as it reads: call it before each frame line
 * and before the end line. */
char *tracer_format_note(char *buf, size_t size, struct tracer_walk *walk);

/* The code of the function holding addr, [start, start + size), as the
 * table sizes it (symgen: up to the next label, for assembly without
 * .size): a trap->entry or config->entry_points range for code without an
 * end symbol (a C function, a vector). Checks config->symtab first
 * (tracer_symtab_check); an empty range at addr if it is rejected or addr
 * lies in no function. */
struct tracer_range tracer_function_range(const struct tracer_config *config,
					  uintptr_t addr);

#endif /* TRACER_H */
