/*
 * fde_index.h - the FDE index of a linked image: for every FDE in .eh_frame,
 * the code it covers and its address, sorted, for the tracer's DWARF
 * unwinder (struct tracer_fde_index in tracer/tracer.h).
 *
 * The entries are read by the tracer's own parser (tracer/cfi_parse.c, built
 * for the host with TRACER_HOST_VIEW), so the index and the unwinder that
 * uses it cannot disagree about what .eh_frame says.
 */
#ifndef SYMGEN_FDE_INDEX_H
#define SYMGEN_FDE_INDEX_H

#include "elf.h"
#include "tracer_tables.h"

struct fde_entry {
	uint64_t pc_start; /* first address the FDE covers */
	uint64_t pc_end;   /* first address after it */
	uint64_t fde;	   /* address of the FDE's length field */
	uint64_t offset;   /* the same, as an offset in .eh_frame (for messages) */
};

/*
 * Parses every CIE and FDE of the image's .eh_frame and returns the FDEs that
 * cover at least one byte, sorted by pc_start; *count is at least 1. Dies if
 * there is no .eh_frame or no such FDE, on malformed or unsupported input
 * (naming the entry's offset in .eh_frame and what is wrong), and if two FDEs
 * cover the same address. The result is a tracked block (die.h), for
 * tracked_free().
 */
struct fde_entry *fde_index_read(const struct elf_file *elf, size_t *count);

/* The tracer's view of the image's .eh_frame: a config whose eh_frame is
 * the section's target addresses, read from the file's bytes (sets
 * tracer_host_bias and tracer_host_word_size). Dies if there is none. */
struct tracer_config fde_index_view(const struct elf_file *elf);

#endif /* SYMGEN_FDE_INDEX_H */
