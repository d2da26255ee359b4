/*
 * kstring.c - see kstring.h.
 */
#include "kstring.h"

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
 * Byte by byte through volatile: the compiler must not turn these loops
 * back into calls to themselves.
 */
void *memset(void *to, int value, size_t size)
{
	volatile unsigned char *byte = to;

	while (size--)
		*byte++ = (unsigned char)value;
	return to;
}

void *memcpy(void *restrict to, const void *restrict from, size_t size)
{
	volatile unsigned char *byte = to;
	const unsigned char *source = from;

	while (size--)
		*byte++ = *source++;
	return to;
}
