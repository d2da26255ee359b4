/*
 * fuzz_input.h - reading a fuzz input front to back. Past its end every
 * read gives zeros, so any input decodes to something (a short input is a
 * small case, not a rejected one).
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_input {
	const uint8_t *data;
	size_t size;
	size_t pos;
};

static inline uint8_t input_u8(struct fuzz_input *input)
{
	return input->pos < input->size ? input->data[input->pos++] : 0;
}

/* Little-endian. */
static inline uint16_t input_u16(struct fuzz_input *input)
{
	uint16_t low = input_u8(input);

	return (uint16_t)(low | input_u8(input) << 8);
}

static inline uint32_t input_u32(struct fuzz_input *input)
{
	uint32_t low = input_u16(input);

	return low | (uint32_t)input_u16(input) << 16;
}

static inline size_t input_left(const struct fuzz_input *input)
{
	return input->size - input->pos;
}

/* `declared` elements of `element_size` bytes, or as many as the input
 * still holds. */
static inline size_t input_count(const struct fuzz_input *input, size_t declared,
				 size_t element_size)
{
	size_t available = input_left(input) / element_size;

	return declared < available ? declared : available;
}

/* The next `size` bytes (size <= input_left()). */
static inline const uint8_t *input_bytes(struct fuzz_input *input, size_t size)
{
	const uint8_t *bytes = input->data + input->pos;

	input->pos += size;
	return bytes;
}

#endif /* FUZZ_INPUT_H */
