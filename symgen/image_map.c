/*
 * image_map.c - see image_map.h.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_FIXED_NOREPLACE, MAP_NORESERVE */

#include "image_map.h"

#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef SHF_EXECINSTR
#define SHF_EXECINSTR 0x4
#endif

/* Sections of one image lie close together; a larger span is a corrupt
 * address, and would ask for more address space than a host may give. */
#define SPAN_MAX ((uint64_t)1 << 30)

static bool is_code(const struct elf_section *section)
{
	return (section->flags & SHF_EXECINSTR) && section->size != 0;
}

static struct tracer_range section_range(const struct elf_file *elf,
					 const struct elf_section *section,
					 const char *name)
{
	uint64_t end = section->addr + section->size;

	if (end < section->addr)
		die(elf->path, "%s has an unusable address range", name);
	return (struct tracer_range){(uintptr_t)section->addr, (uintptr_t)end};
}

static struct tracer_range text_span(const struct elf_file *elf)
{
	struct tracer_range span = {UINTPTR_MAX, 0};

	for (uint32_t i = 1; i < elf->shnum; i++) {
		struct elf_section section = elf_section(elf, i);
		struct tracer_range range;

		if (!is_code(&section))
			continue;
		range = section_range(elf, &section, "an executable section");
		if (range.start < span.start)
			span.start = range.start;
		if (range.end > span.end)
			span.end = range.end;
	}
	if (span.end == 0)
		die(elf->path, "no executable section");
	return span;
}

static struct elf_section eh_frame_section(const struct elf_file *elf)
{
	uint32_t index = elf_section_by_name(elf, ".eh_frame");
	struct elf_section section;

	if (index == 0)
		die(elf->path, "no .eh_frame section");
	section = elf_section(elf, index);
	if (section.size == 0)
		die(elf->path, ".eh_frame is empty");
	return section;
}

/* Anonymous memory at exactly [start, end), pages rounded outwards. */
static void reserve(const struct elf_file *elf, struct tracer_range range)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t base = range.start & ~(page - 1);
	void *mapped;

	if (range.end > UINTPTR_MAX - page || range.end - base > SPAN_MAX)
		die(elf->path,
		    "code and .eh_frame at 0x%" PRIxPTR "..0x%" PRIxPTR
		    " span too much address space",
		    range.start, range.end);
	mapped = mmap((void *)base, range.end - base, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
		      -1, 0);
	/* Kernels before 4.17 ignore the flag and map elsewhere instead. */
	if (mapped == MAP_FAILED || mapped != (void *)base)
		die(elf->path, "cannot map the image at 0x%" PRIxPTR, base);
}

static void copy_section(const struct elf_file *elf, const struct elf_section *section,
			 const char *name)
{
	if (section->type == SHT_NOBITS)
		return; /* zeros, as the fresh mapping is */
	memcpy((void *)(uintptr_t)section->addr, elf_section_data(elf, section, name),
	       (size_t)section->size);
}

static void copy_code(const struct elf_file *elf)
{
	for (uint32_t i = 1; i < elf->shnum; i++) {
		struct elf_section section = elf_section(elf, i);

		if (is_code(&section))
			copy_section(elf, &section, "an executable section");
	}
}

static void protect(const struct elf_file *elf, struct tracer_range range)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t base = range.start & ~(page - 1);

	if (mprotect((void *)base, range.end - base, PROT_READ) != 0)
		die(elf->path, "cannot make the mapped image read-only");
}

struct image_map image_map(const struct elf_file *elf, unsigned what)
{
	struct image_map map = {.text = text_span(elf)};
	struct tracer_range span = {UINTPTR_MAX, 0};
	struct elf_section eh_frame = {0};

	if (what & IMAGE_MAP_CODE)
		span = map.text;
	if (what & IMAGE_MAP_EH_FRAME) {
		eh_frame = eh_frame_section(elf);
		map.eh_frame = section_range(elf, &eh_frame, ".eh_frame");
		if (map.eh_frame.start < span.start)
			span.start = map.eh_frame.start;
		if (map.eh_frame.end > span.end)
			span.end = map.eh_frame.end;
	}
	if (span.end == 0)
		return map;
	reserve(elf, span);
	if (what & IMAGE_MAP_CODE)
		copy_code(elf);
	if (what & IMAGE_MAP_EH_FRAME)
		copy_section(elf, &eh_frame, ".eh_frame");
	protect(elf, span);
	return map;
}
