/*
 * image_view.h - an image's code and .eh_frame as the tracer's code reads
 * them in the host programs that run it on a linked image (symgen's unwind
 * table, which measures frame sizes with the prologue decoder; the test
 * tools cfi_rows, prologue_check, table_check): copied from the file into one heap block,
 * each at its distance from the others, and the tracer's host view (TRACER_HOST_VIEW,
 * tracer/memory.h) pointed at that block. The tracer keeps working in the
 * image's addresses: the pc-relative pointers of .eh_frame mean what they
 * mean in the image, and the bounds checks are the target's.
 */
#ifndef SYMGEN_IMAGE_VIEW_H
#define SYMGEN_IMAGE_VIEW_H

#include "elf.h"
#include "tracer_tables.h"

/* What to copy (flags); the text range is known either way. */
enum {
	IMAGE_VIEW_CODE = 1,	 /* every executable section */
	IMAGE_VIEW_EH_FRAME = 2, /* .eh_frame; dies if there is none */
};

struct image_view {
	struct tracer_range text;     /* lowest to highest address of code */
	struct tracer_range eh_frame; /* empty unless copied */
	unsigned char *bytes;	      /* the block, a tracked one (die.h) */
};

/* Copies what `what` asks for, sets tracer_host_bias and
 * tracer_host_word_size for this image; gaps between sections read as zeros.
 * Dies if the sections span more than 1 GiB. */
struct image_view image_view(const struct elf_file *elf, unsigned what);

#endif /* SYMGEN_IMAGE_VIEW_H */
