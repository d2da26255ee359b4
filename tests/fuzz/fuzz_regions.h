/*
 * fuzz_regions.h - memory the fuzz targets declare to the tracer, placed so
 * that any read outside a declared region fails at once.
 *
 * One PROT_NONE arena is reserved per process. A region is a window of it:
 * its pages are made readable only while an input runs, so the pages around
 * them stay guard pages (a read far outside faults), and the bytes of those
 * pages outside the region are poisoned for AddressSanitizer (a read just
 * outside is reported to the byte). Loading a region copies the input's
 * bytes in and leaves them read-only: the tracer must not write either.
 */
#ifndef FUZZ_REGIONS_H
#define FUZZ_REGIONS_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_region {
	uintptr_t base;	       /* page-aligned: where the region's window starts */
	size_t capacity;       /* bytes the window may use */
	uintptr_t pages_start; /* the pages made readable for the current input */
	size_t pages_size;     /* 0 when none */
};

/* A region of `capacity` bytes at byte `offset` of the arena (both multiples
 * of the page size); the arena is reserved on first use. */
void fuzz_region_init(struct fuzz_region *region, size_t offset, size_t capacity);

/* Copies size bytes to base + lead (lead + size <= capacity) and makes
 * exactly them readable. Returns their address. size 0 makes nothing
 * readable. */
uintptr_t fuzz_region_load(struct fuzz_region *region, size_t lead, const void *data,
			   size_t size);

/* Makes the region's pages guard pages again. */
void fuzz_region_unload(struct fuzz_region *region);

/* The host's page size. */
size_t fuzz_page_size(void);

#endif /* FUZZ_REGIONS_H */
