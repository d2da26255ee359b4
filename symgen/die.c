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

void die(const char *path, const char *fmt, ...)
{
	FILE *err = die_stream ? die_stream : stderr;
	va_list args;

	fprintf(err, "%s: %s: ", die_program, path);
	va_start(args, fmt);
	vfprintf(err, fmt, args);
	va_end(args);
	fputc('\n', err);
	if (die_target)
		longjmp(*die_target, 1);
	exit(1);
}

void warn(const char *path, const char *fmt, ...)
{
	FILE *err = die_stream ? die_stream : stderr;
	va_list args;

	fprintf(err, "%s: %s: warning: ", die_program, path);
	va_start(args, fmt);
	vfprintf(err, fmt, args);
	va_end(args);
	fputc('\n', err);
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
