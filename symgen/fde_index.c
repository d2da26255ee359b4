/*
 * fde_index.c - see fde_index.h. The walk over the section is here; what an
 * entry says is the tracer's parser's to read (cfi_read_entry).
 */
#include "fde_index.h"

#include "cfi.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The image's addresses are uintptr_t in the tracer's code: rv64 needs a
 * 64-bit host. */
_Static_assert(sizeof(uintptr_t) == 8, "symgen needs a 64-bit host");

#define NO_CFI_MESSAGE                                                                   \
	"no call-frame information (.eh_frame) in the image: compile with "              \
	"-fasynchronous-unwind-tables and keep .eh_frame in the linker script "          \
	"(linker/tracer.ld)"

/* Why the tracer's parser last failed (tracer/cfi.h). */
static char reason[256];

void cfi_host_fail(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vsnprintf(reason, sizeof(reason), format, args);
	va_end(args);
}

struct fde_list {
	struct fde_entry *fdes;
	size_t count;
	size_t capacity;
};

static void add_fde(const struct elf_file *elf, struct fde_list *list,
		    struct fde_entry fde)
{
	if (list->count == list->capacity) {
		list->capacity = list->capacity ? 2 * list->capacity : 64;
		list->fdes = tracked_realloc(elf->path, list->fdes, list->capacity,
					     sizeof(*list->fdes));
	}
	list->fdes[list->count++] = fde;
}

static int compare_fdes(const void *a, const void *b)
{
	const struct fde_entry *x = a;
	const struct fde_entry *y = b;

	if (x->pc_start != y->pc_start)
		return x->pc_start < y->pc_start ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Drops FDEs that cover nothing, sorts the rest, and rejects overlaps: the
 * unwinder's binary search must find one FDE per pc. */
static void sort_fdes(const struct elf_file *elf, struct fde_list *list)
{
	size_t kept = 0;

	for (size_t i = 0; i < list->count; i++)
		if (list->fdes[i].pc_end > list->fdes[i].pc_start)
			list->fdes[kept++] = list->fdes[i];
	list->count = kept;
	if (kept == 0)
		die(elf->path, NO_CFI_MESSAGE);
	qsort(list->fdes, kept, sizeof(*list->fdes), compare_fdes);
	for (size_t i = 1; i < kept; i++) {
		const struct fde_entry *a = &list->fdes[i - 1];
		const struct fde_entry *b = &list->fdes[i];

		if (b->pc_start < a->pc_end)
			die(elf->path,
			    "FDEs at .eh_frame offsets 0x%llx and 0x%llx overlap: "
			    "[0x%llx, 0x%llx) and [0x%llx, 0x%llx)",
			    (unsigned long long)a->offset, (unsigned long long)b->offset,
			    (unsigned long long)a->pc_start,
			    (unsigned long long)a->pc_end,
			    (unsigned long long)b->pc_start,
			    (unsigned long long)b->pc_end);
	}
}

struct tracer_config fde_index_view(const struct elf_file *elf)
{
	uint32_t index = elf_section_by_name(elf, ".eh_frame");
	uint64_t address_end = elf->is64 ? UINT64_MAX : UINT32_MAX;
	struct elf_section section;
	const unsigned char *data;

	if (index == 0)
		die(elf->path, NO_CFI_MESSAGE);
	section = elf_section(elf, index);
	data = elf_section_data(elf, &section, ".eh_frame");
	if (section.addr > address_end || section.size > address_end - section.addr)
		die(elf->path,
		    ".eh_frame at 0x%llx (0x%llx bytes) runs past the end of "
		    "the address space",
		    (unsigned long long)section.addr, (unsigned long long)section.size);
	tracer_host_word_size = elf->is64 ? 8 : 4;
	tracer_host_bias = (uintptr_t)data - (uintptr_t)section.addr;
	return (struct tracer_config){
	    .eh_frame = {(uintptr_t)section.addr,
			 (uintptr_t)(section.addr + section.size)}};
}

/* An FDE the unwinder can find through the index: its pc_start must not
 * depend on where the kernel declares its text (textrel) or data. */
static void check_fde_encoding(const struct elf_file *elf, uint64_t offset,
			       const struct cfi_fde *fde)
{
	unsigned application = fde->cie.fde_encoding & 0x70;

	if (application != DW_EH_PE_absptr && application != DW_EH_PE_pcrel)
		die(elf->path,
		    "malformed .eh_frame at offset 0x%llx: unsupported FDE pointer "
		    "encoding 0x%02x: only direct absolute or pc-relative addresses are "
		    "supported",
		    (unsigned long long)offset, fde->cie.fde_encoding);
}

struct fde_entry *fde_index_read(const struct elf_file *elf, size_t *count)
{
	const struct tracer_config config = fde_index_view(elf);
	const uintptr_t start = config.eh_frame.start;
	struct fde_list list = {0};
	struct cfi_entry entry;

	for (uintptr_t addr = start; addr < config.eh_frame.end; addr = entry.next) {
		uint64_t offset = addr - start;

		reason[0] = '\0';
		if (cfi_read_entry(&config, addr, &entry) != CFI_OK)
			die(elf->path, "malformed .eh_frame at offset 0x%llx: %s",
			    (unsigned long long)offset, reason);
		if (entry.kind != CFI_ENTRY_FDE)
			continue;
		check_fde_encoding(elf, offset, &entry.fde);
		add_fde(elf, &list,
			(struct fde_entry){entry.fde.pc_start, entry.fde.pc_end, addr,
					   offset});
	}
	sort_fdes(elf, &list);
	*count = list.count;
	return list.fdes;
}
