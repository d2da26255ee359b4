/*
 * prologue.h - the prologue decoder (prologue_decode.c) behind the prologue
 * unwinder (TRACER_PROLOGUE, prologue.c): what a function's code did to its
 * frame between its first instruction and a pc. Shared with symgen (frame
 * sizes for the unwind table), the host cross-check against CFI
 * (tests/tools/prologue_check.c) and the unit tests.
 */
#ifndef TRACER_PROLOGUE_H
#define TRACER_PROLOGUE_H

#include "cursor.h"
#include "riscv.h"
#include "walk.h"

/* What is known about sp after the decoded code. */
enum prologue_sp {
	PROLOGUE_SP_RELATIVE, /* sp = CFA + sp_offset */
	PROLOGUE_SP_ORIGIN,   /* sp was set to an address (la sp, ...): this
				 function made the stack, it has no caller on it */
	PROLOGUE_SP_LOST,     /* changed by an amount not known from the code
				 (alloca, a load): only a frame pointer helps */
};

/*
 * The frame as the decoded code left it. Offsets are bytes from the CFA,
 * the sp the function was entered with (its caller's sp at the call).
 */
struct prologue_frame {
	enum prologue_sp sp_state;
	bool fp_valid;	    /* s0 was set up as a frame pointer, at fp_offset */
	bool ra_saved;	    /* the caller's ra is stored at CFA + ra_offset */
	bool s0_saved;	    /* the caller's s0 is stored at CFA + s0_offset */
	intptr_t sp_offset; /* sp - CFA, if PROLOGUE_SP_RELATIVE (<= 0) */
	intptr_t fp_offset; /* s0 - CFA */
	intptr_t ra_offset;
	intptr_t s0_offset;
};

enum prologue_status {
	PROLOGUE_OK,
	PROLOGUE_UNREADABLE, /* the code lies outside config->text */
	PROLOGUE_UNKNOWN,    /* an instruction the decoder cannot follow: a
				reserved or illegal encoding, or one longer
				than 32 bits. (An sp it cannot follow is
				PROLOGUE_SP_LOST, in an OK analysis.) */
};

struct prologue_analysis {
	struct prologue_frame frame; /* the frame at the pc */
	uintptr_t stop;		     /* where decoding stopped: the pc, or the
					jump that ended it */
	uintptr_t first_call;	     /* the first call before stop, or 0: where
					a prologue has certainly ended */
};

/*
 * Decodes the code of the function at [function, function_end) from its
 * start towards pc (exclusive), with xlen-byte registers (4: rv32, 8: rv64),
 * and describes the frame at pc. Decoding goes straight through conditional
 * branches and calls (a trap may interrupt the epilogue after a call), and
 * stops at the pc or at a jump. The code after a jump is entered by a branch:
 * from before the prologue if no frame was set up yet (shrink-wrapping; then
 * decoding goes on), else from the body, whose frame is the one from before
 * any epilogue began (see prologue_decode.c).
 */
enum prologue_status prologue_analyze(const struct tracer_config *config,
				      uintptr_t function, uintptr_t function_end,
				      uintptr_t pc, unsigned xlen,
				      struct prologue_analysis *analysis);

#endif /* TRACER_PROLOGUE_H */
