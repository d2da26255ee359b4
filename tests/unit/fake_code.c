/*
 * fake_code.c - see fake_code.h.
 */
#include "fake_code.h"
#include "fake_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A test that builds more than the buffers hold, or nothing, is itself
 * broken. */
static void need(bool condition, const char *what)
{
	if (!condition) {
		fprintf(stderr, "fake_code: %s\n", what);
		abort();
	}
}

void fake_code_init(struct fake_code *code)
{
	memset(code, 0, sizeof(*code));
}

void fake_code_free(struct fake_code *code)
{
	free(code->block);
	code->block = NULL;
}

static void add_symbol(struct fake_code *code, const char *name, size_t offset,
		       size_t count)
{
	struct tracer_symbol *symbol = &code->symbols[code->symbol_count];
	size_t length = strlen(name) + 1;

	need(code->symbol_count < FAKE_CODE_FUNCTIONS, "symbol table full");
	need(length <= FAKE_CODE_NAMES - code->names_size, "name buffer full");
	memcpy(code->names + code->names_size, name, length);
	/* The address is known once sealed: keep the offset until then. */
	symbol->addr = offset;
	symbol->size = (uint32_t)(count * sizeof(uint16_t));
	symbol->name = (uint32_t)code->names_size;
	code->names_size += length;
	code->symbol_count++;
}

size_t fake_code_function(struct fake_code *code, const char *name,
			  const uint16_t *parcels, size_t count)
{
	size_t offset = code->count * sizeof(uint16_t);

	need(count <= FAKE_CODE_PARCELS - code->count, "code buffer full");
	memcpy(code->parcels + code->count, parcels, count * sizeof(uint16_t));
	code->count += count;
	if (name)
		add_symbol(code, name, offset, count);
	return offset;
}

uintptr_t fake_code_seal(struct fake_code *code, struct tracer_config *config)
{
	size_t bytes = code->count * sizeof(uint16_t);

	need(bytes > 0, "no code");
	code->block = malloc(bytes);
	need(code->block != NULL, "out of memory");
	memcpy(code->block, code->parcels, bytes);
	for (uint32_t i = 0; i < code->symbol_count; i++)
		code->symbols[i].addr += (uintptr_t)code->block;
	/* symgen pads the names with NULs to a multiple of 4 bytes. */
	fake_symtab_fill(&code->symtab, code->symbols, code->symbol_count, code->names,
			 code->symbol_count ? (uint32_t)(code->names_size + 3) / 4 * 4
					    : 0);
	fake_tables_anywhere(config);
	config->text.start = (uintptr_t)code->block;
	config->text.end = (uintptr_t)code->block + bytes;
	config->symtab = &code->symtab;
	return (uintptr_t)code->block;
}

uintptr_t fake_code_addr(const struct fake_code *code, size_t offset)
{
	return (uintptr_t)code->block + offset;
}

uintptr_t fake_code_end(const struct fake_code *code)
{
	return fake_code_addr(code, code->count * sizeof(uint16_t));
}
