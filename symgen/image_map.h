/*
 * image_map.h - an image's code and .eh_frame, copied to their own addresses
 * in this process, for the host tools that run the tracer's code on a linked
 * image (tests/host/cfi_rows.c, symgen/prologue_check.c). The tracer reads
 * memory at the image's addresses, and the pc-relative pointers of .eh_frame
 * mean what they mean in the image only there.
 *
 * Those tools are built without AddressSanitizer: its shadow memory may
 * cover these addresses.
 */
#ifndef SYMGEN_IMAGE_MAP_H
#define SYMGEN_IMAGE_MAP_H

#include "elf.h"
#include "tracer.h"

/* What to map (flags); the text range is known either way. */
enum {
	IMAGE_MAP_CODE = 1,	/* every executable section */
	IMAGE_MAP_EH_FRAME = 2, /* .eh_frame; dies if there is none */
};

struct image_map {
	struct tracer_range text;     /* lowest to highest address of code */
	struct tracer_range eh_frame; /* empty unless mapped */
};

/* Maps read-only copies of what `what` asks for, at their addresses, in one
 * mapping: gaps between sections read as zeros. Dies if that is impossible. */
struct image_map image_map(const struct elf_file *elf, unsigned what);

#endif /* SYMGEN_IMAGE_MAP_H */
