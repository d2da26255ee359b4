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
