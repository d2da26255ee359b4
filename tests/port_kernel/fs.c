/* fs.c - the file system's superblock, read at boot. */
#include "defs.h"
#include "param.h"
#include "buf.h"

#define FSMAGIC 0x10203040

struct superblock {
	uint magic;
	uint size; /* blocks */
};

static struct superblock sb;

void fsinit(int dev)
{
	struct buf *b = bread((uint)dev, 1);

	memmove(&sb, b->data, sizeof sb);
	brelse(b);
	if (sb.magic != FSMAGIC)
		panic("fsinit: invalid file system");
	printf("fs: %d blocks\n", (int)sb.size);
}
