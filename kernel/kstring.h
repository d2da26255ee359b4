/*
 * kstring.h - the few string helpers the kernel needs (there is no libc).
 */
#ifndef KERNEL_KSTRING_H
#define KERNEL_KSTRING_H

#include <stdbool.h>
#include <stddef.h>

bool str_equal(const char *a, const char *b);
bool str_starts_with(const char *s, const char *prefix);

/* What GCC may call for struct copies and initializers. */
void *memset(void *to, int byte, size_t size);
void *memcpy(void *restrict to, const void *restrict from, size_t size);

#endif /* KERNEL_KSTRING_H */
