/*
 * libgcc_support.c - the C library functions libgcc's DWARF unwinder
 * (unwind-dw2.o, unwind-dw2-fde.o) calls, for the benchmark kernel only:
 * malloc and free (to sort the registered FDEs) and strlen; memcpy and
 * memset are the kernel's (kernel/kstring.c). The demo kernel links none
 * of this; the tracer needs no allocator.
 */
#include <stddef.h>
#include <stdint.h>

void *malloc(size_t size);
void free(void *block);
size_t strlen(const char *string);

#define ARENA_SIZE  (16 * 1024)
#define BLOCK_ALIGN 16 /* what malloc promises on rv64 */

static _Alignas(BLOCK_ALIGN) unsigned char arena[ARENA_SIZE];
static size_t arena_used;

/* A bump allocator: libgcc allocates a few sort buffers once. */
void *malloc(size_t size)
{
	size_t rounded = (size + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);
	void *block;

	if (rounded < size || rounded > ARENA_SIZE - arena_used)
		return NULL;
	block = arena + arena_used;
	arena_used += rounded;
	return block;
}

/* Nothing to give back: the benchmark runs once, then powers off. */
void free(void *block)
{
	(void)block;
}

size_t strlen(const char *string)
{
	size_t length = 0;

	while (string[length])
		length++;
	return length;
}
