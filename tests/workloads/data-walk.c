/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * data-walk: the known struct access pattern of the machine model's data
 * view (tests/vm/t_model_data.sh), built twice: data-walk (layout A) and
 * data-walk-b (-DLAYOUT_B), the same members of struct dw_rec with val and
 * spare swapped, every other member at the same offset:
 *
 *   member   A: offset line    B: offset line
 *   key            0    0            0    0
 *   spare          8    0           64    1
 *   name          16    0           16    0
 *   val           64    1            8    0
 *   pos           72    1           72    1
 *   count         80    1           80    1
 *   stamp         88    1           88    1
 *   tail          96    1           96    1
 *
 * dw_read walks the array through a pointer from its parameter, reading
 * key, val and pos.y of each record in that order, 4 times; dw_stamp and
 * dw_count walk it as the global recs by index, twice each, storing stamp
 * and incrementing count; dw_flags walks it through a pointer formed from
 * the global's address (the compiler's lea or mov of recs, stepped by
 * whole records: issue 58's first case), storing flags in every fourth
 * record.  The array (256 KiB) is 8 times D1, so each pass
 * finds every record's lines cold: key misses in both layouts; in A val
 * misses (line 1's first access) and pos.y hits after it, in B val hits
 * (key's line) and pos.y misses instead.
 *
 * Each line marked "member: NAME" accesses that one member, once per
 * execution: a plain load or store, or with "(rmw)" one read-modify-write
 * instruction (a read and a write for the model, a read for cachegrind).
 * No other line of the measured functions touches memory but their ret's
 * stack read.
 * The test reads the marks to match cachegrind's lines with the members.
 *
 * Built static, not PIE, text at 0x10000000 (away from busybox and
 * model-window), as t_model_cachegrind.sh's program and for its reasons:
 * the same PCs in the guest and under cachegrind; the measured functions
 * call nothing; each runs after dw_flush, from one indirect call site,
 * followed by dw_sep; every page is written before the measured part.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE     __attribute__((noinline, noclone))
#define PAGE_ALIGNED __attribute__((aligned(4096)))
/* the loads in source order: which of two on a line misses is the point */
#define ORDER() asm volatile("" ::: "memory")

#define RECS	     2048 /* 256 KiB of records */
#define READ_PASSES  4
#define WRITE_PASSES 2
#define FLUSH_LEN    (2 * 1024 * 1024) /* twice LL */

struct dw_pos {
	int x, y;
};

struct dw_rec {
	unsigned long key; /* hot */
#ifdef LAYOUT_B
	unsigned long val; /* hot: on key's line */
#else
	unsigned long spare; /* cold */
#endif
	char name[48]; /* cold */
#ifdef LAYOUT_B
	unsigned long spare;
#else
	unsigned long val;   /* hot: first on the second line */
#endif
	struct dw_pos pos;
	unsigned int count;
	unsigned int flags;
	unsigned long stamp;
	unsigned long tail[4];
};

/* the table above, which tests/vm/t_model_data.sh checks the data view by */
#ifdef LAYOUT_B
_Static_assert(offsetof(struct dw_rec, val) == 8 && offsetof(struct dw_rec, spare) == 64, "B");
#else
_Static_assert(offsetof(struct dw_rec, val) == 64 && offsetof(struct dw_rec, spare) == 8, "A");
#endif
_Static_assert(offsetof(struct dw_rec, key) == 0 && offsetof(struct dw_rec, pos.y) == 76 &&
		       offsetof(struct dw_rec, count) == 80 && offsetof(struct dw_rec, flags) == 84 &&
		       offsetof(struct dw_rec, stamp) == 88,
	       "the members that stay");
_Static_assert(sizeof(struct dw_rec) == 128, "two lines a record");

struct dw_rec recs[RECS] PAGE_ALIGNED;
static unsigned char flushbuf[FLUSH_LEN] PAGE_ALIGNED;

/* does nothing: the last ret before every measured loop (see the test) */
NOINLINE unsigned long dw_sep(struct dw_rec *r, unsigned long n)
{
	asm volatile("" ::: "memory");
	return 0;
}

NOINLINE unsigned long dw_flush(struct dw_rec *r, unsigned long n)
{
	const volatile unsigned char *b = flushbuf;
	unsigned long s = 0, i;

	for (i = 0; i < FLUSH_LEN; i += 64)
		s += b[i];
	return s;
}

/*
 * Through a pointer from the parameter, stepped: p's location is the
 * register the loads go through (the last barrier keeps its step after
 * them, so that each load's displacement is its member's offset).
 */
NOINLINE unsigned long dw_read(struct dw_rec *r, unsigned long n)
{
	const struct dw_rec *p, *end = r + n;
	unsigned long s = 0;
	int passes = READ_PASSES;

	while (passes--)
		for (p = r; p < end; p++) {
			s += p->key; /* member: key */
			ORDER();
			s ^= p->val; /* member: val */
			ORDER();
			s += p->pos.y; /* member: pos.y */
			asm volatile("" : "+r"(p), "+r"(s) : : "memory");
		}
	return s;
}

/*
 * Through the global array, by index: the barrier keeps i an index, so
 * that the access's displacement is recs' address plus its member's
 * offset (the element found by address, the member modulo 128).  One
 * access a loop: two would share the element's address in a register.
 */
NOINLINE unsigned long dw_stamp(struct dw_rec *r, unsigned long n)
{
	unsigned long i;
	int passes = WRITE_PASSES;

	while (passes--)
		for (i = 0; i < RECS; i++) {
			recs[i].stamp = i; /* member: stamp */
			asm volatile("" : "+r"(i));
		}
	return 0;
}

/*
 * Through a pointer formed from the global's address, not a parameter:
 * what types it is recs' type at that address, stepped by whole records
 * (the barrier keeps p a pointer, so the store's displacement is flags').
 */
NOINLINE unsigned long dw_flags(struct dw_rec *r, unsigned long n)
{
	struct dw_rec *p;
	int passes = WRITE_PASSES;

	while (passes--)
		for (p = recs; p < recs + RECS; p += 4) {
			p->flags = passes; /* member: flags */
			asm volatile("" : "+r"(p));
		}
	return 0;
}

/* the same, one read-modify-write instruction: an add to memory */
NOINLINE unsigned long dw_count(struct dw_rec *r, unsigned long n)
{
	unsigned long i;
	int passes = WRITE_PASSES;

	while (passes--)
		for (i = 0; i < RECS; i++) {
			recs[i].count++; /* member: count (rmw) */
			asm volatile("" : "+r"(i));
		}
	return 0;
}

int main(void)
{
	/* each measured function after a flush, called from one site */
	static unsigned long (*const fns[])(struct dw_rec *, unsigned long) = {
		dw_sep, dw_flush, dw_read, dw_flush, dw_stamp, dw_flush, dw_count, dw_flush, dw_flags,
	};
	unsigned long acc = 0, i;

	/* every page written before the measured part: no faults there */
	memset(recs, 1, sizeof(recs));
	memset(flushbuf, 2, sizeof(flushbuf));
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		unsigned long (*f)(struct dw_rec *, unsigned long) = fns[i];

		asm volatile("" : "+r"(f)); /* an indirect call, not 7 calls */
		acc += f(recs, RECS);
		dw_sep(recs, RECS);
	}
	printf("data-walk: layout %s, %d records, %lx\n",
	       offsetof(struct dw_rec, val) == 8 ? "B" : "A", RECS, acc);
	return 0;
}
