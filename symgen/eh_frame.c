/*
 * eh_frame.c - see eh_frame.h. Layout of CIEs and FDEs: LSB 5.0, "Exception
 * Frames"; pointer encodings (DW_EH_PE_*): LSB 5.0, "DWARF Extensions".
 * Only the entry headers are read: the CFA programs are the unwinder's job.
 */
#include "eh_frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* A pointer encoding's low nibble is the value's format, bits 4-6 say what
 * it is relative to, bit 7 that it points to the address. */
#define DW_EH_PE_absptr	     0x00
#define DW_EH_PE_uleb128     0x01
#define DW_EH_PE_udata2	     0x02
#define DW_EH_PE_udata4	     0x03
#define DW_EH_PE_udata8	     0x04
#define DW_EH_PE_sleb128     0x09
#define DW_EH_PE_sdata2	     0x0a
#define DW_EH_PE_sdata4	     0x0b
#define DW_EH_PE_sdata8	     0x0c
#define DW_EH_PE_pcrel	     0x10
#define DW_EH_PE_aligned     0x50
#define DW_EH_PE_indirect    0x80
#define DW_EH_PE_omit	     0xff
#define DW_EH_PE_FORMAT	     0x0f
#define DW_EH_PE_APPLICATION 0x70

#define EXTENDED_LENGTH 0xffffffffu /* a 64-bit length follows */

#define NO_CFI_MESSAGE                                                                   \
	"no call-frame information (.eh_frame) in the image: compile with "              \
	"-fasynchronous-unwind-tables and keep .eh_frame in the linker script "          \
	"(linker/tracer.ld)"

struct cie {
	uint64_t offset;
	unsigned char fde_encoding; /* of pc_begin in its FDEs: 'R', else absptr */
	bool has_augmentation_data; /* 'z': its FDEs have augmentation data too */
};

struct eh_frame {
	const struct elf_file *elf;
	const unsigned char *data;
	uint64_t size;
	uint64_t addr;	       /* sh_addr: where the section is at run time */
	uint64_t address_mask; /* addresses wrap at the ELF class's word size */
	struct cie *cies;      /* in section order, so sorted by offset */
	size_t cie_count;
	size_t cie_capacity;
	struct fde_entry *fdes;
	size_t fde_count;
	size_t fde_capacity;
};

/* Reads the entry (CIE or FDE) at `entry`, within [pos, end). */
struct cursor {
	const struct eh_frame *eh;
	uint64_t entry;
	uint64_t pos;
	uint64_t end;
	const char *region; /* what `end` is the end of, for messages */
};

/* Dies with "malformed .eh_frame at offset <entry>: <message>". */
static _Noreturn void malformed(const struct cursor *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void malformed(const struct cursor *c, const char *fmt, ...)
{
	char message[256];
	va_list args;

	va_start(args, fmt);
	vsnprintf(message, sizeof(message), fmt, args);
	va_end(args);
	die(c->eh->elf->path, "malformed .eh_frame at offset 0x%llx: %s",
	    (unsigned long long)c->entry, message);
}

static uint64_t read_fixed(struct cursor *c, unsigned bytes)
{
	uint64_t value = 0;

	if (bytes > c->end - c->pos)
		malformed(c, "%u-byte field at offset 0x%llx runs past the end of the %s",
			  bytes, (unsigned long long)c->pos, c->region);
	for (unsigned i = bytes; i > 0; i--)
		value = value << 8 | c->eh->data[c->pos + i - 1];
	c->pos += bytes;
	return value;
}

static uint64_t sign_extend(uint64_t value, unsigned bits)
{
	if (bits < 64 && (value >> (bits - 1) & 1))
		value |= ~0ull << bits;
	return value;
}

static uint64_t read_leb128(struct cursor *c, bool is_signed)
{
	uint64_t value = 0;
	unsigned shift = 0;
	unsigned char byte;

	do {
		if (c->pos >= c->end)
			malformed(c, "LEB128 number runs past the end of the %s",
				  c->region);
		/* 10 bytes carry 70 bits: more is not a 64-bit number. */
		if (shift >= 70)
			malformed(c, "LEB128 number at offset 0x%llx is too long",
				  (unsigned long long)c->pos);
		byte = c->eh->data[c->pos++];
		if (shift < 64)
			value |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	return is_signed && shift < 64 ? sign_extend(value, shift) : value;
}

static const char *read_string(struct cursor *c)
{
	const char *start = (const char *)c->eh->data + c->pos;

	while (c->pos < c->end && c->eh->data[c->pos] != '\0')
		c->pos++;
	if (c->pos == c->end)
		malformed(c, "augmentation string runs past the end of the %s",
			  c->region);
	c->pos++;
	return start;
}

/* A value in the pointer format `format` (an encoding's low nibble); false
 * if the format is unknown. */
static bool read_value(struct cursor *c, unsigned format, uint64_t *value)
{
	switch (format) {
	case DW_EH_PE_absptr:
		*value = read_fixed(c, c->eh->elf->is64 ? 8 : 4);
		return true;
	case DW_EH_PE_uleb128:
		*value = read_leb128(c, false);
		return true;
	case DW_EH_PE_udata2:
		*value = read_fixed(c, 2);
		return true;
	case DW_EH_PE_udata4:
		*value = read_fixed(c, 4);
		return true;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		*value = read_fixed(c, 8);
		return true;
	case DW_EH_PE_sleb128:
		*value = read_leb128(c, true);
		return true;
	case DW_EH_PE_sdata2:
		*value = sign_extend(read_fixed(c, 2), 16);
		return true;
	case DW_EH_PE_sdata4:
		*value = sign_extend(read_fixed(c, 4), 32);
		return true;
	default:
		return false;
	}
}

/* The personality routine's pointer: only its size matters here. */
static void skip_pointer(struct cursor *c, unsigned encoding)
{
	uint64_t pointer;

	if (encoding == DW_EH_PE_omit ||
	    (encoding & DW_EH_PE_APPLICATION) == DW_EH_PE_aligned ||
	    !read_value(c, encoding & DW_EH_PE_FORMAT, &pointer))
		malformed(c, "unsupported personality pointer encoding 0x%02x", encoding);
}

/* The CIE's augmentation data, laid out by the letters after 'z'. */
static void read_augmentation_data(struct cursor *c, const char *letters, struct cie *cie)
{
	uint64_t length = read_leb128(c, false);
	struct cursor data = *c;

	if (length > c->end - c->pos)
		malformed(c,
			  "augmentation data (0x%llx bytes) runs past the end of the CIE",
			  (unsigned long long)length);
	data.end = c->pos + length;
	data.region = "augmentation data";
	c->pos = data.end;
	for (const char *letter = letters; *letter; letter++) {
		switch (*letter) {
		case 'R':
			cie->fde_encoding = (unsigned char)read_fixed(&data, 1);
			break;
		case 'P':
			skip_pointer(&data, (unsigned)read_fixed(&data, 1));
			break;
		case 'L': /* the LSDA's encoding; the pointer is in each FDE */
			read_fixed(&data, 1);
			break;
		case 'S': /* a signal frame: no data */
			break;
		default: /* unknown, but 'z' gave the length: skip the rest */
			return;
		}
	}
}

/* A CIE, `c` placed after its CIE id. */
static struct cie parse_cie(struct cursor *c)
{
	struct cie cie = {c->entry, DW_EH_PE_absptr, false};
	unsigned version = (unsigned)read_fixed(c, 1);
	const char *augmentation;

	if (version != 1 && version != 3)
		malformed(c, "unsupported CIE version %u (1 and 3 are supported)",
			  version);
	augmentation = read_string(c);
	read_leb128(c, false); /* code alignment factor */
	read_leb128(c, true);  /* data alignment factor */
	if (version == 1)      /* return address register */
		read_fixed(c, 1);
	else
		read_leb128(c, false);
	if (augmentation[0] == '\0')
		return cie;
	/* Without 'z' the size of the augmentation data is unknown. */
	if (augmentation[0] != 'z')
		malformed(c, "unsupported CIE augmentation (does not start with 'z')");
	cie.has_augmentation_data = true;
	read_augmentation_data(c, augmentation + 1, &cie);
	return cie;
}

static const struct cie *find_cie(const struct eh_frame *eh, uint64_t offset)
{
	size_t low = 0;
	size_t high = eh->cie_count;

	while (low < high) {
		size_t middle = low + (high - low) / 2;

		if (eh->cies[middle].offset == offset)
			return &eh->cies[middle];
		if (eh->cies[middle].offset < offset)
			low = middle + 1;
		else
			high = middle;
	}
	return NULL;
}

/* pc_begin and pc_range, in the CIE's encoding: pc_begin direct, absolute or
 * relative to its own address; pc_range in the same format, not relative. */
static void read_fde_range(struct cursor *c, const struct cie *cie, uint64_t *begin,
			   uint64_t *range)
{
	unsigned encoding = cie->fde_encoding;
	unsigned application = encoding & DW_EH_PE_APPLICATION;
	uint64_t field_address = c->eh->addr + c->pos;

	if (encoding == DW_EH_PE_omit || (encoding & DW_EH_PE_indirect) ||
	    (application != DW_EH_PE_absptr && application != DW_EH_PE_pcrel) ||
	    !read_value(c, encoding & DW_EH_PE_FORMAT, begin) ||
	    !read_value(c, encoding & DW_EH_PE_FORMAT, range))
		malformed(
		    c,
		    "unsupported FDE pointer encoding 0x%02x (from the CIE at offset "
		    "0x%llx): only direct absolute or pc-relative addresses are "
		    "supported",
		    encoding, (unsigned long long)cie->offset);
	if (application == DW_EH_PE_pcrel)
		*begin += field_address;
	*begin &= c->eh->address_mask;
	*range &= c->eh->address_mask;
}

/* An FDE, `c` placed after its CIE pointer, which is at `pointer_offset`. */
static struct fde_entry parse_fde(struct cursor *c, uint64_t pointer_offset,
				  uint64_t pointer)
{
	struct fde_entry fde = {0, 0, c->eh->addr + c->entry, c->entry};
	uint64_t mask = c->eh->address_mask;
	const struct cie *cie;
	uint64_t range;

	/* The pointer counts back from its own position. */
	if (pointer > pointer_offset)
		malformed(c, "CIE pointer 0x%llx points before the start of the section",
			  (unsigned long long)pointer);
	cie = find_cie(c->eh, pointer_offset - pointer);
	if (!cie)
		malformed(c, "CIE pointer leads to offset 0x%llx, where no CIE starts",
			  (unsigned long long)(pointer_offset - pointer));
	read_fde_range(c, cie, &fde.pc_start, &range);
	if (range > mask - fde.pc_start)
		malformed(
		    c, "FDE range 0x%llx+0x%llx runs past the end of the address space",
		    (unsigned long long)fde.pc_start, (unsigned long long)range);
	fde.pc_end = fde.pc_start + range;
	if (cie->has_augmentation_data && read_leb128(c, false) > c->end - c->pos)
		malformed(c, "FDE augmentation data runs past the end of the FDE");
	return fde;
}

static void *grow(const struct eh_frame *eh, void *array, size_t *capacity, size_t size)
{
	*capacity = *capacity ? 2 * *capacity : 64;
	return tracked_realloc(eh->elf->path, array, *capacity, size);
}

static void add_cie(struct eh_frame *eh, struct cie cie)
{
	if (eh->cie_count == eh->cie_capacity)
		eh->cies = grow(eh, eh->cies, &eh->cie_capacity, sizeof(*eh->cies));
	eh->cies[eh->cie_count++] = cie;
}

static void add_fde(struct eh_frame *eh, struct fde_entry fde)
{
	if (eh->fde_count == eh->fde_capacity)
		eh->fdes = grow(eh, eh->fdes, &eh->fde_capacity, sizeof(*eh->fdes));
	eh->fdes[eh->fde_count++] = fde;
}

/* Reads the entry at `offset`; returns the offset of the next one. */
static uint64_t read_entry(struct eh_frame *eh, uint64_t offset)
{
	struct cursor c = {eh, offset, offset, eh->size, "section"};
	uint64_t length = read_fixed(&c, 4);
	unsigned id_bytes = 4;
	uint64_t id_offset;
	uint64_t id;

	/* A zero terminator (libgcc stops there; readelf reads on, and so
	 * do we: an FDE after it still describes code). */
	if (length == 0)
		return c.pos;
	/* The 64-bit format widens the CIE id / pointer too (as in
	 * .debug_frame; readelf reads it so). */
	if (length == EXTENDED_LENGTH) {
		length = read_fixed(&c, 8);
		id_bytes = 8;
	}
	if (length > c.end - c.pos)
		malformed(&c,
			  "length 0x%llx runs past the end of the section (0x%llx bytes)",
			  (unsigned long long)length, (unsigned long long)eh->size);
	c.end = c.pos + length;
	c.region = "entry";
	id_offset = c.pos;
	id = read_fixed(&c, id_bytes);
	if (id == 0)
		add_cie(eh, parse_cie(&c));
	else
		add_fde(eh, parse_fde(&c, id_offset, id));
	return c.end;
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
static void sort_fdes(struct eh_frame *eh)
{
	size_t kept = 0;

	for (size_t i = 0; i < eh->fde_count; i++)
		if (eh->fdes[i].pc_end > eh->fdes[i].pc_start)
			eh->fdes[kept++] = eh->fdes[i];
	eh->fde_count = kept;
	if (kept == 0)
		die(eh->elf->path, NO_CFI_MESSAGE);
	qsort(eh->fdes, kept, sizeof(*eh->fdes), compare_fdes);
	for (size_t i = 1; i < kept; i++) {
		const struct fde_entry *a = &eh->fdes[i - 1];
		const struct fde_entry *b = &eh->fdes[i];

		if (b->pc_start < a->pc_end)
			die(eh->elf->path,
			    "FDEs at .eh_frame offsets 0x%llx and 0x%llx overlap: "
			    "[0x%llx, 0x%llx) and [0x%llx, 0x%llx)",
			    (unsigned long long)a->offset, (unsigned long long)b->offset,
			    (unsigned long long)a->pc_start,
			    (unsigned long long)a->pc_end,
			    (unsigned long long)b->pc_start,
			    (unsigned long long)b->pc_end);
	}
}

struct fde_entry *eh_frame_index(const struct elf_file *elf, size_t *count)
{
	struct eh_frame eh = {.elf = elf};
	uint32_t index = elf_section_by_name(elf, ".eh_frame");
	struct elf_section section;

	if (index == 0)
		die(elf->path, NO_CFI_MESSAGE);
	section = elf_section(elf, index);
	eh.data = elf_section_data(elf, &section, ".eh_frame");
	eh.size = section.size;
	eh.addr = section.addr;
	eh.address_mask = elf->is64 ? UINT64_MAX : UINT32_MAX;
	for (uint64_t offset = 0; offset < eh.size;)
		offset = read_entry(&eh, offset);
	sort_fdes(&eh);
	tracked_free(eh.cies);
	*count = eh.fde_count;
	return eh.fdes;
}
