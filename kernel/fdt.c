/*
 * fdt.c - read a flattened device tree (Devicetree Specification, chapter 5:
 * big-endian header, then a structure block of 4-byte tokens, then a strings
 * block holding property names): /chosen/bootargs, and the address of a
 * device by its compatible string.
 */
#include "fdt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kstring.h"

#define FDT_MAGIC	      0xd00dfeed
#define FDT_BEGIN_NODE	      1
#define FDT_END_NODE	      2
#define FDT_PROP	      3
#define FDT_NOP		      4
#define FDT_MAX_SIZE	      0x100000 /* refuse headers claiming more than 1 MiB */
#define FDT_MAX_DEPTH	      8	       /* deeper nodes are walked, not searched */
#define DEFAULT_ADDRESS_CELLS 2

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Length of the NUL-terminated string at s, or `limit` if none ends before. */
static size_t bounded_strlen(const char *s, size_t limit)
{
	size_t n = 0;

	while (n < limit && s[n])
		n++;
	return n;
}

/* What the walk shows its visitor: a property, or the end of a node. */
struct fdt_item {
	unsigned depth;	      /* 1: the root node */
	const char *node;     /* the name of the node */
	const char *property; /* NULL at the node's end */
	const uint8_t *value;
	uint32_t len;
};

/*
 * Calls visit for every property (the specification puts a node's properties
 * before its children, so `node` names the property's node) and at the end
 * of every node, until visit returns true. False if it never did, or the
 * tree is malformed.
 */
static bool fdt_walk(const void *fdt,
		     bool (*visit)(void *context, const struct fdt_item *), void *context)
{
	const uint8_t *base = fdt;
	uint32_t total, off, end, strings, strings_size;
	struct fdt_item item = {0, "", NULL, NULL, 0};

	if (!base || be32(base) != FDT_MAGIC)
		return false;
	total = be32(base + 4);
	off = be32(base + 8);
	strings = be32(base + 12);
	strings_size = be32(base + 32);
	end = off + be32(base + 36);
	if (total > FDT_MAX_SIZE || end > total || end < off || strings > total ||
	    strings_size > total - strings)
		return false;

	while (off + 4 <= end) {
		uint32_t token = be32(base + off);

		off += 4;
		if (token == FDT_BEGIN_NODE) {
			size_t len = bounded_strlen((const char *)base + off, end - off);

			item.node = (const char *)base + off;
			item.depth++;
			off += (uint32_t)(len + 4) & ~3u; /* name, NUL, pad to 4 */
		} else if (token == FDT_END_NODE) {
			item.property = NULL;
			if (visit(context, &item))
				return true;
			item.depth--;
		} else if (token == FDT_PROP && off + 8 <= end) {
			uint32_t name_off = be32(base + off + 4);

			item.len = be32(base + off);
			item.value = base + off + 8;
			off += 8;
			if (item.len > end - off || name_off >= strings_size ||
			    bounded_strlen((const char *)base + strings + name_off,
					   strings_size - name_off) ==
				strings_size - name_off)
				return false;
			item.property = (const char *)base + strings + name_off;
			if (visit(context, &item))
				return true;
			off += (item.len + 3) & ~3u;
		} else if (token != FDT_NOP) {
			break; /* FDT_END (9), or something we do not understand */
		}
	}
	return false;
}

static bool find_bootargs(void *context, const struct fdt_item *item)
{
	const char **bootargs = context;

	if (item->property && item->depth == 2 && str_equal(item->node, "chosen") &&
	    str_equal(item->property, "bootargs") && item->len > 0 &&
	    item->value[item->len - 1] == '\0') {
		*bootargs = (const char *)item->value;
		return true;
	}
	return false;
}

const char *fdt_bootargs(const void *fdt)
{
	const char *bootargs = "";

	fdt_walk(fdt, find_bootargs, &bootargs);
	return bootargs;
}

struct device_search {
	const char *compatible;
	/* For each depth on the path to the current node: the #address-cells
	 * the node gives its children, whether it is compatible, its reg. */
	uint32_t address_cells[FDT_MAX_DEPTH + 1];
	bool matches[FDT_MAX_DEPTH + 1];
	const uint8_t *reg[FDT_MAX_DEPTH + 1];
	uint32_t reg_len[FDT_MAX_DEPTH + 1];
	uintptr_t address;
};

/* Whether the string list (NUL-separated) of a compatible property holds s. */
static bool list_holds(const uint8_t *list, uint32_t len, const char *s)
{
	uint32_t at = 0;

	while (at < len) {
		size_t n = bounded_strlen((const char *)list + at, len - at);

		if (n < len - at && str_equal((const char *)list + at, s))
			return true;
		at += (uint32_t)n + 1;
	}
	return false;
}

static bool find_device(void *context, const struct fdt_item *item)
{
	struct device_search *search = context;
	unsigned depth = item->depth;
	uint32_t cells;
	uint64_t address = 0;

	if (depth < 1 || depth > FDT_MAX_DEPTH)
		return false;
	if (item->property) {
		if (str_equal(item->property, "#address-cells") && item->len == 4)
			search->address_cells[depth] = be32(item->value);
		else if (str_equal(item->property, "compatible"))
			search->matches[depth] =
			    list_holds(item->value, item->len, search->compatible);
		else if (str_equal(item->property, "reg")) {
			search->reg[depth] = item->value;
			search->reg_len[depth] = item->len;
		}
		return false;
	}
	/* The node ends: its first reg address, if it is the one (and fits). */
	cells = search->address_cells[depth - 1];
	if (search->matches[depth] && search->reg[depth] && cells >= 1 && cells <= 2 &&
	    search->reg_len[depth] >= 4 * cells) {
		for (uint32_t i = 0; i < cells; i++)
			address = address << 32 | be32(search->reg[depth] + 4 * i);
		search->address = (uintptr_t)address;
		if (search->address == address)
			return true;
	}
	/* The next node at this depth starts afresh. */
	search->address_cells[depth] = DEFAULT_ADDRESS_CELLS;
	search->matches[depth] = false;
	search->reg[depth] = NULL;
	return false;
}

bool fdt_device_address(const void *fdt, const char *compatible, uintptr_t *address)
{
	struct device_search search = {.compatible = compatible};

	for (unsigned i = 0; i <= FDT_MAX_DEPTH; i++)
		search.address_cells[i] = DEFAULT_ADDRESS_CELLS;
	if (!fdt_walk(fdt, find_device, &search))
		return false;
	*address = search.address;
	return true;
}
