// SPDX-License-Identifier: GPL-2.0-only
/*
 * The inline instance a --blocks function is (block_inlines; schema 7;
 * blocks_read.h), checked against the function's rows already read: its
 * entry is the function's address, its ranges sum to the function's size
 * and hold every block.
 */
#include "data/blocks_read_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "data/blocks_read.h"
#include "data/inline_tables.h"

struct range {
	__u64 lo, hi;
};

/* The instance's ranges, as inline_tables_ranges_of walks them. */
struct ranges {
	struct range *v;
	size_t n, cap;
};

static int add_range(__u64 lo, __u64 hi, void *ctx)
{
	struct ranges *rs = ctx;
	struct range *v;

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 16;
		v = realloc(rs->v, rs->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		rs->v = v;
	}
	rs->v[rs->n++] = (struct range){lo, hi};
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/*
 * DWARF may split an instance's code into ranges that touch (a lexical
 * block's own range beside its parent's), and a block can run across the
 * seam; the sum check above rules out overlaps, so touching ranges are one.
 */
static size_t sort_and_join(struct range *v, size_t n)
{
	size_t i, out = 0;

	qsort(v, n, sizeof(*v), cmp_range);
	for (i = 1; i < n; i++) {
		if (v[i].lo == v[out].hi)
			v[out].hi = v[i].hi;
		else
			v[++out] = v[i];
	}
	return out + 1;
}

/* Whether [start, end) lies inside one of the n sorted ranges. */
static bool inside(const struct range *v, size_t n, __u64 start, __u64 end)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && start < v[lo - 1].hi && end <= v[lo - 1].hi;
}

/* The instance's ranges sum to the function's size and hold every block. */
static int check_ranges(struct reader *r)
{
	const struct blocks_func *f = r->f;
	struct ranges rs = {0};
	__u64 sum = 0;
	size_t i;
	int err = inline_tables_ranges_of(r->df, "block_inlines", r->inl_row, f->inl->ranges,
					  add_range, &rs);

	for (i = 0; !err && i < rs.n && sum <= f->size; i++)
		sum += rs.v[i].hi - rs.v[i].lo;
	if (!err && sum != f->size)
		err = query_bad(r->df,
				"table block_inlines, row %lld (function %s): its ranges hold other"
				" than block_funcs.size, %llu bytes",
				r->inl_row, f->name, (unsigned long long)f->size);
	if (!err && rs.n)
		rs.n = sort_and_join(rs.v, rs.n);
	for (i = 0; !err && i < f->nb; i++)
		if (!inside(rs.v, rs.n, f->b[i].start, f->b[i].end))
			err = query_bad(r->df,
					"table block_inlines, row %lld (function %s): block %zu is"
					" outside its ranges",
					r->inl_row, f->name, i);
	free(rs.v);
	return err;
}

static int inline_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_inline *in;
	long long line;
	int err;

	/* the primary key says one, but the file's schema is not trusted */
	if (f->inl)
		return query_bad(r->df,
				 "table block_inlines, row %lld (function %s): a second row"
				 " of the function",
				 sqlite3_column_int64(st, 0), f->name);
	in = f->inl = calloc(1, sizeof(*f->inl));
	if (!in)
		return -ENOMEM;
	r->inl_row = sqlite3_column_int64(st, 0);
	in->entry = sqlite3_column_int64(st, 5);
	err = blocks_text(r, st, 1, BLOCKS_NAME_MAX, &in->name);
	err = err ?: blocks_text(r, st, 2, BLOCKS_NAME_MAX, &in->parent);
	err = err ?: blocks_text(r, st, 3, BLOCKS_NAME_MAX, &in->call_file);
	err = err ?: blocks_num(r, st, 4, 0, INT_MAX, false, "a line from 0 to 2^31-1", &line);
	if (!err && (sqlite3_column_type(st, 5) != SQLITE_INTEGER || in->entry != f->addr))
		err = blocks_bad(r, st, 5, "block_funcs.addr (the instance's entry)");
	err = err ?: blocks_text(r, st, 6, BLOCKS_TEXT_MAX, &in->ranges);
	in->call_line = line;
	return err;
}

int blocks_load_inline(struct reader *r)
{
	int err = blocks_read_rows(r, "block_inlines",
				   "SELECT rowid, name, parent, call_file, call_line, entry, ranges"
				   " FROM block_inlines WHERE func = ?",
				   inline_row);

	if (!err && r->f->inl)
		err = check_ranges(r);
	return err;
}
