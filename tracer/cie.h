/*
 * cie.h - what the DWARF unwinder keeps of a CIE between frames: most FDEs
 * share one, so a walk parses it once.
 */
#ifndef TRACER_CIE_H
#define TRACER_CIE_H

#include <stdbool.h>
#include <stdint.h>

/* What a CIE of .eh_frame says about the FDEs that use it, as the DWARF
 * unwinder read it (cfi_parse.c). */
struct tracer_cie {
	uintptr_t address;	/* of its length field */
	uintptr_t instructions; /* initial instructions: [instructions, end) */
	uintptr_t end;
	uintptr_t code_align;	    /* factor of advance_loc deltas */
	intptr_t data_align;	    /* factor of offsets */
	uintptr_t ra_column;	    /* the column that holds the return address */
	uint8_t fde_encoding;	    /* 'R' augmentation; DW_EH_PE_absptr without */
	bool has_augmentation_data; /* 'z': FDEs carry an augmentation length */
	bool is_signal_frame;	    /* 'S' */
	/* The row its initial instructions give, when that is a CFA rule
	 * alone (GCC's and clang's: sp + 0), once a walk has run them. */
	bool initial_known;
	uint8_t initial_cfa_kind;
	uint16_t initial_cfa_register;
	int32_t initial_cfa_offset;
};

#endif /* TRACER_CIE_H */
