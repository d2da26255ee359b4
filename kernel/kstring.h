/*
 * kstring.h - the few string helpers the kernel needs (there is no libc).
 */
#ifndef KERNEL_KSTRING_H
#define KERNEL_KSTRING_H

#include <stdbool.h>

bool str_equal(const char *a, const char *b);
bool str_starts_with(const char *s, const char *prefix);

#endif /* KERNEL_KSTRING_H */
