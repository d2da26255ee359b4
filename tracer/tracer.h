/*
 * tracer.h - symbolized backtraces for RISC-V kernels (rv32 and rv64): the
 * header a port includes. Freestanding: <stdint.h>, <stddef.h>, <stdbool.h>.
 * From a panic handler, with no allocation (put_line prints one line):
 *
 *     struct tracer_regs regs;
 *     TRACER_CAPTURE_REGS(&regs);
 *     tracer_print_backtrace(&config, &regs, TRACER_AUTO, put_line, NULL);
 *
 * or frame by frame with tracer_start() and tracer_next() (docs/porting.md).
 * The walk reads memory only inside the regions struct tracer_config
 * declares, and believes a caller only if its frame lies above the one
 * before, on the current stack, and its return address follows a call.
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
struct tracer_lines;

/* A half-open address range [start, end). */
struct tracer_range {
	uintptr_t start;
	uintptr_t end;
};

/*
 * How the kernel's trap entry saves the interrupted state: it stores the
 * registers in a trap frame and calls its C handler with sp pointing at it
 * (or config->trap_frame says where it is), so a return address inside
 * `entry` says a trap frame starts at the caller's sp. Offsets are bytes
 * from the frame's start, a word each; set them in a designated initializer
 * (0 is an offset; a field a later version adds is then 0, its old meaning).
 * A slot the vector does not save is TRACER_TRAP_NOT_SAVED:
 * then give config->trap_csrs for epc/cause/tval, frame_size for sp
 * (docs/porting.md, step 6).
 */
#define TRACER_TRAP_NOT_SAVED 0xffffu

/* The privilege a trap entry runs in. */
enum tracer_trap_mode {
	TRACER_TRAP_SUPERVISOR, /* S-mode: sepc, scause, stval, sstatus */
	TRACER_TRAP_MACHINE,	/* M-mode (RTOS kernels): mepc, mcause, mtval, mstatus */
};

struct tracer_trap_layout {
	struct tracer_range entry; /* code of the trap entry */
	uint16_t epc_offset;	   /* sepc/mepc: the interrupted pc */
	uint16_t ra_offset;	   /* x1 */
	uint16_t sp_offset;	   /* x2, the interrupted sp */
	/* s0 (x8), s1 (x9), s2-s11 (x18-x27): s1-s11 read only by a kernel
	 * that links DWARF or the prologue decoder, which restore them. */
	uint16_t s_offset[12];
	uint16_t cause_offset; /* scause/mcause */
	uint16_t tval_offset;  /* stval/mtval */
	/* sstatus/mstatus: a trap from user mode, where the walk ends after
	 * the interrupted pc, has SPP (bit 8) clear, or MPP (bits 11-12) 0. */
	uint16_t status_offset;
	uint16_t frame_size; /* with sp_offset TRACER_TRAP_NOT_SAVED: see above */
	uint8_t mode;	     /* enum tracer_trap_mode; 0 is S-mode */
	/* Added to epc before saving it, for exceptions only (FreeRTOS saves
	 * mepc + 4, past an ecall): subtracted from an exception's epc. */
	uint8_t exception_epc_added;
};

/* The CSRs as the kernel read them at panic time, for a layout that does
 * not save them: the innermost trap frame's. */
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
	/* The stacks the walk may read, any order, each [start, end) with end
	 * the top; it changes stack only across a trap frame (docs/design.md). */
	const struct tracer_range *stacks;
	unsigned stack_count;
	const struct tracer_symtab *symtab;    /* NULL: frames print raw */
	const struct tracer_trap_layout *trap; /* NULL: never cross a trap */
	struct tracer_range eh_frame; /* .eh_frame: the CFI the DWARF unwinder reads */
	const struct tracer_fde_index *fde_index;	/* NULL: no DWARF unwinding */
	const struct tracer_unwind_table *unwind_table; /* NULL: no table unwinding */
	/* The line table and inlined calls (symgen, -g); NULL: no file:line. */
	const struct tracer_lines *lines;
	/* Where symgen's tables lie (linker/tracer_symtab.ld); a table outside
	 * is rejected. */
	struct tracer_range tables;
	unsigned
	    max_depth; /* frames at most (inlined calls aside); 0: TRACER_DEFAULT_DEPTH */
	const struct tracer_trap_csrs *trap_csrs; /* NULL: none */
	/* The innermost trap frame's address, for an entry that moves sp to
	 * an ISR stack after saving it (RTOS vectors); 0: at the handler's sp. */
	uintptr_t trap_frame;
	/* Code entered from user mode by a jump (usertrap() from a
	 * trampoline): the walk ends after a frame in one. */
	const struct tracer_range *entry_points;
	unsigned entry_point_count;
	/* Functions a task starts in with ra = 0 (an RTOS's tasks): the walk's
	 * outermost frame. At most TRACER_MAX_ENTRY_POINTS, as entry_points. */
	const struct tracer_range *task_entries;
	unsigned task_entry_count;
	/* tracer_print_backtrace() prints tracer_format_fault()'s report
	 * after an exception's trap line. */
	bool fault_report;
};

#define TRACER_MAX_ENTRY_POINTS 16u
#define TRACER_DEFAULT_DEPTH	64u

/* A register state to start from: the pc, and the registers a function
 * gives back to its caller unchanged (all an unwinder can recover above). */
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

/* Captures the registers here into *regs: a macro, so that they are the
 * calling function's own. */
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
	TRACER_DWARF,	      /* .eh_frame's CFI, through the FDE index */
	TRACER_PROLOGUE,      /* decodes the function's code up to the pc */
	TRACER_AUTO,	      /* per frame, the first that applies: table, DWARF,
				 prologue, frame pointer */
	TRACER_TABLE,	      /* symgen's compiled CFI; other rows go to DWARF */
	TRACER_UNWINDER_COUNT
};

/* What this build links: each 1 unless the build defines it 0 and leaves
 * its files out (symgen/tracer_sources.mk). A walk with an unwinder not
 * linked ends with TRACER_STOP_NOT_LINKED; auto uses those linked. The
 * line table (lines.c; frames print without file:line), the fault report
 * (fault.c), the raw capture (below) and the symbol table (symtab.c;
 * frames print raw, for the host to name, and neither the prologue
 * decoder nor the lines, which read it, is linked) are options too. */
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
#ifndef TRACER_LINKS_SYMBOLS
#define TRACER_LINKS_SYMBOLS 1
#endif
#ifndef TRACER_LINKS_LINES
#define TRACER_LINKS_LINES 1
#endif
#ifndef TRACER_LINKS_FAULT_REPORT
#define TRACER_LINKS_FAULT_REPORT 1
#endif
/* The raw capture (capture.c) and what trusts a table checked whole: the
 * tracer_*_check() functions and the symbol lookups (tracer_tables.h). */
#ifndef TRACER_LINKS_CAPTURE
#define TRACER_LINKS_CAPTURE 1
#endif
#if !TRACER_LINKS_SYMBOLS && (TRACER_LINKS_PROLOGUE || TRACER_LINKS_LINES)
#error "TRACER_LINKS_SYMBOLS 0 needs TRACER_LINKS_PROLOGUE 0 and TRACER_LINKS_LINES 0"
#endif

/* Stack each unwinder needs below its caller's frame, in bytes: GCC 12's
 * deepest path, rv64 -O2 (tests/stack_usage.py); -O0 needs more. */
#define TRACER_STACK_FRAME_POINTER 480u /* the witness checks table blocks */
#define TRACER_STACK_DWARF	   1040u
#define TRACER_STACK_PROLOGUE	   880u
#define TRACER_STACK_TABLE	   464u /* rows the table holds; interpreted ones: DWARF's */
#define TRACER_STACK_AUTO	   1040u /* the largest of them */
#define TRACER_STACK_CAPTURE	   624u	 /* tracer_capture(): on top of the unwinder's */
#define TRACER_STACK_PRINT	   960u	 /* tracer_print_backtrace(), put_line aside */
#define TRACER_STACK_LINES	   192u /* the line table's checks and lookups: in each above */

/* Why a walk ended. TRACER_RUNNING while frames remain. */
enum tracer_stop {
	TRACER_RUNNING,
	TRACER_STOP_OUTERMOST,	     /* the first frame of the stack: its sp is the top */
	TRACER_STOP_OUTSIDE_STACK,   /* frame record not inside the declared stack */
	TRACER_STOP_MISALIGNED,	     /* frame pointer not 16-byte aligned (psABI) */
	TRACER_STOP_NOT_ASCENDING,   /* next frame not above this one: loop, corruption */
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
	TRACER_STOP_EARLY_OUTERMOST, /* a frame below the top marked as the first */
	TRACER_STOP_BAD_SYMTAB,	     /* the prologue unwinder has no valid symbol table */
	TRACER_STOP_BAD_FDE_INDEX,   /* the DWARF unwinder has no valid FDE index */
	TRACER_STOP_BAD_UNWIND_TABLE, /* the table unwinder has no valid unwind table */
	TRACER_STOP_USER_ENTRY,	      /* an entry point, or a trap from user mode */
	TRACER_STOP_TRAP_NOT_SAVED,   /* an outer trap frame lacks sepc/scause/stval */
	TRACER_STOP_BAD_EH_FRAME,     /* the DWARF unwinder read a damaged .eh_frame */
	TRACER_STOP_FRAME_SIZE,	      /* CFA (from s0) not sp + the frame's size */
	TRACER_STOP_NOT_LINKED,	      /* unwinder not in this build (TRACER_LINKS_*) */
	TRACER_STOP_MACHINE_TRAP_NOT_SAVED, /* the same, M-mode: mepc/mcause/mtval */
	TRACER_STOP_COUNT
};

/* One frame of the walk. */
struct tracer_frame {
	uintptr_t pc; /* current pc (first frame, interrupted frame) or return address */
	uintptr_t sp; /* stack pointer in this frame */
	uintptr_t fp; /* frame address: s0 as this frame holds it */
	bool is_return_address; /* pc was read from memory: symbolized at pc - 1 */
	bool after_trap;	/* first frame of code a trap interrupted */
	/* Whether an auto walk's fallback (not the table or DWARF) found it,
	 * and which unwinder did: tracer_format_frame() names a fallback. */
	bool found_by_fallback;
	bool trap_machine_mode; /* the trap layout's mode is TRACER_TRAP_MACHINE */
	enum tracer_unwinder found_by;
	uintptr_t trap_cause; /* scause (mcause), when after_trap */
	uintptr_t trap_tval;  /* stval (mtval), when after_trap */
	uintptr_t trap_frame; /* where the trap frame lies, when after_trap */
	const char *name;     /* function containing the pc, NULL if unknown */
	uintptr_t offset;     /* pc - function start */
	uintptr_t size;	      /* function size */
	/* Where the pc is in the source, NULL and 0 if not known. Calls the
	 * compiler inlined at the pc come first, innermost first, each a frame
	 * of its own (inlined: no offset or size), then the function's own
	 * frame at the line of the call, as GDB's bt shows them. */
	const char *file;
	uint32_t line;
	bool inlined;
};

/* A walk's state, private to the library (walk.h checks its size: 36
 * words and 84 32-bit fields). Declare one, on the stack is fine. */
struct tracer_walk {
	uintptr_t opaque[36 + 84 * 4 / sizeof(uintptr_t)];
};

/* Begins a walk at *regs (copied), keeping a pointer to *config. A table
 * found damaged is no longer read, and tracer_format_note() says so. */
void tracer_start(struct tracer_walk *walk, enum tracer_unwinder unwinder,
		  const struct tracer_config *config, const struct tracer_regs *regs);

/* The next frame into *frame and true; false once the walk has stopped. */
bool tracer_next(struct tracer_walk *walk, struct tracer_frame *frame);

/* Why the walk stopped; TRACER_RUNNING while it has not. */
enum tracer_stop tracer_stop_reason(const struct tracer_walk *walk);

/* Raw capture for hot paths (allocation sites, lock checking, profiling):
 * pcs only (docs/porting.md). tracer_prepare() checks the tables whole,
 * once; tracer_capture() trusts that verdict and keeps every other check.
 * The config must outlive the prepared form. Linked with
 * TRACER_LINKS_CAPTURE only. */
struct tracer_prepared {
	uintptr_t opaque[1 + 16 / sizeof(uintptr_t)]; /* private: walk.h */
};

void tracer_prepare(struct tracer_prepared *prepared, const struct tracer_config *config);

/* The pcs the iterator would return from *regs, at most `max`: returns how
 * many, and *stop (if not NULL) why it ended. pcs[0] and a pc a trap
 * interrupted are exact; look the others up at pc - 1. */
size_t tracer_capture(const struct tracer_prepared *prepared,
		      enum tracer_unwinder unwinder, const struct tracer_regs *regs,
		      uintptr_t *pcs, size_t max, enum tracer_stop *stop);

/* The whole trace in one call, each line passed to put_line
 * (NUL-terminated, no newline); returns the stop reason. */
typedef void tracer_put_line_fn(void *context, const char *line);
enum tracer_stop tracer_print_backtrace(const struct tracer_config *config,
					const struct tracer_regs *regs,
					enum tracer_unwinder unwinder,
					tracer_put_line_fn *put_line, void *context);

/* Human-readable texts for the output. Never NULL. */
const char *tracer_stop_text(enum tracer_stop stop);
const char *tracer_unwinder_name(enum tracer_unwinder unwinder);
const char *tracer_trap_cause_name(uintptr_t cause); /* scause or mcause */

/* Output lines, NUL-terminated and without newline, cut to size - 1
 * characters (size 0: nothing written); each returns buf. */
#define TRACER_LINE_MAX 192
/* " [<0x0000000080201234>] do_work+0x1c/0x60 (kernel/work.c:42)", raw
 * " [<0x...>]", " [inlined] helper (kernel/lab.c:18)", a fallback's
 * " (prologue)" before the symbol, ... (docs/output-format.md). */
char *tracer_format_frame(char *buf, size_t size, const struct tracer_frame *frame);
/* "--- trap: load access fault sepc=0x... stval=0x... ---" (in machine
 * mode mepc= and mtval=) */
char *tracer_format_trap(char *buf, size_t size, const struct tracer_frame *frame);
/* Line `index` (0, 1, ...) of the oops-style report of an after_trap
 * frame's trap frame, NULL past the last: "epc : ... ra : ... sp : ...",
 * three registers a line as Linux's __show_regs(); "status: ... badaddr:
 * ... cause: ..."; "Code: ..." around the pc (docs/output-format.md). */
char *tracer_format_fault(char *buf, size_t size, const struct tracer_config *config,
			  const struct tracer_frame *frame, unsigned index);
/* "Call Trace (frame-pointer unwinder):", "Call Trace (auto unwinder):" */
char *tracer_format_header(char *buf, size_t size, enum tracer_unwinder unwinder);
/* "End of trace: <reason>" */
char *tracer_format_end(char *buf, size_t size, enum tracer_stop stop);
/* "Note: symbol table rejected (checksum mismatch): frames print raw", and
 * the like, for the tables rejected since the last call; NULL if none. A
 * walk finds damage as it reads: call it before each line. */
char *tracer_format_note(char *buf, size_t size, struct tracer_walk *walk);

/* The function holding addr, as the symbol table sizes it (a trap->entry
 * or entry_points range); empty at addr if the table has none, or if
 * what the lookup reads does not hold (checked as a walk checks it). Its
 * stack: at most TRACER_STACK_PRINT. Linked with TRACER_LINKS_SYMBOLS
 * only. */
struct tracer_range tracer_function_range(const struct tracer_config *config,
					  uintptr_t addr);

#endif /* TRACER_H */
