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
 *         if (frame.after_trap)
 *             print(tracer_format_trap(line, sizeof line, &frame));
 *         print(tracer_format_frame(line, sizeof line, &frame));
 *     }
 *     print(tracer_format_end(line, sizeof line, walk.stop));
 *
 * The walk reads memory only inside the regions the caller declares in
 * struct tracer_config; anything else ends it with a stop reason.
 */
#ifndef TRACER_H
#define TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A half-open address range [start, end). */
struct tracer_range {
	uintptr_t start;
	uintptr_t end;
};

/* One function of the symbol table that symgen embeds into the image. */
struct tracer_symbol {
	uintptr_t addr; /* first instruction */
	uint32_t size;	/* bytes of code */
	uint32_t name;	/* offset of the NUL-terminated name in names[] */
};

/* The embedded table: symbols sorted by addr, one entry per address. */
struct tracer_symtab {
	const struct tracer_symbol *symbols;
	uint32_t count;
	const char *names;
};

/*
 * How the kernel's trap entry saves the interrupted state. Contract: the
 * entry code stores the registers in a trap frame and calls its C handler
 * with sp pointing at that trap frame. A return address inside `entry` then
 * tells the unwinder that a trap frame starts at the caller's sp.
 * The offsets are bytes from the start of the trap frame to each saved
 * register, one machine word each.
 */
struct tracer_trap_layout {
	struct tracer_range entry; /* code of the trap entry */
	uint16_t epc_offset;	   /* sepc: the interrupted pc */
	uint16_t ra_offset;	   /* x1 */
	uint16_t sp_offset;	   /* x2, the interrupted sp */
	uint16_t fp_offset;	   /* x8 (s0) */
	uint16_t cause_offset;	   /* scause */
	uint16_t tval_offset;	   /* stval */
};

/* What the walk may read and believe. Filled in by the kernel. */
struct tracer_config {
	struct tracer_range text;  /* every pc must lie in here */
	struct tracer_range stack; /* the stack being walked: all reads stay inside */
	const struct tracer_symtab *symtab;    /* NULL: frames print raw */
	const struct tracer_trap_layout *trap; /* NULL: never cross a trap */
	unsigned max_depth; /* frames to print at most; 0 means TRACER_DEFAULT_DEPTH */
};

#define TRACER_DEFAULT_DEPTH 64u

/* A register state to start from: the call site, or a saved trap frame. */
struct tracer_regs {
	uintptr_t pc;
	uintptr_t ra;
	uintptr_t sp;
	uintptr_t fp; /* s0 */
};

/*
 * Captures the registers at the point of use into *regs. A macro, so that
 * the captured pc, sp and s0 belong to the calling function itself.
 */
#define TRACER_CAPTURE_REGS(regs)                                                        \
	__asm__ volatile("auipc %0, 0\n\t"                                               \
			 "mv %1, ra\n\t"                                                 \
			 "mv %2, sp\n\t"                                                 \
			 "mv %3, s0"                                                     \
			 : "=&r"((regs)->pc), "=&r"((regs)->ra), "=&r"((regs)->sp),      \
			   "=&r"((regs)->fp))

enum tracer_unwinder {
	TRACER_FRAME_POINTER, /* saved {fp, ra} records below s0 */
	TRACER_UNWINDER_COUNT
};

/* Why a walk ended. TRACER_RUNNING while frames remain. */
enum tracer_stop {
	TRACER_RUNNING,
	TRACER_STOP_OUTERMOST,	     /* frame pointer 0: the first frame of the stack */
	TRACER_STOP_OUTSIDE_STACK,   /* frame record not inside the declared stack */
	TRACER_STOP_MISALIGNED,	     /* frame pointer not 16-byte aligned (psABI) */
	TRACER_STOP_NOT_ASCENDING,   /* next frame not above the current one: loop or
					corruption */
	TRACER_STOP_PC_OUTSIDE_TEXT, /* return address not inside the declared text */
	TRACER_STOP_DEPTH_LIMIT,     /* max_depth frames printed */
	TRACER_STOP_BAD_UNWINDER,    /* unknown enum tracer_unwinder */
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
};

/* Walk state. Fields are private to the library except `stop`. */
struct tracer_walk {
	enum tracer_stop stop;
	enum tracer_unwinder unwinder;
	const struct tracer_config *config;
	struct tracer_regs next; /* the frame tracer_next() returns next */
	bool next_is_exact;	 /* registers came from a register set, not from memory */
	bool next_after_trap;
	uintptr_t trap_cause;
	uintptr_t trap_tval;
	unsigned depth;
};

/* Begins a walk at `regs`. Copies *regs; keeps a pointer to *config. */
void tracer_start(struct tracer_walk *walk, enum tracer_unwinder unwinder,
		  const struct tracer_config *config, const struct tracer_regs *regs);

/* Fills *frame with the next frame and returns true, or returns false once
 * the walk has stopped; walk->stop then says why. */
bool tracer_next(struct tracer_walk *walk, struct tracer_frame *frame);

/* Human-readable texts for the output. Never NULL. */
const char *tracer_stop_text(enum tracer_stop stop);
const char *tracer_unwinder_name(enum tracer_unwinder unwinder);
const char *tracer_trap_cause_name(uintptr_t scause);

/* Output lines, NUL-terminated and without newline; each returns buf. */
#define TRACER_LINE_MAX 160
/* " [<0x0000000080201234>] do_work+0x1c/0x60", or raw " [<0x...>]" */
char *tracer_format_frame(char *buf, size_t size, const struct tracer_frame *frame);
/* "--- trap: load access fault sepc=0x... stval=0x... ---" */
char *tracer_format_trap(char *buf, size_t size, const struct tracer_frame *frame);
/* "Call Trace (frame-pointer unwinder):" */
char *tracer_format_header(char *buf, size_t size, enum tracer_unwinder unwinder);
/* "End of trace: <reason>" */
char *tracer_format_end(char *buf, size_t size, enum tracer_stop stop);

/* Function containing addr, or NULL if addr is in a gap or outside the table. */
const struct tracer_symbol *tracer_symtab_lookup(const struct tracer_symtab *symtab,
						 uintptr_t addr);
/* Function named `name`, or NULL. Linear: for commands, not for unwinding. */
const struct tracer_symbol *tracer_symtab_find(const struct tracer_symtab *symtab,
					       const char *name);
static inline const char *tracer_symbol_name(const struct tracer_symtab *symtab,
					     const struct tracer_symbol *symbol)
{
	return symtab->names + symbol->name;
}

#endif /* TRACER_H */
