/*
 * die.c - see die.h.
 */
#include "die.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *die_program = "symgen";

/* Where die() returns to inside die_catch(), and where it writes. */
static jmp_buf *die_target;
static FILE *die_stream;

/* Each tracked block is preceded by its links in a circular list; the
 * union keeps the block itself aligned for any type. */
union tracked_header {
	struct {
		union tracked_header *previous;
		union tracked_header *next;
	} link;
	max_align_t alignment;
};

static union tracked_header tracked = {{&tracked, &tracked}};

/* Writes s with control characters as '?': a name from a corrupt file
 * (a symbol's, say) may hold a newline, and an error is one line. */
static void put_printable(FILE *err, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, err);
}

/* "symgen: PATH: KIND" then the message, on one line. */
static void report(const char *kind, const char *path, const char *fmt, va_list args)
{
	FILE *err = die_stream ? die_stream : stderr;
	char message[1024];

	vsnprintf(message, sizeof(message), fmt, args);
	fprintf(err, "%s: ", die_program);
	put_printable(err, path);
	fprintf(err, ": %s", kind);
	put_printable(err, message);
	fputc('\n', err);
}

void die(const char *path, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	report("", path, fmt, args);
	va_end(args);
	if (die_target)
		longjmp(*die_target, 1);
	exit(1);
}

void warn(const char *path, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	report("warning: ", path, fmt, args);
	va_end(args);
}

static void link_block(union tracked_header *header)
{
	header->link.previous = &tracked;
	header->link.next = tracked.link.next;
	tracked.link.next->link.previous = header;
	tracked.link.next = header;
}

static void unlink_block(union tracked_header *header)
{
	header->link.previous->link.next = header->link.next;
	header->link.next->link.previous = header->link.previous;
}

void *tracked_try_realloc(void *block, size_t count, size_t size)
{
	union tracked_header *header = block ? (union tracked_header *)block - 1 : NULL;
	union tracked_header *resized;

	if (size != 0 && count > (SIZE_MAX - sizeof(*header)) / size)
		return NULL;
	if (header)
		unlink_block(header);
	resized = realloc(header, sizeof(*header) + count * size);
	if (!resized) {
		/* realloc() left the old block as it was: still tracked. */
		if (header)
			link_block(header);
		return NULL;
	}
	link_block(resized);
	return resized + 1;
}

void *tracked_realloc(const char *path, void *block, size_t count, size_t size)
{
	void *resized = tracked_try_realloc(block, count, size);

	if (!resized)
		die(path, "out of memory");
	return resized;
}

void *tracked_alloc(const char *path, size_t count, size_t size)
{
	void *block = tracked_realloc(path, NULL, count, size);

	memset(block, 0, count * size);
	return block;
}

void tracked_free(void *block)
{
	union tracked_header *header = block ? (union tracked_header *)block - 1 : NULL;

	if (!header)
		return;
	unlink_block(header);
	free(header);
}

static void free_tracked_blocks(void)
{
	while (tracked.link.next != &tracked)
		tracked_free(tracked.link.next + 1);
}

int die_catch(FILE *err, int (*run)(void *context), void *context)
{
	jmp_buf target;
	int status;

	die_stream = err;
	die_target = &target;
	if (setjmp(target) != 0)
		status = 1;
	else
		status = run(context);
	die_target = NULL;
	die_stream = NULL;
	free_tracked_blocks();
	return status;
}
