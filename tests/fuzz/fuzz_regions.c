/*
 * fuzz_regions.c - see fuzz_regions.h.
 */
#include "fuzz_regions.h"

#include <sanitizer/asan_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Large enough for every region the targets lay out (fuzz_walk.c places
 * .eh_frame up to 16 MiB after text, as in a kernel image). */
#define ARENA_SIZE ((size_t)32 << 20)

static uintptr_t arena;

static void fail(const char *what)
{
	perror(what);
	abort();
}

size_t fuzz_page_size(void)
{
	static size_t page;

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	return page;
}

void fuzz_region_init(struct fuzz_region *region, size_t offset, size_t capacity)
{
	if (!arena) {
		void *reserved = mmap(NULL, ARENA_SIZE, PROT_NONE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (reserved == MAP_FAILED)
			fail("fuzz_regions: mmap");
		arena = (uintptr_t)reserved;
	}
	/* The last page of the arena must stay a guard page. */
	if (offset % fuzz_page_size() ||
	    offset + capacity + fuzz_page_size() > ARENA_SIZE) {
		fprintf(stderr, "fuzz_regions: region outside the arena\n");
		abort();
	}
	region->base = arena + offset;
	region->capacity = capacity;
	region->pages_start = region->base;
	region->pages_size = 0;
}

uintptr_t fuzz_region_load(struct fuzz_region *region, size_t lead, const void *data,
			   size_t size)
{
	const size_t page = fuzz_page_size();
	uintptr_t start = region->base + lead;
	uintptr_t end = start + size;
	uintptr_t pages_end = (end + page - 1) / page * page;

	if (lead + size > region->capacity) {
		fprintf(stderr, "fuzz_regions: %zu bytes do not fit\n", lead + size);
		abort();
	}
	fuzz_region_unload(region);
	if (size == 0)
		return start;
	region->pages_start = start / page * page;
	region->pages_size = pages_end - region->pages_start;
	if (mprotect((void *)region->pages_start, region->pages_size,
		     PROT_READ | PROT_WRITE))
		fail("fuzz_regions: mprotect");
	memcpy((void *)start, data, size);
	if (mprotect((void *)region->pages_start, region->pages_size, PROT_READ))
		fail("fuzz_regions: mprotect");
	/* ASan tracks 8-byte granules: bytes before an unaligned start share
	 * the granule of the first ones and stay readable. */
	ASAN_POISON_MEMORY_REGION((void *)region->pages_start,
				  start - region->pages_start);
	ASAN_POISON_MEMORY_REGION((void *)end, pages_end - end);
	return start;
}

void fuzz_region_unload(struct fuzz_region *region)
{
	if (region->pages_size == 0)
		return;
	ASAN_UNPOISON_MEMORY_REGION((void *)region->pages_start, region->pages_size);
	if (mprotect((void *)region->pages_start, region->pages_size, PROT_NONE))
		fail("fuzz_regions: mprotect");
	region->pages_size = 0;
}
