/* buf.h - a block in the cache. */
struct buf {
	int valid; /* data holds the block */
	int refcnt;
	uint dev;
	uint blockno;
	uchar data[BSIZE];
};
