/* ramdisk.c - the disk is memory: an image someone attaches at boot. This
 * kernel attaches none, so every read is out of range. */
#include "defs.h"
#include "param.h"
#include "buf.h"

static uchar *disk;
static uint disk_blocks;

void ramdisk_attach(uchar *image, uint blocks)
{
	disk = image;
	disk_blocks = blocks;
}

void ramdisk_rw(struct buf *b, int write)
{
	if (b->blockno >= disk_blocks)
		panic("ramdisk_rw: block out of range");
	if (write)
		memmove(disk + (uint64)b->blockno * BSIZE, b->data, BSIZE);
	else
		memmove(b->data, disk + (uint64)b->blockno * BSIZE, BSIZE);
}
