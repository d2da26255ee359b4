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

static int word_aligned(const void *pointer)
{
	return (uintptr_t)pointer % sizeof(uintptr_t) == 0;
}

/* The stores go through volatile pointers so that the compiler cannot turn
 * these loops back into calls to memcpy and memset themselves. */
void *memcpy(void *restrict to, const void *restrict from, size_t size)
{
	volatile unsigned char *to_byte = to;
	const unsigned char *from_byte = from;

	if (word_aligned(to) && word_aligned(from)) {
		volatile uintptr_t *to_word = to;
		const uintptr_t *from_word = from;

		for (; size >= sizeof(uintptr_t); size -= sizeof(uintptr_t))
			*to_word++ = *from_word++;
		to_byte = (volatile unsigned char *)to_word;
		from_byte = (const unsigned char *)from_word;
	}
	while (size--)
		*to_byte++ = *from_byte++;
	return to;
}

void *memset(void *to, int byte, size_t size)
{
	volatile unsigned char *to_byte = to;

	if (word_aligned(to)) {
		volatile uintptr_t *to_word = to;
		/* The byte repeated in every byte of a word. */
		uintptr_t pattern = (uintptr_t)-1 / 0xff * (unsigned char)byte;

		for (; size >= sizeof(uintptr_t); size -= sizeof(uintptr_t))
			*to_word++ = pattern;
		to_byte = (volatile unsigned char *)to_word;
	}
	while (size--)
		*to_byte++ = (unsigned char)byte;
	return to;
}

size_t strlen(const char *string)
{
	size_t length = 0;

	while (string[length])
		length++;
	return length;
}
