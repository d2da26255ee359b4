/*
 * die.h - error exits of the host tools, and the allocations they free.
 *
 * Errors are found deep inside the ELF and .eh_frame readers; checking a
 * return value after every read would double their size. So die() does not
 * return: it prints one line and ends the program, or, inside die_catch(),
 * jumps back to die_catch, which frees every block allocated with the
 * tracked_* functions and returns 1. That lets symgen run as a function many
 * times in one process (the fuzzer does) without leaking.
 */
#ifndef SYMGEN_DIE_H
#define SYMGEN_DIE_H

#include <stddef.h>
#include <stdio.h>

/* The tool die() names: "symgen" unless another tool sets its own name. */
extern const char *die_program;

/* Prints "<die_program>: <path>: <message>" and exits with status 1, or,
 * inside die_catch(), returns 1 from it. */
_Noreturn void die(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "<die_program>: <path>: warning: <message>" where die() would
 * and returns. */
void warn(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Returns run(context), or 1 if it died; die() writes its message to err.
 * When it returns, every tracked block has been freed (so tracked blocks
 * belong to one run). Not reentrant. Whoever owns a resource that is not a
 * tracked block (an open file) must release it before calling die().
 */
int die_catch(FILE *err, int (*run)(void *context), void *context);

/* count * size zeroed bytes; dies, naming path, when out of memory. */
void *tracked_alloc(const char *path, size_t count, size_t size);
/* Resizes a tracked block (or allocates one, if block is NULL), keeping its
 * contents like realloc(); dies, naming path, when out of memory. */
void *tracked_realloc(const char *path, void *block, size_t count, size_t size);
/* The same, but returns NULL when out of memory, leaving block as it was: for
 * callers that must release something else before they die. */
void *tracked_try_realloc(void *block, size_t count, size_t size);
/* Frees a tracked block; NULL is allowed. */
void tracked_free(void *block);

#endif /* SYMGEN_DIE_H */
