/*
 * cfi_parse.c - step 1 of the DWARF unwinder: find and read the FDE that
 * covers a pc, and its CIE.
 *
 * .eh_frame is a list of entries, each a length and then either a CIE
 * (Common Information Entry: alignment factors, the return-address column,
 * the encoding of FDE pointers, initial instructions) or an FDE (Frame
 * Description Entry: a pointer back to its CIE, the code range it covers, its
 * instructions). The FDE index symgen built finds the FDE by binary search;
 * nothing here walks the section.
 */
#include "cfi.h"

/* The value of a pointer field in format `format` (low nibble of a
 * DW_EH_PE_* encoding), before any relative base is added. */
static enum cfi_status read_pointer_format(struct memory_cursor *cursor, uint8_t format,
					   uintptr_t *value)
{
	switch (format) {
	case DW_EH_PE_absptr:
		*value = cursor_unsigned(cursor, sizeof(uintptr_t));
		break;
	case DW_EH_PE_uleb128:
		*value = cursor_uleb128(cursor);
		break;
	case DW_EH_PE_udata4:
		*value = cursor_u32(cursor);
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_udata8:
		/* udata2 is 2 bytes, udata8 is 8 */
		*value = cursor_unsigned(cursor, 1u << (format - 1));
		break;
	case DW_EH_PE_sleb128:
		*value = (uintptr_t)cursor_sleb128(cursor);
		break;
	case DW_EH_PE_sdata4: /* what GCC and clang use, with pcrel */
		*value = (uintptr_t)(intptr_t)(int32_t)cursor_u32(cursor);
		break;
	case DW_EH_PE_sdata2:
	case DW_EH_PE_sdata8:
		*value = (uintptr_t)cursor_signed(cursor, 1u << (format - 9));
		break;
	default:
		return CFI_MALFORMED;
	}
	return cursor->failed ? CFI_MALFORMED : CFI_OK;
}

enum cfi_status cfi_read_pointer(const struct tracer_config *config,
				 struct memory_cursor *cursor, uint8_t encoding,
				 uintptr_t *value)
{
	uintptr_t field = cursor->pos;
	enum cfi_status status;

	/* An indirect pointer would be a load from anywhere. */
	if (encoding == DW_EH_PE_omit || (encoding & DW_EH_PE_indirect))
		return CFI_UNSUPPORTED;
	status = read_pointer_format(cursor, encoding & 0x0f, value);
	if (status != CFI_OK)
		return status;
	switch (encoding & 0x70) {
	case DW_EH_PE_absptr:
		return CFI_OK;
	case DW_EH_PE_pcrel:
		*value += field;
		return CFI_OK;
	case DW_EH_PE_textrel:
		*value += config->text.start;
		return CFI_OK;
	case DW_EH_PE_datarel:
		*value += config->eh_frame.start;
		return CFI_OK;
	default: /* funcrel (LSDA only), aligned, undefined bases */
		return CFI_UNSUPPORTED;
	}
}

/*
 * Opens `entry` on the contents of the .eh_frame entry at addr (after its
 * length) and reads its CIE id or CIE pointer field into *id, recording in
 * *id_field where that field is.
 */
static enum cfi_status open_entry(const struct tracer_config *config, uintptr_t addr,
				  struct memory_cursor *entry, uintptr_t *id_field,
				  uintptr_t *id)
{
	uintptr_t length;
	unsigned id_size = 4;

	if (!memory_cursor_open(config, addr, config->eh_frame.end, entry))
		return CFI_MALFORMED;
	length = cursor_u32(entry);
	if (length == 0xffffffff) { /* 64-bit DWARF: 8-byte length and ids */
		length = cursor_unsigned(entry, 8);
		id_size = 8;
	}
	/* Length 0 is the terminator, not an entry. */
	if (entry->failed || length < id_size || length > entry->end - entry->pos)
		return CFI_MALFORMED;
	entry->end = entry->pos + length;
	*id_field = entry->pos;
	*id = id_size == 4 ? cursor_u32(entry) : cursor_unsigned(entry, 8);
	return entry->failed ? CFI_MALFORMED : CFI_OK;
}

/* The augmentation letters after 'z', read from the CIE's augmentation data. */
static enum cfi_status parse_augmentation_data(struct memory_cursor *cie_cursor,
					       struct memory_cursor *letters,
					       struct cfi_cie *cie)
{
	uintptr_t length = cursor_uleb128(cie_cursor);
	struct memory_cursor data;
	uintptr_t ignored;

	cursor_fork(&data, cie_cursor);
	cursor_skip(cie_cursor, length);
	if (cie_cursor->failed)
		return CFI_MALFORMED;
	data.end = cie_cursor->pos;
	for (char letter = (char)cursor_u8(letters); letter != '\0';
	     letter = (char)cursor_u8(letters)) {
		uint8_t encoding;

		switch (letter) {
		case 'R': /* how the FDEs encode their pointers */
			cie->fde_encoding = cursor_u8(&data);
			break;
		case 'P': /* the personality routine: skipped, never called */
			encoding = cursor_u8(&data);
			if (read_pointer_format(&data, encoding & 0x0f, &ignored) !=
			    CFI_OK)
				return CFI_MALFORMED;
			break;
		case 'L': /* the LSDA pointer's encoding; the FDE's z length skips it */
			cursor_u8(&data);
			break;
		case 'S':
			cie->is_signal_frame = true;
			break;
		default: /* unknown: 'z' says how much data to skip, done above */
			return data.failed ? CFI_MALFORMED : CFI_OK;
		}
	}
	return data.failed || letters->failed ? CFI_MALFORMED : CFI_OK;
}

static enum cfi_status parse_cie(const struct tracer_config *config, uintptr_t addr,
				 struct cfi_cie *cie)
{
	struct memory_cursor cursor;
	struct memory_cursor letters;
	uintptr_t id_field;
	uintptr_t id;
	enum cfi_status status = open_entry(config, addr, &cursor, &id_field, &id);
	uint8_t version;
	char first_letter;

	if (status != CFI_OK)
		return status;
	if (id != 0) /* an FDE where its FDE points at a CIE */
		return CFI_MALFORMED;
	version = cursor_u8(&cursor);
	if (version != 1 && version != 3)
		return CFI_UNSUPPORTED;
	/* The augmentation string: letters, NUL-terminated. */
	cursor_fork(&letters, &cursor);
	while (cursor_u8(&cursor) != '\0' && !cursor.failed)
		;
	cie->code_align = cursor_uleb128(&cursor);
	cie->data_align = cursor_sleb128(&cursor);
	cie->ra_column = version == 1 ? cursor_u8(&cursor) : cursor_uleb128(&cursor);
	cie->fde_encoding = DW_EH_PE_absptr;
	cie->is_signal_frame = false;
	first_letter = (char)cursor_u8(&letters);
	cie->has_augmentation_data = first_letter == 'z';
	if (cie->has_augmentation_data) {
		status = parse_augmentation_data(&cursor, &letters, cie);
		if (status != CFI_OK)
			return status;
	} else if (first_letter != '\0') {
		/* Letters without 'z': their data's size is unknown. */
		return CFI_UNSUPPORTED;
	}
	if (cursor.failed)
		return CFI_MALFORMED;
	cie->instructions = cursor.pos;
	cie->end = cursor.end;
	return CFI_OK;
}

enum cfi_status cfi_parse_fde(const struct tracer_config *config, uintptr_t fde_addr,
			      struct cfi_fde *fde)
{
	struct memory_cursor cursor;
	uintptr_t id_field;
	uintptr_t cie_pointer;
	uintptr_t pc_range;
	enum cfi_status status =
	    open_entry(config, fde_addr, &cursor, &id_field, &cie_pointer);

	if (status != CFI_OK)
		return status;
	/* The CIE pointer counts back from its own field; 0 marks a CIE. */
	if (cie_pointer == 0 || cie_pointer > id_field - config->eh_frame.start)
		return CFI_MALFORMED;
	status = parse_cie(config, id_field - cie_pointer, &fde->cie);
	if (status != CFI_OK)
		return status;
	status = cfi_read_pointer(config, &cursor, fde->cie.fde_encoding, &fde->pc_start);
	if (status != CFI_OK)
		return status;
	/* The range is a length: the pointer's format, without its base. */
	status = read_pointer_format(&cursor, fde->cie.fde_encoding & 0x0f, &pc_range);
	if (status != CFI_OK)
		return status;
	fde->pc_end = fde->pc_start + pc_range;
	if (fde->pc_end < fde->pc_start)
		return CFI_MALFORMED;
	if (fde->cie.has_augmentation_data)
		cursor_skip(&cursor, cursor_uleb128(&cursor));
	if (cursor.failed)
		return CFI_MALFORMED;
	fde->instructions = cursor.pos;
	fde->end = cursor.end;
	return CFI_OK;
}

/* The last index entry whose pc_start <= pc, or NULL. */
static const struct tracer_fde_entry *
fde_index_lookup(const struct tracer_fde_index *index, uintptr_t pc)
{
	uint32_t low = 0;
	uint32_t high = index->count;

	/* Invariant: entries below low start at or before pc, entries from
	 * high on start after it. */
	while (low < high) {
		uint32_t middle = low + (high - low) / 2;

		if (index->entries[middle].pc_start <= pc)
			low = middle + 1;
		else
			high = middle;
	}
	return low > 0 ? &index->entries[low - 1] : NULL;
}

enum cfi_status cfi_find_fde(const struct tracer_config *config, uintptr_t pc,
			     struct cfi_fde *fde)
{
	const struct tracer_fde_entry *entry =
	    config->fde_index ? fde_index_lookup(config->fde_index, pc) : NULL;
	enum cfi_status status;

	if (!entry)
		return CFI_NOT_FOUND;
	status = cfi_parse_fde(config, entry->fde, fde);
	if (status != CFI_OK)
		return status;
	/* An index that disagrees with the CFI, or CFI for code that is not
	 * ours, is not to be trusted. */
	if (fde->pc_start != entry->pc_start || fde->pc_start < config->text.start ||
	    fde->pc_end > config->text.end)
		return CFI_MALFORMED;
	return pc < fde->pc_end ? CFI_OK : CFI_NOT_FOUND;
}
