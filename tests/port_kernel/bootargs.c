/*
 * bootargs.c - the kernel command line (qemu -append): /chosen/bootargs of
 * the flattened device tree, copied before kinit() hands out (and junks)
 * the RAM the tree lies in; then looked up as key=value words.
 */
#include "defs.h"

#define FDT_MAGIC      0xd00dfeed
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE   2
#define FDT_PROP       3
#define FDT_END	       9

static char cmdline[256];

static uint be32(const uchar *p)
{
	return (uint)p[0] << 24 | (uint)p[1] << 16 | (uint)p[2] << 8 | p[3];
}

static uint64 len(const char *s)
{
	uint64 n = 0;

	while (s[n])
		n++;
	return n;
}

/* Trusts the tree: QEMU made it. */
void bootargs_init(const void *fdt)
{
	const uchar *base = fdt;
	const uchar *p;
	const char *strings;
	int depth = 0;

	if (be32(base) != FDT_MAGIC)
		return;
	p = base + be32(base + 8);
	strings = (const char *)base + be32(base + 12);
	for (;;) {
		uint token = be32(p);

		p += 4;
		if (token == FDT_BEGIN_NODE) {
			depth++;
			p += ((len((const char *)p) + 4) & ~3ul);
		} else if (token == FDT_END_NODE) {
			depth--;
		} else if (token == FDT_PROP) {
			uint size = be32(p);
			const char *name = strings + be32(p + 4);

			if (depth == 2 && strcmp(name, "bootargs") == 0) {
				safestrcpy(cmdline, (const char *)p + 8, sizeof cmdline);
				return;
			}
			p += 8 + ((size + 3) & ~3u);
		} else if (token == FDT_END) {
			return;
		}
	}
}

/* The value of key=value on the command line, or "" if absent. */
const char *bootarg(const char *key)
{
	static char value[64];
	uint64 keylen = len(key);
	const char *w = cmdline;

	while (*w) {
		while (*w == ' ')
			w++;
		if (strncmp(w, key, keylen) == 0 && w[keylen] == '=') {
			int n = 0;

			for (w += keylen + 1; *w && *w != ' ' && n < (int)sizeof value - 1; w++)
				value[n++] = *w;
			value[n] = 0;
			return value;
		}
		while (*w && *w != ' ')
			w++;
	}
	return "";
}
