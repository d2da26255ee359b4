/*
 * walk.h - a walk's private state and what the files of the library share
 * about it: the unwinders' steps, the stacks, the checks every step makes.
 */
#ifndef TRACER_WALK_H
#define TRACER_WALK_H

#include "cie.h"
#include "memory.h"
#include "search.h"
#include "tracer_tables.h"

/* Code a panic runs once, not once a frame (the iterator's start, a trap
 * frame, the output lines; and the checks of whole tables, at boot): cold,
 * as Linux marks panic(), so that the compiler optimizes it for size and
 * places it apart from the kernel's hot code (.text.unlikely). */
#define TRACER_COLD __attribute__((cold))
/* The setup every walk shares: cold too, unless the raw capture is linked,
 * which hot paths (allocation sites, profiling) call again and again. */
#if TRACER_LINKS_CAPTURE
#define TRACER_COLD_UNLESS_CAPTURE
#else
#define TRACER_COLD_UNLESS_CAPTURE TRACER_COLD
#endif

/* The psABI keeps sp 16-byte aligned at calls, so every frame address is too. */
#define TRACER_STACK_ALIGN 16u

/* The entries of tracer_regs.s[] a walk keeps: the DWARF and prologue
 * unwinders restore s0-s11, the frame pointer and the table s0 only, so a
 * kernel that links neither of the first two copies and reads no other. */
#define TRACER_SAVED_REGS (TRACER_LINKS_DWARF || TRACER_LINKS_PROLOGUE ? 12u : 1u)
_Static_assert(sizeof(((struct tracer_regs *)0)->s) == 12 * sizeof(uintptr_t),
	       "tracer_regs.s[] holds s0-s11");

/* The blocks a walk remembers having checked: 2^TRACER_VERIFIED_SHIFT. */
#define TRACER_VERIFIED_SHIFT 5u

/* The state of a walk, inside the caller's struct tracer_walk. */
struct walk {
	enum tracer_stop stop;
	/* The tables as the walk found them so far (tracer_start() checks
	 * their headers, the walk each block it reads); only OK ones are
	 * read. .eh_frame is checked by the FDE index's hashes. */
	enum tracer_table_status symtab_status;
	enum tracer_table_status fde_index_status;
	enum tracer_table_status unwind_table_status;
	enum tracer_table_status eh_frame_status;
	enum tracer_unwinder unwinder;
	unsigned frames_left; /* of config->max_depth */
	const struct tracer_config *config;
	struct tracer_regs next; /* the frame tracer_next() returns next */
	const struct tracer_symbol *next_function; /* its function, */
	bool next_function_known;		   /* once looked up */
	bool symtab_searchable;
	enum tracer_unwinder next_found_by;
	bool next_is_exact; /* registers came from a register set, not from memory */
	bool next_after_trap;
	bool next_from_user;	     /* after a trap from user mode: the walk ends */
	bool innermost_trap_crossed; /* config->trap_csrs and trap_frame are its */
	bool fde_searchable;	     /* the FDE index is valid and not empty */
	/* The trap that walk->next came from, when next_after_trap, else 0. */
	uintptr_t trap_cause;
	uintptr_t trap_tval;
	uintptr_t trap_frame; /* its address */
	/* The symbol table's search (sorted_search_from), set up once a walk,
	 * if the table is valid and not empty (symtab_searchable). */
	uint32_t symtab_levels;
	uint32_t symtab_first_probe;
	/* The FDE index's, the same way (if fde_searchable). */
	uint32_t fde_levels;
	uint32_t fde_first_probe;
	/* The current stack (a copy: reads check it without searching the
	 * list), its index in config->stacks (TRACER_MAX_STACKS: none, and
	 * the range empty), and a bit per stack the walk has left. */
	struct tracer_range stack;
	unsigned stack_index;
	uint32_t stacks_left;
	/* The checks of the common paths, as windows: frame pointers whose
	 * record lies in the stack, return addresses with 4 bytes of text
	 * before them (with a valid unwind table: whose call its blocks
	 * cover, too, where a row may state a frame size). */
	struct window record_window;
	struct window call_window;
#if TRACER_LINKS_CAPTURE
	/* Returns into the trap entry or into an entry point (the span of
	 * them all): the capture's loops leave them to the step, which tells
	 * them apart. */
	struct window trap_return_window;
#endif
	/* The DWARF unwinder's last CIE (address UINTPTR_MAX: none yet):
	 * most FDEs share one, read once a walk. */
	struct tracer_cie cie;
	/* The rejections tracer_format_note() has reported: a bit each. */
	unsigned noted;
	/* tracer_prepare() checked every block: none is checked again. */
	bool tables_verified;
	/* The line table (tracer_start() checks its header, the first lookup
	 * its arrays: lines_verified). While the frames of walk->next's code
	 * are returned (lines_pending: the calls inlined there, innermost
	 * first, then the function's own), the next one's inlined call (0:
	 * the function's own frame) and its place. */
	enum tracer_table_status lines_status;
	bool lines_verified;
	bool lines_pending;
	uint32_t line_call;
	uint32_t line_file;
	uint32_t line_line;
	/* The blocks checked so far (verify.c): a cache of their ids, in sets
	 * of two slots; slot i valid if bit i of verified_valid is set. And
	 * per array kind the last blocks read, first to last (if bit kind of
	 * recent_valid is set). */
	uint32_t verified_valid;
	uint32_t verified[1u << TRACER_VERIFIED_SHIFT];
	uint32_t recent_valid;
	uint32_t recent_first[TRACER_HASHED_KINDS];
	uint32_t recent_last[TRACER_HASHED_KINDS];
};

_Static_assert(sizeof(struct walk) <= sizeof(struct tracer_walk),
	       "struct tracer_walk (tracer.h) is too small for struct walk");
_Static_assert(_Alignof(struct walk) <= _Alignof(struct tracer_walk),
	       "struct tracer_walk is less aligned than struct walk");

/* Whether tracer_prepare() checked every block of the walk's tables (a
 * capture's walk): none is checked again. Never in a build without the
 * capture, whose checks of what a walk reads are then its only ones. */
static inline bool walk_tables_verified(const struct walk *walk)
{
	return TRACER_LINKS_CAPTURE && walk->tables_verified;
}

/* tracer_prepare()'s verdict on a config's tables (tables.c), inside the
 * caller's struct tracer_prepared. */
struct prepared {
	const struct tracer_config *config;
	enum tracer_table_status symtab_status;
	enum tracer_table_status fde_index_status;
	enum tracer_table_status unwind_table_status;
	enum tracer_table_status eh_frame_status;
};

_Static_assert(sizeof(struct prepared) <= sizeof(struct tracer_prepared),
	       "struct tracer_prepared (tracer.h) is too small for struct prepared");

static inline struct prepared *prepared_of(struct tracer_prepared *prepared)
{
	return (struct prepared *)(void *)prepared;
}

/* The walk inside a caller's struct tracer_walk. */
static inline struct walk *walk_of(struct tracer_walk *walk)
{
	return (struct walk *)(void *)walk;
}

/*
 * One unwinding step: from the frame in walk->next (already returned to the
 * caller), computes its caller into walk->next, or sets walk->stop.
 */
void frame_pointer_step(struct walk *walk);

void dwarf_step(struct walk *walk);
void prologue_step(struct walk *walk);
/* False, with walk->next as it was, for a row the table marks "interpret":
 * the caller runs dwarf_step() itself, so that the table's frame is not
 * below the DWARF unwinder's on the stack. */
bool table_step(struct walk *walk);

/* The raw capture's loop over the frames most walks are made of (a
 * caller's frame whose return address follows `jal ra` or `jalr ra`):
 * makes callers of walk->next walk->next, for up to `max` frames, each
 * caller's pc stored in pcs[]; returns how many. Stops short, changing
 * nothing more, at any other frame: the step for any frame
 * (frame_pointer_step(), table_step()) then decides, with a stop reason. */
size_t frame_pointer_run(struct walk *walk, uintptr_t *pcs, size_t max);
size_t table_run(struct walk *walk, uintptr_t *pcs, size_t max);

/* The check of a symbol table search (verify.c), unless the walk's
 * tables_verified: `symbol`, the search's answer for addr, if it holds
 * addr and it and its name are the intact table's; NULL if it does not
 * hold addr, or the table is rejected (for the rest of the walk). */
const struct tracer_symbol *
walk_symbol_check(struct walk *walk, const struct tracer_symbol *symbol, uintptr_t addr);

/* The last symbol at or below addr in a symbol table of count >= 1
 * entries, levels sorted_levels(count) and first_probe its
 * sorted_first_probe(): the search, out of line, in one copy (symtab.c). */
const struct tracer_symbol *symtab_search(const struct tracer_symtab *symtab,
					  uint32_t first_probe, unsigned levels,
					  uintptr_t addr);

/* The function holding addr in the walk's symbol table, if that is valid:
 * the search walk_begin set up; its answer and the name checked
 * (walk_symbol_check) unless tracer_prepare() checked it all. */
static inline const struct tracer_symbol *walk_symtab_search(struct walk *walk,
							     uintptr_t addr)
{
	const struct tracer_symbol *symbol;

	if (!TRACER_LINKS_SYMBOLS || !walk->symtab_searchable)
		return NULL;
	symbol = symtab_search(walk->config->symtab, walk->symtab_first_probe,
			       walk->symtab_levels, addr);
	return walk_tables_verified(walk) ? symbol_holding(symbol, addr)
					  : walk_symbol_check(walk, symbol, addr);
}
/* Whether address lies in one of the first `count` of `ranges` (at most
 * TRACER_MAX_ENTRY_POINTS): config->entry_points, config->task_entries. */
bool ranges_contain(const struct tracer_range *ranges, unsigned count, uintptr_t address);

/* The walk's trap_return_window: the return addresses whose call lies in
 * the trap entry or an entry point, or between them. */
#if TRACER_LINKS_CAPTURE
struct window entry_points_return_window(const struct tracer_config *config);
#endif

/* Makes the stack that holds walk->next.sp (tracer_config's rules) the
 * walk's current one, having left none. */
void stacks_start(struct walk *walk);

/* tracer_start() with the tables' statuses given: their headers' (then
 * each block is checked as the walk reads it), or tracer_prepare()'s
 * verdict on all of them (`verified`). */
void walk_begin(struct walk *walk, enum tracer_unwinder unwinder,
		const struct tracer_config *config, const struct tracer_regs *regs,
		enum tracer_table_status symtab_status,
		enum tracer_table_status fde_index_status,
		enum tracer_table_status unwind_table_status,
		enum tracer_table_status eh_frame_status, bool verified);

/* The part of walk_begin() that symbol lookups (walk_symtab_search) need:
 * also tracer_function_range()'s, which reads nothing else. */
void walk_begin_symbols(struct walk *walk, const struct tracer_config *config,
			enum tracer_table_status symtab_status, bool verified);

/* Computes the caller of the frame in walk->next: into walk->next, or sets
 * walk->stop. The step of tracer_next(), and of the capture for the frames
 * its loops leave. */
void walk_advance(struct walk *walk);

/* The function of the frame in walk->next, if the walk's symbol table is
 * valid and has it, else NULL: looked up once a frame, when the frame is
 * symbolized or an unwinder needs it. */
const struct tracer_symbol *walk_function(struct walk *walk);

/* walk->stack_index when sp is on no declared stack. */
#define STACKS_NONE TRACER_MAX_STACKS

/*
 * The frame at walk->next returns into the trap entry, which called its
 * handler with sp pointing at the trap frame: continues from the registers
 * saved there, or sets walk->stop. The interrupted pc is exact (not a
 * return address). The interrupted sp chooses the stack the walk goes on
 * with: the trap may have switched to this one (an interrupt stack) from
 * another, never from one the walk left. A frame on no stack is shown, and
 * the walk stops after it.
 */
void stacks_cross_trap(struct walk *walk);

/*
 * Whether cfa, the caller's sp an unwinder computed, may follow the frame in
 * walk->next: inside the stack (its top included) and above the callee's sp,
 * strictly so past the first frame of a register set, where a function
 * without a frame has CFA == sp. TRACER_RUNNING if so, else why not.
 * Inline: every unwinder checks every frame so.
 */
static inline enum tracer_stop frame_check_cfa(const struct walk *walk, uintptr_t cfa)
{
	if (cfa <= walk->stack.start || cfa > walk->stack.end)
		return TRACER_STOP_OUTSIDE_STACK;
	if (cfa < walk->next.sp || (cfa == walk->next.sp && !walk->next_is_exact))
		return TRACER_STOP_NOT_ASCENDING;
	return TRACER_RUNNING;
}

/* The stop for a frame its unwinder found to be the first of its stack
 * (ra undefined, s0 = 0, sp set from an address): TRACER_STOP_OUTERMOST
 * only if its sp, or `cfa`, the sp it was entered with, is the top of the
 * declared stack, else `early`: the claim is false, callers may remain. */
enum tracer_stop frame_outermost(const struct walk *walk, uintptr_t cfa,
				 enum tracer_stop early);

/*
 * The general steps' second witness (frame_size_agrees) for the frame in
 * walk->next, whose CFA the step took from s0 as `cfa`, before the step
 * changes walk->next: TRACER_STOP_FRAME_SIZE if the frame's row states a
 * size that disagrees, else TRACER_RUNNING. Only a caller's frame is
 * checked: a register set's s0 is the register's, not a saved slot, and
 * its pc may lie in a prologue or an epilogue, where sp moves under an
 * s0-based row. Out of line: it runs after the deepest part of no step.
 */
enum tracer_stop frame_size_check(struct walk *walk, uintptr_t cfa);

/*
 * The output lines' bounded builder (format.c; fault.c's lines too): what
 * does not fit is cut off, and the line stays NUL-terminated.
 */
struct line {
	char *buf;
	size_t size;
	size_t len;
};

/* An empty line in buf (none if size is 0: nothing is written then). */
static inline struct line format_line_begin(char *buf, size_t size)
{
	struct line line = {buf, size, 0};

	if (size > 0)
		buf[0] = '\0';
	return line;
}

/*
 * Appends fmt to the line, each conversion replaced by the next argument.
 * No libc, so no printf: only what the output lines need.
 *   %s  a string
 *   %a  an address (uintptr_t): 0x and every digit of a word (ADDR_DIGITS)
 *   %x  a uintptr_t: 0x and its digits, at least one (an offset, a size)
 *   %r  a register (uintptr_t): every digit of a word, without 0x (Linux's
 *       REG_FMT)
 *   %h  a 16-bit code parcel (unsigned): four digits, without 0x
 *   %u  an unsigned in decimal (a line number)
 */
void format_add(struct line *line, const char *fmt, ...);

/* Addresses print at full width: 16 digits on rv64, 8 on rv32. */
#define ADDR_DIGITS (2 * sizeof(uintptr_t))

#endif /* TRACER_WALK_H */
