/*
 * kstring.c - see kstring.h.
 */
#include "kstring.h"

#include <stdint.h>

bool str_equal(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

bool str_starts_with(const char *s, const char *prefix)
{
	while (*prefix && *s == *prefix) {
		s++;
		prefix++;
	}
	return *prefix == '\0';
}

/*
 * GCC may call memset and memcpy even in freestanding code, to initialize
 * or copy a struct (the tracer's config, built as the porting guide shows).
 * They move whole words when they can: the benchmark's libgcc unwinder
 * (tests/bench/) clears and copies hundreds of bytes a frame with them, and
 * byte loops would charge it for our slowness instead of its own.
 */
static int word_aligned(const void *pointer)
{
	return (uintptr_t)pointer % sizeof(uintptr_t) == 0;
}

/* The stores go through volatile pointers so that the compiler cannot turn
 * these loops back into calls to memcpy and memset themselves. `used`: an
 * LTO build sees the calls the compiler makes only after it dropped
 * functions nothing called by name. */
__attribute__((used)) void *memcpy(void *restrict to, const void *restrict from,
				   size_t size)
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

__attribute__((used)) void *memset(void *to, int byte, size_t size)
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
