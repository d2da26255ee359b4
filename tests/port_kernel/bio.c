/* bio.c - block cache: NBUF blocks, least recently released reused first. */
#include "defs.h"
#include "param.h"
#include "buf.h"

static struct buf bufs[NBUF];

static struct buf *bget(uint dev, uint blockno)
{
	struct buf *b;

	for (b = bufs; b < bufs + NBUF; b++) {
		if (b->refcnt > 0 && b->dev == dev && b->blockno == blockno) {
			b->refcnt++;
			return b;
		}
	}
	for (b = bufs; b < bufs + NBUF; b++) {
		if (b->refcnt == 0) {
			b->dev = dev;
			b->blockno = blockno;
			b->valid = 0;
			b->refcnt = 1;
			return b;
		}
	}
	panic("bget: no buffers");
}

struct buf *bread(uint dev, uint blockno)
{
	struct buf *b = bget(dev, blockno);

	if (!b->valid) {
		ramdisk_rw(b, 0);
		b->valid = 1;
	}
	return b;
}

void brelse(struct buf *b)
{
	if (b->refcnt < 1)
		panic("brelse");
	b->refcnt--;
}
