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
