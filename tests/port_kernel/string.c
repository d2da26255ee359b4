/* string.c - the few string functions the kernel uses. */
#include "defs.h"

/* A word store into memory of any type. */
typedef uint64 __attribute__((may_alias)) any_word;

void *memset(void *dst, int c, uint64 n)
{
	uchar *d = dst;
	uint64 word = (uchar)c * 0x0101010101010101ul;

	/* Word stores where aligned: kinit() fills all of RAM. */
	for (; n > 0 && (uint64)d % 8 != 0; n--)
		*d++ = (uchar)c;
	for (; n >= 8; n -= 8, d += 8)
		*(any_word *)d = word;
	for (; n > 0; n--)
		*d++ = (uchar)c;
	return dst;
}

void *memmove(void *dst, const void *src, uint64 n)
{
	const uchar *s = src;
	uchar *d = dst;

	if (s < d && s + n > d) {
		while (n-- > 0)
			d[n] = s[n];
	} else {
		while (n-- > 0)
			*d++ = *s++;
	}
	return dst;
}

int strncmp(const char *p, const char *q, uint64 n)
{
	while (n > 0 && *p && *p == *q)
		n--, p++, q++;
	if (n == 0)
		return 0;
	return (uchar)*p - (uchar)*q;
}

int strcmp(const char *p, const char *q)
{
	while (*p && *p == *q)
		p++, q++;
	return (uchar)*p - (uchar)*q;
}

/* Copies at most n - 1 bytes of t, always NUL-terminated. */
char *safestrcpy(char *s, const char *t, int n)
{
	char *os = s;

	if (n <= 0)
		return os;
	while (--n > 0 && (*s++ = *t++) != 0)
		;
	*s = 0;
	return os;
}
