/*
 * cfi.h - call-frame information (.eh_frame), private to the tracer: what
 * the dwarf unwinder (dwarf.c) and the build tools (symgen, on the host)
 * read of it, with one parser and one interpreter for both.
 *
 *   parse:     find the FDE covering a pc (through the FDE index) and read
 *              it and its CIE (cfi_parse.c);
 *   interpret: run the CIE's and FDE's call-frame instructions up to the
 *              pc, giving the row of rules in effect there (cfi_row.c);
 *   evaluate:  the DWARF expressions a rule may hold (cfi_expression.c).
 *
 * A row of rules says, for one pc, how to find the caller's frame: the CFA
 * (the caller's sp) and, for each register, where its caller's value is
 * (struct cfi_row below). dwarf.c applies the row to a register set. All
 * bytes are read through a memory_cursor, bounded by the declared .eh_frame.
 *
 * References: DWARF 5 section 6.4 (call frame information), the LSB's
 * description of .eh_frame (augmentations, DW_EH_PE_* pointer encodings).
 */
#ifndef TRACER_CFI_H
#define TRACER_CFI_H

#include "cursor.h"
#include "walk.h"

enum cfi_status {
	CFI_OK,
	CFI_NOT_FOUND,	 /* no FDE covers the pc */
	CFI_MALFORMED,	 /* lengths past their ends, bad index, ... */
	CFI_UNSUPPORTED, /* valid, but beyond what this unwinder evaluates */
	CFI_UNREADABLE,	 /* a saved register or DW_OP_deref outside the stack */
};

/* Why a parse failed, in words, for the build tools' messages: on the host
 * (TRACER_HOST_VIEW) CFI_FAIL calls cfi_host_fail, which the tool defines,
 * with a printf format; on the target it is the status alone. */
#ifdef TRACER_HOST_VIEW
void cfi_host_fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
#define CFI_FAIL(status, ...) (cfi_host_fail(__VA_ARGS__), (status))
#else
#define CFI_FAIL(status, ...) (status)
#endif

/* DW_EH_PE_*: how .eh_frame encodes a pointer. Low nibble: format; bits
 * 4-6: what it is relative to; bit 7: the value is an address to load. */
enum {
	DW_EH_PE_absptr = 0x00,
	DW_EH_PE_uleb128 = 0x01,
	DW_EH_PE_udata2 = 0x02,
	DW_EH_PE_udata4 = 0x03,
	DW_EH_PE_udata8 = 0x04,
	DW_EH_PE_sleb128 = 0x09,
	DW_EH_PE_sdata2 = 0x0a,
	DW_EH_PE_sdata4 = 0x0b,
	DW_EH_PE_sdata8 = 0x0c,
	DW_EH_PE_pcrel = 0x10,
	DW_EH_PE_textrel = 0x20,
	DW_EH_PE_datarel = 0x30,
	DW_EH_PE_funcrel = 0x40,
	DW_EH_PE_aligned = 0x50,
	DW_EH_PE_indirect = 0x80,
	DW_EH_PE_omit = 0xff,
};

/* One FDE: the code it covers and its instructions. */
struct cfi_fde {
	struct tracer_cie cie;
	uintptr_t pc_start; /* covers [pc_start, pc_end) */
	uintptr_t pc_end;
	uintptr_t instructions; /* [instructions, end) */
	uintptr_t end;
};

/*
 * Reads a pointer encoded as `encoding` at the cursor. pcrel is relative to
 * the address of the encoded field, textrel to config->text.start, datarel to
 * config->eh_frame.start. Indirect, funcrel, aligned and omit are
 * CFI_UNSUPPORTED here; a bad format nibble is CFI_MALFORMED.
 */
enum cfi_status cfi_read_pointer(const struct tracer_config *config,
				 struct memory_cursor *cursor, uint8_t encoding,
				 uintptr_t *value);

/* Parses the FDE whose length field is at fde_addr, and its CIE. */
enum cfi_status cfi_parse_fde(const struct tracer_config *config, uintptr_t fde_addr,
			      struct cfi_fde *fde);

/* Finds, through config->fde_index, the FDE covering pc and parses it.
 * The FDE must agree with its index entry and lie inside config->text.
 * `cie`, if not NULL, is the CIE the last call read (a walk's, address
 * UINTPTR_MAX before the first): the FDE's CIE is read again only if it
 * is another one, and left there, not in fde->cie. */
enum cfi_status cfi_find_fde(const struct tracer_config *config, uintptr_t pc,
			     struct tracer_cie *cie, struct cfi_fde *fde);

/* cfi_find_fde for a walk, whose index search is set up (fde_searchable:
 * config->fde_index valid and not empty; sorted_search_from's levels and
 * first probe), with its CIE cache, never NULL. */
enum cfi_status cfi_find_walk_fde(const struct walk *walk, uintptr_t pc,
				  struct tracer_cie *cie, struct cfi_fde *fde)
    __attribute__((nonnull));

#ifdef TRACER_HOST_VIEW
/* An entry of .eh_frame, as a walk over the whole section finds it. */
enum cfi_entry_kind {
	CFI_ENTRY_CIE = 1,
	CFI_ENTRY_FDE,
	CFI_ENTRY_TERMINATOR, /* a zero length */
};

struct cfi_entry {
	uint8_t kind;	       /* enum cfi_entry_kind */
	uintptr_t next;	       /* where the next entry starts */
	struct tracer_cie cie; /* a CIE's */
	struct cfi_fde fde;    /* an FDE's, with its CIE */
};

/*
 * Parses the entry at addr, for the build tools that walk the whole section
 * (symgen's FDE index): the target finds its FDEs through that index. A zero
 * length (a terminator: libgcc's unwinder stops there, readelf reads on) is
 * an entry of 4 bytes. On failure, entry->next is unset.
 */
enum cfi_status cfi_read_entry(const struct tracer_config *config, uintptr_t addr,
			       struct cfi_entry *entry);
#endif

/*
 * A row of rules. The CFI describes a table with a row per code location
 * and a column per register: the row in effect at a pc says how to find the
 * CFA (canonical frame address: the caller's sp at the call, here a
 * register plus an offset, or an expression) and, for each register, a
 * rule that gives the caller's value of it from the CFA and the callee's
 * registers. A column without a rule is unspecified: its caller's value is
 * the callee's ("same value", GCC's convention for callee-saved registers).
 */
enum cfi_rule_kind {
	CFI_RULE_UNDEFINED = 1,	 /* not recoverable; for ra: outermost frame */
	CFI_RULE_SAME_VALUE,	 /* unchanged, said explicitly */
	CFI_RULE_OFFSET,	 /* saved at CFA + value */
	CFI_RULE_VAL_OFFSET,	 /* is CFA + value */
	CFI_RULE_REGISTER,	 /* is in register `value` */
	CFI_RULE_EXPRESSION,	 /* saved at the address the expression gives */
	CFI_RULE_VAL_EXPRESSION, /* is the value the expression gives */
};

/* One column's rule. For the expression kinds, value is the offset from
 * config->eh_frame.start of the expression's ULEB128 length, followed by
 * its DW_OP bytes. Kind 0: no rule (unspecified). */
struct cfi_rule {
	int32_t value;
	uint16_t column;
	uint8_t kind; /* enum cfi_rule_kind */
};

enum cfi_cfa_kind {
	CFI_CFA_REGISTER_OFFSET = 1, /* CFA = register cfa_register + cfa_offset */
	CFI_CFA_EXPRESSION,	     /* CFA = value of the expression at cfa_offset */
};

/*
 * The columns a row keeps, each in a slot of its own: the registers the walk
 * restores (tracer_regs: ra, sp, s0-s11) and the CIE's return-address
 * column when it is none of them (libgcc's __riscv_save_* return through
 * t0). A rule for any other column changes nothing the walk computes: it is
 * read and dropped, so that a lookup is an index, not a search.
 */
enum cfi_slot {
	CFI_SLOT_RA,
	CFI_SLOT_SP,
	CFI_SLOT_S0, /* s_k in CFI_SLOT_S0 + k, as tracer_regs.s[k] */
	CFI_SLOT_RETURN = CFI_SLOT_S0 + 12,
	CFI_SLOTS,
};

/* DW_CFA_remember_state nesting (a row on the stack each); deeper is
 * CFI_UNSUPPORTED. GCC brackets an early epilogue with one level. */
#define CFI_STATE_DEPTH 2

#ifdef TRACER_HOST_VIEW
/* The build tools' differential test compares every column with readelf:
 * on the host, a row also keeps up to this many rules of other columns
 * (more sets others_lost), which the walk never reads. */
#define CFI_MAX_OTHER_RULES 64
#endif

/* A byte of kind a slot, set a byte at a time, cleared and scanned for
 * rules a word at a time (two words on rv64, four on rv32). */
#define CFI_KIND_BITS	   8u
#define CFI_KINDS_PER_WORD sizeof(uintptr_t)
#define CFI_KIND_WORDS	   ((CFI_SLOTS + CFI_KINDS_PER_WORD - 1) / CFI_KINDS_PER_WORD)

struct cfi_row {
	uint8_t cfa_kind; /* enum cfi_cfa_kind; 0 until the CFI defines the CFA */
	uint16_t cfa_register;
	int32_t cfa_offset;
	/* Each slot's rule: its kind (enum cfi_rule_kind, 0: unspecified) in
	 * kinds.of[slot], its value in values[slot], meaningful under a kind.
	 * Slot 0 is the lowest byte of words[0] (little-endian). */
	union {
		uint8_t of[CFI_KIND_WORDS * CFI_KINDS_PER_WORD];
		uintptr_t words[CFI_KIND_WORDS];
	} kinds;
	int32_t values[CFI_SLOTS];
	uint16_t return_column; /* the CIE's (CFI_UNSUPPORTED if wider) */
#ifdef TRACER_HOST_VIEW
	uint8_t other_count;
	bool others_lost;
	struct cfi_rule others[CFI_MAX_OTHER_RULES];
#endif
};

/* The kind of a slot's rule (0: unspecified). */
static inline unsigned cfi_row_kind(const struct cfi_row *row, unsigned slot)
{
	return row->kinds.of[slot];
}

/* The slot of `column`, CFI_SLOTS if the row keeps none for it. */
static inline unsigned cfi_column_slot(const struct cfi_row *row, uintptr_t column)
{
	/* The slot of each register below 64 (the operand of DW_CFA_offset
	 * and DW_CFA_restore: no range check there); CFI_SLOTS: none. */
	enum { N = CFI_SLOTS, S = CFI_SLOT_S0 };
	static const uint8_t register_slots[64] = {
	    N,	   CFI_SLOT_RA, CFI_SLOT_SP, N,	     N,	    N,	   N,	  N,
	    S,	   S + 1,	N,	     N,	     N,	    N,	   N,	  N,
	    N,	   N,		S + 2,	     S + 3,  S + 4, S + 5, S + 6, S + 7,
	    S + 8, S + 9,	S + 10,	     S + 11, N,	    N,	   N,	  N,
	    N,	   N,		N,	     N,	     N,	    N,	   N,	  N,
	    N,	   N,		N,	     N,	     N,	    N,	   N,	  N,
	    N,	   N,		N,	     N,	     N,	    N,	   N,	  N,
	    N,	   N,		N,	     N,	     N,	    N,	   N,	  N,
	};

	unsigned slot = column < 64 ? register_slots[column] : N;

	if (slot == N && column == row->return_column)
		return CFI_SLOT_RETURN;
	return slot;
}

/* The rule for `column` (kind 0 if it is unspecified). */
struct cfi_rule cfi_row_rule(const struct cfi_row *row, unsigned column);

/*
 * The interpreter (cfi_row.c): the row in effect at `pc` (which must lie in
 * [fde->pc_start, fde->pc_end)). Runs the CIE's initial instructions, then
 * the FDE's up to the first advance past pc.
 */
enum cfi_status cfi_row_at(const struct tracer_config *config, const struct cfi_fde *fde,
			   uintptr_t pc, struct cfi_row *row);

/* cfi_row_at for a walk: `cie` is the walk's copy of the FDE's CIE
 * (cfi_find_fde's), where the row of its initial instructions is kept, and
 * taken from, when it is a CFA rule alone (GCC's and clang's: sp + 0). */
enum cfi_status cfi_row_at_cached(const struct tracer_config *config,
				  const struct cfi_fde *fde, struct tracer_cie *cie,
				  uintptr_t pc, struct cfi_row *row);

#ifdef TRACER_HOST_VIEW
/* cfi_row_at for the build tools, with where the next row starts: the first
 * location past pc an advance reaches, UINTPTR_MAX if none does. Every pc
 * from pc up to it has the same row (and a failure at pc fails there too:
 * the program runs the same instructions), so symgen computes one row per
 * row, not one per instruction. */
enum cfi_status cfi_row_until(const struct tracer_config *config,
			      const struct cfi_fde *fde, uintptr_t pc,
			      struct cfi_row *row, uintptr_t *next_loc);
#endif

/* Max depth of the DW_OP evaluation stack; deeper is CFI_UNSUPPORTED. */
#define CFI_EXPRESSION_STACK 8

/*
 * Evaluates the DWARF expression at `expression` (its ULEB128 length, then
 * the DW_OP bytes; inside config->eh_frame), with `initial` pushed first when
 * push_initial (the CFA, for DW_CFA_expression and val_expression). The
 * subset: DW_OP_lit0-31, const1u-8s, constu, consts, dup, drop, over, swap,
 * plus, plus_uconst, minus, mul, and, or, xor, neg, not, shl, shr, shra,
 * breg0-31 and bregx of registers in tracer_regs (ra, sp, s0-s11), deref
 * (a word of `stack`, the walk's current stack) and nop. Any other op is CFI_UNSUPPORTED,
 * as is a stack deeper than CFI_EXPRESSION_STACK; popping an empty stack,
 * or an empty stack at the end, is CFI_MALFORMED.
 */
enum cfi_status cfi_evaluate(const struct tracer_config *config,
			     const struct tracer_range *stack, uintptr_t expression,
			     const struct tracer_regs *regs, bool push_initial,
			     uintptr_t initial, uintptr_t *result);

/* The value of DWARF register `column` in regs, if tracer_regs has it (ra,
 * sp, s0-s11); false for any other register. */
bool cfi_register_value(const struct tracer_regs *regs, unsigned column,
			uintptr_t *value);

/* DWARF register numbers (psABI): x0-x31 are 0-31, f0-f31 are 32-63. */
enum {
	DWARF_REG_RA = 1,
	DWARF_REG_SP = 2,
	DWARF_REG_S0 = 8,
	DWARF_REG_S1 = 9,
	DWARF_REG_S2 = 18,
	DWARF_REG_S11 = 27,
};

#endif /* TRACER_CFI_H */
