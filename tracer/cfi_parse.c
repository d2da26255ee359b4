/*
 * cfi_parse.c - step 1 of the DWARF unwinder: find and read the FDE that
 * covers a pc, and its CIE.
 *
 * .eh_frame is a list of entries, each a length and then either a CIE
 * (Common Information Entry: alignment factors, the return-address column,
 * the encoding of FDE pointers, initial instructions) or an FDE (Frame
 * Description Entry: a pointer back to its CIE, the code range it covers, its
 * instructions). The FDE index symgen built finds the FDE by binary search;
 * only the build tools walk the whole section (cfi_read_entry).
 */
#include "cfi.h"

/* The value of a pointer field in format `format` (low nibble of a
 * DW_EH_PE_* encoding), before any relative base is added. */
static enum cfi_status read_pointer_format(struct memory_cursor *cursor, uint8_t format,
					   uintptr_t *value)
{
	switch (format) {
	case DW_EH_PE_absptr: /* the image's word: see TARGET_WORD_SIZE */
		*value = cursor_unsigned(cursor, TARGET_WORD_SIZE);
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
		break;
	case DW_EH_PE_pcrel:
		*value += field;
		break;
	case DW_EH_PE_textrel:
		*value += config->text.start;
		break;
	case DW_EH_PE_datarel:
		*value += config->eh_frame.start;
		break;
	default: /* funcrel (LSDA only), aligned, undefined bases */
		return CFI_UNSUPPORTED;
	}
	/* An address of the image, wrapping as its own do. */
	*value = target_address(*value);
	return CFI_OK;
}

/*
 * The calls in the FDE parser that read through a cursor (cursor_unsigned,
 * the long LEB128s, the general pointer encodings) read a copy: its own
 * cursor, whose address is then never taken, stays in registers.
 */
static inline uintptr_t read_u64(struct memory_cursor *cursor)
{
	struct memory_cursor copy;
	uintptr_t value;

	cursor_fork(&copy, cursor);
	value = cursor_unsigned(&copy, 8);
	cursor_fork(cursor, &copy);
	return value;
}

/* Skips a ULEB128 length and that many bytes (augmentation data). */
static inline void skip_counted(struct memory_cursor *cursor)
{
	struct memory_cursor copy;

	cursor_fork(&copy, cursor);
	cursor_skip(&copy, cursor_uleb128(&copy));
	cursor_fork(cursor, &copy);
}

/*
 * What parse_fde's instance for the walk (may_call false) returns where the
 * parse needs a function call; the caller then runs the instance that may
 * call (see parse_fde). Never returned out of this file.
 */
#define CFI_NEEDS_CALL ((enum cfi_status)(CFI_UNREADABLE + 1))

/*
 * Opens `entry` on the contents of the .eh_frame entry at addr (after its
 * length) and reads its CIE id or CIE pointer field into *id, recording in
 * *id_field where that field is. Without may_call, an unaligned entry or a
 * 64-bit length is CFI_NEEDS_CALL: their reads are calls.
 */
static inline __attribute__((always_inline)) enum cfi_status
open_entry(const struct tracer_config *config, uintptr_t addr,
	   struct memory_cursor *entry, uintptr_t *id_field, uintptr_t *id, bool may_call)
{
	uintptr_t length;
	unsigned id_size = 4;

	if (!may_call && addr % 4 != 0)
		return CFI_NEEDS_CALL;
	if (!memory_cursor_open(config, addr, config->eh_frame.end, entry))
		return CFI_FAIL(CFI_MALFORMED, "entry at 0x%jx lies outside the section",
				(uintmax_t)addr);
	length = cursor_u32(entry);
	if (length == 0xffffffff) { /* 64-bit DWARF: 8-byte length and ids */
		if (!may_call)
			return CFI_NEEDS_CALL;
		length = read_u64(entry);
		id_size = 8;
	}
	if (entry->failed)
		return CFI_FAIL(CFI_MALFORMED,
				"length field runs past the end of the section");
	/* Length 0 is the terminator, not an entry. */
	if (length < id_size)
		return CFI_FAIL(CFI_MALFORMED,
				"length 0x%jx leaves no room for the CIE id",
				(uintmax_t)length);
	if (length > entry->end - entry->pos)
		return CFI_FAIL(CFI_MALFORMED,
				"length 0x%jx runs past the end of the section",
				(uintmax_t)length);
	entry->end = entry->pos + length;
	*id_field = entry->pos;
	/* Cannot fail: the length covers the id. */
	*id = id_size == 4 ? cursor_u32(entry) : read_u64(entry);
	return CFI_OK;
}

/* The augmentation letters after 'z', read from the CIE's augmentation data. */
static enum cfi_status parse_augmentation_data(struct memory_cursor *cie_cursor,
					       struct memory_cursor *letters,
					       struct tracer_cie *cie)
{
	uintptr_t length = cursor_uleb128(cie_cursor);
	struct memory_cursor data;
	uintptr_t ignored;

	cursor_fork(&data, cie_cursor);
	cursor_skip(cie_cursor, length);
	if (cie_cursor->failed)
		return CFI_FAIL(
		    CFI_MALFORMED,
		    "CIE fields or augmentation data (0x%jx bytes) run past the end of "
		    "the CIE",
		    (uintmax_t)length);
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
				return CFI_FAIL(
				    CFI_MALFORMED,
				    "unsupported personality pointer encoding 0x%02x",
				    encoding);
			break;
		case 'L': /* the LSDA pointer's encoding; the FDE's z length skips it */
			cursor_u8(&data);
			break;
		case 'S':
			cie->is_signal_frame = true;
			break;
		default: /* unknown: 'z' says how much data to skip, done above */
			return data.failed ? CFI_FAIL(CFI_MALFORMED,
						      "CIE augmentation data too short")
					   : CFI_OK;
		}
	}
	return data.failed || letters->failed
		   ? CFI_FAIL(CFI_MALFORMED, "CIE augmentation data too short")
		   : CFI_OK;
}

/* Not inlined: a walk reads its CIEs once, and parse_fde, which runs every
 * frame, then keeps a small frame. */
static __attribute__((noinline)) enum cfi_status
parse_cie(const struct tracer_config *config, uintptr_t addr, struct tracer_cie *cie)
{
	struct memory_cursor cursor;
	struct memory_cursor letters;
	uintptr_t id_field;
	uintptr_t id;
	enum cfi_status status = open_entry(config, addr, &cursor, &id_field, &id, true);
	uint8_t version;
	char first_letter;

	if (status != CFI_OK)
		return status;
	if (id != 0) /* an FDE where its FDE points at a CIE */
		return CFI_FAIL(CFI_MALFORMED,
				"CIE pointer leads to offset 0x%jx, where no CIE starts",
				(uintmax_t)(addr - config->eh_frame.start));
	version = cursor_u8(&cursor);
	if (version != 1 && version != 3)
		return CFI_FAIL(CFI_UNSUPPORTED,
				"unsupported CIE version %u (1 and 3 are supported)",
				version);
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
		return CFI_FAIL(CFI_UNSUPPORTED,
				"unsupported CIE augmentation (does not start with 'z')");
	}
	if (cursor.failed)
		return CFI_FAIL(CFI_MALFORMED, "CIE fields run past the end of the CIE");
	cie->address = addr;
	cie->initial_known = false;
	cie->instructions = cursor.pos;
	cie->end = cursor.end;
	return CFI_OK;
}

/* read_fde_range's other encodings. */
static __attribute__((noinline)) enum cfi_status
read_fde_range_general(const struct tracer_config *config, struct memory_cursor *cursor,
		       uint8_t encoding, uintptr_t *start, uintptr_t *range)
{
	enum cfi_status status = cfi_read_pointer(config, cursor, encoding, start);

	/* The range is a length: the pointer's format, without its base. */
	return status == CFI_OK ? read_pointer_format(cursor, encoding & 0x0f, range)
				: status;
}

/* An FDE's pc_begin and pc_range fields, in the CIE's encoding; without
 * may_call, only GCC's and clang's (pcrel sdata4), read in line. */
static inline __attribute__((always_inline)) enum cfi_status
read_fde_range(const struct tracer_config *config, struct memory_cursor *cursor,
	       uint8_t encoding, uintptr_t *start, uintptr_t *range, bool may_call)
{
	uintptr_t field = cursor->pos;
	struct memory_cursor copy;
	enum cfi_status status;

	if (encoding == (DW_EH_PE_pcrel | DW_EH_PE_sdata4)) {
		*start = target_address(field +
					(uintptr_t)(intptr_t)(int32_t)cursor_u32(cursor));
		*range = (uintptr_t)(intptr_t)(int32_t)cursor_u32(cursor);
		return cursor->failed ? CFI_MALFORMED : CFI_OK;
	}
	if (!may_call)
		return CFI_NEEDS_CALL;
	/* The others on a copy of the cursor (see read_u64). */
	cursor_fork(&copy, cursor);
	status = read_fde_range_general(config, &copy, encoding, start, range);
	cursor_fork(cursor, &copy);
	return status;
}

/*
 * The FDE at fde_addr and its CIE: cfi_parse_fde, with the CIE `cache` read
 * last (NULL: none), where the FDE's CIE is then left instead of in
 * fde->cie.
 *
 * One parser, in two instances. The walk parses an FDE every frame, and a
 * function that makes a call, even on a path it seldom takes, saves and
 * restores registers on every path (the cost: docs/speed.md, DWARF). So
 * the walk first runs the instance without calls (may_call false), which
 * reads what GCC and clang write (an aligned entry with a 32-bit length,
 * the CIE the walk read last, pcrel sdata4 pointers, an augmentation
 * length below 0x80) and returns CFI_NEEDS_CALL where a read would call a
 * function: reading another CIE, a 64-bit length, an unaligned field,
 * another pointer encoding, a longer ULEB128. The walk then runs the
 * instance that may call, from the start. Both make the same checks, in
 * the same order.
 */
static inline __attribute__((always_inline)) enum cfi_status
parse_fde(const struct tracer_config *config, uintptr_t fde_addr,
	  struct tracer_cie *cache, struct cfi_fde *fde, bool may_call)
{
	struct tracer_cie *cie = cache ? cache : &fde->cie;
	struct memory_cursor cursor;
	uintptr_t id_field;
	uintptr_t cie_pointer;
	uintptr_t cie_addr;
	uintptr_t pc_range;
	enum cfi_status status =
	    open_entry(config, fde_addr, &cursor, &id_field, &cie_pointer, may_call);

	if (status != CFI_OK)
		return status;
	/* The CIE pointer counts back from its own field; 0 marks a CIE. */
	if (cie_pointer == 0)
		return CFI_FAIL(CFI_MALFORMED, "a CIE where an FDE should be");
	if (cie_pointer > id_field - config->eh_frame.start)
		return CFI_FAIL(
		    CFI_MALFORMED,
		    "CIE pointer 0x%jx points before the start of the section",
		    (uintmax_t)cie_pointer);
	cie_addr = id_field - cie_pointer;
	/* The cache proved the CIE valid when it read it: not read again. */
	if (!cache || cache->address != cie_addr) {
		if (!may_call)
			return CFI_NEEDS_CALL;
		status = parse_cie(config, cie_addr, cie);
		if (status != CFI_OK) {
			/* Half-written: no CIE's. */
			cie->address = UINTPTR_MAX;
			return status;
		}
	}
	status = read_fde_range(config, &cursor, cie->fde_encoding, &fde->pc_start,
				&pc_range, may_call);
	if (status == CFI_NEEDS_CALL)
		return status;
	if (status != CFI_OK)
		return cursor.failed
			   ? CFI_FAIL(status,
				      "FDE address range runs past the end of the FDE")
			   : CFI_FAIL(status,
				      "unsupported FDE pointer encoding 0x%02x (from "
				      "the CIE at offset 0x%jx)",
				      cie->fde_encoding,
				      (uintmax_t)(cie_addr - config->eh_frame.start));
	/* Wrapping as the image's addresses do (target_address). */
	fde->pc_end = target_address(fde->pc_start + target_address(pc_range));
	if (fde->pc_end < fde->pc_start)
		return CFI_FAIL(
		    CFI_MALFORMED,
		    "FDE range 0x%jx+0x%jx runs past the end of the address space",
		    (uintmax_t)fde->pc_start, (uintmax_t)target_address(pc_range));
	/* A ULEB128 length, and that many bytes of data, skipped; without
	 * may_call, a length of one byte (below 0x80). */
	if (cie->has_augmentation_data) {
		if (may_call)
			skip_counted(&cursor);
		else if (cursor.pos < cursor.end && !(target_u8(cursor.pos) & 0x80))
			cursor_skip(&cursor, cursor_u8(&cursor));
		else
			return CFI_NEEDS_CALL;
	}
	if (cursor.failed)
		return CFI_FAIL(
		    CFI_MALFORMED,
		    "FDE fields or augmentation data run past the end of the FDE");
	fde->instructions = cursor.pos;
	fde->end = cursor.end;
	return CFI_OK;
}

enum cfi_status cfi_parse_fde(const struct tracer_config *config, uintptr_t fde_addr,
			      struct cfi_fde *fde)
{
	return parse_fde(config, fde_addr, NULL, fde, true);
}

/* The last index entry whose pc_start <= pc, or NULL. */
static const struct tracer_fde_entry *
fde_index_lookup(const struct tracer_fde_index *index, uintptr_t pc)
{
	return sorted_search(index->entries, index->count,
			     sizeof(struct tracer_fde_entry), pc);
}

/* Whether the FDE parsed for `entry` may be used for pc: an index that
 * disagrees with the CFI, or CFI for code that is not ours, is not to be
 * trusted. */
static inline enum cfi_status check_found(const struct tracer_config *config,
					  const struct tracer_fde_entry *entry,
					  uintptr_t pc, const struct cfi_fde *fde)
{
	if (fde->pc_start != entry->pc_start || fde->pc_start < config->text.start ||
	    fde->pc_end > config->text.end)
		return CFI_MALFORMED;
	return pc < fde->pc_end ? CFI_OK : CFI_NOT_FOUND;
}

/* find_from_entry through parse_fde's general instance, which may call.
 * Not inlined: the walk's common path reaches it by a tail call, and then
 * keeps no register across a call and saves none. */
static __attribute__((noinline)) enum cfi_status
find_fde_general(const struct tracer_config *config, uintptr_t pc,
		 const struct tracer_fde_entry *entry, struct tracer_cie *cie,
		 struct cfi_fde *fde)
{
	enum cfi_status status = parse_fde(config, entry->fde, cie, fde, true);

	return status == CFI_OK ? check_found(config, entry, pc, fde) : status;
}

/* The FDE of `entry`, the index's last at or below pc (see parse_fde). */
static inline __attribute__((always_inline)) enum cfi_status
find_from_entry(const struct tracer_config *config, uintptr_t pc,
		const struct tracer_fde_entry *entry, struct tracer_cie *cie,
		struct cfi_fde *fde)
{
	enum cfi_status status = parse_fde(config, entry->fde, cie, fde, false);

	if (status == CFI_NEEDS_CALL)
		return find_fde_general(config, pc, entry, cie, fde);
	return status == CFI_OK ? check_found(config, entry, pc, fde) : status;
}

enum cfi_status cfi_find_fde(const struct tracer_config *config, uintptr_t pc,
			     struct tracer_cie *cie, struct cfi_fde *fde)
{
	const struct tracer_fde_entry *entry =
	    config->fde_index ? fde_index_lookup(config->fde_index, pc) : NULL;

	if (!entry)
		return CFI_NOT_FOUND;
	return find_from_entry(config, pc, entry, cie, fde);
}

enum cfi_status cfi_find_walk_fde(const struct walk *walk, uintptr_t pc,
				  struct tracer_cie *cie, struct cfi_fde *fde)
{
	const struct tracer_config *config = walk->config;
	const struct tracer_fde_entry *entries = config->fde_index->entries;
	const struct tracer_fde_entry *entry;

	if (pc < entries[0].pc_start)
		return CFI_NOT_FOUND;
	entry = sorted_search_from(entries, walk->fde_first_probe, walk->fde_levels,
				   sizeof(struct tracer_fde_entry), pc);
	return find_from_entry(config, pc, entry, cie, fde);
}

#ifdef TRACER_HOST_VIEW
enum cfi_status cfi_read_entry(const struct tracer_config *config, uintptr_t addr,
			       struct cfi_entry *entry)
{
	struct memory_cursor cursor;
	uintptr_t id_field;
	uintptr_t id;
	enum cfi_status status;

	if (memory_cursor_open(config, addr, config->eh_frame.end, &cursor) &&
	    cursor_u32(&cursor) == 0 && !cursor.failed) {
		entry->kind = CFI_ENTRY_TERMINATOR;
		entry->next = cursor.pos;
		return CFI_OK;
	}
	status = open_entry(config, addr, &cursor, &id_field, &id, true);
	if (status != CFI_OK)
		return status;
	entry->next = cursor.end;
	if (id == 0) {
		entry->kind = CFI_ENTRY_CIE;
		return parse_cie(config, addr, &entry->cie);
	}
	entry->kind = CFI_ENTRY_FDE;
	return cfi_parse_fde(config, addr, &entry->fde);
}
#endif
