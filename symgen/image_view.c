/*
 * image_view.c - see image_view.h.
 */
#include "image_view.h"

#include "walk.h"

#include <inttypes.h>
#include <string.h>

#ifndef SHF_EXECINSTR
#define SHF_EXECINSTR 0x4
#endif

/* Sections of one image lie close together; a larger span is a corrupt
 * address, and would ask for more memory than a host may give. */
#define SPAN_MAX ((uint64_t)1 << 30)

static bool is_code(const struct elf_section *section)
{
	return (section->flags & SHF_EXECINSTR) && section->size != 0;
}

static struct tracer_range section_range(const struct elf_file *elf,
					 const struct elf_section *section,
					 const char *name)
{
	uint64_t address_end = elf->is64 ? UINT64_MAX : UINT32_MAX;

	if (section->addr > address_end || section->size > address_end - section->addr)
		die(elf->path, "%s has an unusable address range", name);
	return (struct tracer_range){(uintptr_t)section->addr,
				     (uintptr_t)(section->addr + section->size)};
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

static void copy_section(const struct elf_file *elf, const struct image_view *view,
			 uintptr_t span_start, const struct elf_section *section,
			 const char *name)
{
	if (section->type == SHT_NOBITS)
		return; /* zeros, as the fresh block is */
	memcpy(view->bytes + (section->addr - span_start),
	       elf_section_data(elf, section, name), (size_t)section->size);
}

struct image_view image_view(const struct elf_file *elf, unsigned what)
{
	struct image_view view = {.text = text_span(elf)};
	struct tracer_range span = {UINTPTR_MAX, 0};
	struct elf_section eh_frame = {0};

	if (what & IMAGE_VIEW_CODE)
		span = view.text;
	if (what & IMAGE_VIEW_EH_FRAME) {
		eh_frame = eh_frame_section(elf);
		view.eh_frame = section_range(elf, &eh_frame, ".eh_frame");
		if (view.eh_frame.start < span.start)
			span.start = view.eh_frame.start;
		if (view.eh_frame.end > span.end)
			span.end = view.eh_frame.end;
	}
	if (span.end == 0)
		return view;
	if (span.end - span.start > SPAN_MAX)
		die(elf->path,
		    "code and .eh_frame at 0x%" PRIxPTR "..0x%" PRIxPTR
		    " span too much address space",
		    span.start, span.end);
	view.bytes = tracked_alloc(elf->path, span.end - span.start, 1);
	for (uint32_t i = 1; (what & IMAGE_VIEW_CODE) && i < elf->shnum; i++) {
		struct elf_section section = elf_section(elf, i);

		if (is_code(&section))
			copy_section(elf, &view, span.start, &section,
				     "an executable section");
	}
	if (what & IMAGE_VIEW_EH_FRAME)
		copy_section(elf, &view, span.start, &eh_frame, ".eh_frame");
	tracer_host_bias = (uintptr_t)view.bytes - span.start;
	tracer_host_word_size = elf->is64 ? 8 : 4;
	return view;
}
