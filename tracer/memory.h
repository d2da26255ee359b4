/*
 * memory.h - reading the target's memory: the one bounds-checked reader the
 * unwinders use, the windows their hot loops check addresses with, and the
 * host view that lets symgen and the test tools run the same code on an
 * image's bytes.
 */
#ifndef TRACER_MEMORY_H
#define TRACER_MEMORY_H

#include "tracer.h"

/*
 * A window, [first, first + span]: addresses a with a - first <= span. One
 * subtraction and one comparison check an address against a region.
 */
struct window {
	uintptr_t first;
	uintptr_t span;
};

static inline bool range_contains(struct tracer_range range, uintptr_t addr)
{
	return addr >= range.start && addr < range.end;
}
/*
 * Reading the target's memory. On the target an address is a pointer. Host
 * tools (symgen, tests/tools/) build this code with -DTRACER_HOST_VIEW to run
 * it on an image's bytes held anywhere in their own memory: every read of
 * the target goes through target_bytes() and the loads below, which add
 * tracer_host_bias (host address minus target address, set per image); the
 * bounds checks stay in target addresses. The image's word size may differ
 * from the host's (an rv32 image on a 64-bit host): tracer_host_word_size
 * (4 or 8) is then the size of its words and pointers, and target_address()
 * wraps addresses as its uintptr_t would. Loads go through memcpy there, so
 * that no bias can make them misaligned on the host.
 */
#ifdef TRACER_HOST_VIEW
extern uintptr_t tracer_host_bias;
extern unsigned tracer_host_word_size;
#define TARGET_WORD_SIZE tracer_host_word_size

static inline const void *target_bytes(uintptr_t address)
{
	return (const void *)(address + tracer_host_bias);
}

static inline uintptr_t target_address(uintptr_t address)
{
	return tracer_host_word_size < sizeof(uintptr_t) ? address & 0xffffffffu
							 : address;
}

static inline uint16_t target_u16(uintptr_t address)
{
	uint16_t value;

	__builtin_memcpy(&value, target_bytes(address), sizeof(value));
	return value;
}

static inline uint32_t target_u32(uintptr_t address)
{
	uint32_t value;

	__builtin_memcpy(&value, target_bytes(address), sizeof(value));
	return value;
}

/* A word of the image, of its size (little-endian, as is the host). */
static inline uintptr_t target_word(uintptr_t address)
{
	uint32_t half;
	uintptr_t value;

	if (tracer_host_word_size < sizeof(uintptr_t)) {
		__builtin_memcpy(&half, target_bytes(address), sizeof(half));
		return half;
	}
	__builtin_memcpy(&value, target_bytes(address), sizeof(value));
	return value;
}
#else
#define TARGET_WORD_SIZE sizeof(uintptr_t)

static inline const void *target_bytes(uintptr_t address)
{
	return (const void *)address;
}

static inline uintptr_t target_address(uintptr_t address)
{
	return address;
}

static inline uint16_t target_u16(uintptr_t address)
{
	return *(const uint16_t *)address;
}

/* address must be 4-byte aligned. */
static inline uint32_t target_u32(uintptr_t address)
{
	return *(const uint32_t *)address;
}

/* Volatile: a stack word may change under the walk (another hart). */
static inline uintptr_t target_word(uintptr_t address)
{
	return *(const volatile uintptr_t *)address;
}
#endif

static inline uint8_t target_u8(uintptr_t address)
{
	return *(const uint8_t *)target_bytes(address);
}

/*
 * The one reader all unwinders use: reads the machine word at addr if it lies,
 * whole and aligned, inside `stack` (the walk's current stack: another
 * declared stack is reached only across a trap frame). Returns false instead
 * of faulting.
 */
bool memory_read_word(const struct tracer_range *stack, uintptr_t addr, uintptr_t *value);

/* memory_read_word's check and load, inline for the DWARF unwinder's rules
 * (a few a frame); memory_read_word is this. */
static inline bool memory_read_stack_word(struct tracer_range stack, uintptr_t addr,
					  uintptr_t *value)
{
	if (addr % TARGET_WORD_SIZE != 0)
		return false;
	/* Written so that addr + size cannot overflow. */
	if (addr < stack.start || stack.end < TARGET_WORD_SIZE ||
	    addr > stack.end - TARGET_WORD_SIZE)
		return false;
	*value = target_word(addr);
	return true;
}

/*
 * A window, [first, first + span]: a region less its first `before` bytes,
 * computed once a walk, so that a hot loop checks an address with one
 * subtraction and one comparison. A region smaller than `before` gives
 * {UINTPTR_MAX, 0}: only UINTPTR_MAX is inside, an odd address, which every
 * user rejects first (frame pointers, return addresses: never odd).
 */
static inline struct window memory_window(struct tracer_range range, uintptr_t before)
{
	struct window window = {UINTPTR_MAX, 0};

	if (range.end >= range.start && range.end - range.start >= before) {
		window.first = range.start + before;
		window.span = range.end - window.first;
	}
	return window;
}

static inline bool window_contains(struct window window, uintptr_t addr)
{
	return addr - window.first <= window.span;
}

/*
 * The same reader for the frame-pointer unwinder's common path, inline: the
 * two words of a frame record below fp (fp - 2 words: the caller's fp, fp -
 * 1 word: the return address), if fp is 16-byte aligned (as every frame
 * address is, psABI) and the record lies inside the stack whose window
 * (memory_window(stack, 2 words)) is `stack`.
 */
static inline bool memory_read_record(struct window stack, uintptr_t fp,
				      uintptr_t *caller_fp, uintptr_t *return_address)
{
	if (fp % 16 != 0 || !window_contains(stack, fp))
		return false;
	*caller_fp = ((const volatile uintptr_t *)fp)[-2];
	*return_address = ((const volatile uintptr_t *)fp)[-1];
	return true;
}

/* The little-endian 32 bits at an address that need not be aligned (a
 * call: GCC would otherwise merge cursor_u32's two ways into this one). */
uint32_t memory_u32_unaligned(uintptr_t address);

#endif /* TRACER_MEMORY_H */
