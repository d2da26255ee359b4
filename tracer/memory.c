/*
 * memory.c - the bounds-checked reader.
 *
 * A panic handler must not fault: a corrupt frame pointer could point at an
 * unmapped device hole, and faulting there would recurse into the trap
 * handler. So no unwinder dereferences memory directly; every read comes here
 * and is checked against the regions the caller declared.
 */
#include "internal.h"

bool memory_read_word(const struct tracer_config *config, uintptr_t addr,
		      uintptr_t *value)
{
	const struct tracer_range stack = config->stack;

	if (addr % sizeof(uintptr_t) != 0)
		return false;
	/* Written so that addr + size cannot overflow. */
	if (addr < stack.start || stack.end < sizeof(uintptr_t) ||
	    addr > stack.end - sizeof(uintptr_t))
		return false;
	*value = *(const volatile uintptr_t *)addr;
	return true;
}
