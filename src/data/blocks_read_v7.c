// SPDX-License-Identifier: GPL-2.0-only
/*
 * The schema-7 --blocks tables of one function (blocks_read.h): its inline
 * instance, its loops' bounds and their values per call, its calls by
 * context, and each run's counts.  Beyond their ranges, the values are
 * checked against the schema-6 tables already read: an inline instance's
 * entry, size and ranges against the function's address, size and blocks;
 * bound values against the loops that have a bound; calls by context and by
 * bound value against the complete calls.  Each run's counts are
 * blocks_read_runs.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read.h"
#include "data/blocks_read_int.h"
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

static int bound_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_bound *b;
	long long loop, block;
	int err;

	err = blocks_num(r, st, 1, 0, (long long)f->nloops - 1, false, "a loop of the function",
			 &loop);
	if (!err && f->loops[loop].bound.expr)
		err = blocks_bad(r, st, 1, "a loop without another row");
	err = err
		      ?: blocks_num(r, st, 2, 0, (long long)f->nb - 1, false,
				    "a block of the function", &block);
	if (err)
		return err;
	b = &f->loops[loop].bound;
	b->block = block;
	return blocks_text(r, st, 3, BLOCKS_NAME_MAX, &b->expr)
		?: blocks_text(r, st, 4, BLOCKS_NAME_MAX, &b->counter)
		?: blocks_text(r, st, 5, BLOCKS_NAME_MAX, &b->cond);
}

static int bound_value_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_bound_value *v = &f->bv[r->i];
	long long loop;
	int err;

	if (r->i >= f->nbv)
		return -EBADMSG;
	r->i++;
	err = blocks_num(r, st, 1, 0, (long long)f->nloops - 1, false, "a loop of the function",
			 &loop);
	if (!err && !f->loops[loop].bound.expr)
		err = blocks_bad(r, st, 1, "a loop with a bound (table block_bounds)");
	if (!err && sqlite3_column_type(st, 3) != SQLITE_INTEGER)
		err = blocks_bad(r, st, 3, "an integer");
	err = err ?: blocks_text(r, st, 2, BLOCKS_NAME_MAX, &v->ctx);
	err = err ?: blocks_count(r, st, 4, false, &v->trips);
	err = err ?: blocks_count(r, st, 5, false, &v->count);
	v->loop = loop;
	v->bound = sqlite3_column_int64(st, 3);
	return err;
}

static int context_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_context *c = &f->cx[r->i];
	long long nr;
	int err;

	if (r->i >= f->ncx)
		return -EBADMSG;
	r->i++;
	err = blocks_num(r, st, 1, -1, INT_MAX, false, "a syscall number, or -1", &nr);
	err = err ?: blocks_num(r, st, 2, -1, LLONG_MAX, false, "a stack id, or -1", &c->kstack);
	err = err ?: blocks_text(r, st, 3, BLOCKS_NAME_MAX, &c->ctx);
	err = err ?: blocks_count(r, st, 4, false, &c->calls);
	err = err ?: blocks_count(r, st, 5, false, &c->insns);
	c->syscall = nr;
	return err;
}

/* Calls by bound value (per loop) and by context add up to at most the complete calls. */
static int check_calls(struct reader *r)
{
	const struct blocks_func *f = r->f;
	long long sum = 0;
	size_t i;

	for (i = 0; i < f->ncx; i++)
		sum += f->cx[i].calls;
	if (sum > f->complete)
		return query_bad(r->df,
				 "table block_contexts: function %s has %lld calls, more than"
				 " its %lld complete ones",
				 f->name, sum, f->complete);
	for (i = 0, sum = 0; i < f->nbv; i++) {
		sum = i && f->bv[i].loop == f->bv[i - 1].loop ? sum + f->bv[i].count
							      : f->bv[i].count;
		if (sum > f->complete)
			return query_bad(r->df,
					 "table block_bound_values: function %s, loop %d: more"
					 " calls than its %lld complete ones",
					 f->name, f->bv[i].loop, f->complete);
	}
	return 0;
}

static int stack_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;

	return query_bad(r->df,
			 "table block_contexts, row %lld (function %s): kstack %lld is no stack"
			 " of table kstack_frames",
			 sqlite3_column_int64(st, 0), r->f->name, sqlite3_column_int64(st, 1));
}

static int load_contexts(struct reader *r)
{
	struct blocks_func *f = r->f;
	int err;

	err = blocks_alloc_rows(r, "block_contexts", BLOCKS_VALUES_MAX, sizeof(*f->cx),
				(void **)&f->cx, &f->ncx);
	err = err
		      ?: blocks_read_rows(
				 r, "block_contexts",
				 "SELECT rowid, syscall, kstack, ctx, calls, insns FROM"
				 " block_contexts WHERE func = ? ORDER BY syscall, kstack, ctx",
				 context_row);
	/* a stack's frames are read by its id: it must be there */
	err = err
		      ?: blocks_read_rows(
				 r, "block_contexts",
				 "SELECT rowid, kstack FROM block_contexts c WHERE func = ?"
				 " AND kstack >= 0 AND NOT EXISTS (SELECT 1 FROM kstack_frames"
				 " k WHERE k.stack = c.kstack) LIMIT 1",
				 stack_row);
	return err;
}

static int load_bounds(struct reader *r)
{
	struct blocks_func *f = r->f;
	int err;

	err = blocks_read_rows(r, "block_inlines",
			       "SELECT rowid, name, parent, call_file, call_line, entry, ranges"
			       " FROM block_inlines WHERE func = ?",
			       inline_row);
	if (!err && f->inl)
		err = check_ranges(r);
	err = err
		      ?: blocks_read_rows(r, "block_bounds",
					  "SELECT rowid, loop, block, bound, counter, cond FROM"
					  " block_bounds WHERE func = ? ORDER BY loop",
					  bound_row);
	err = err
		      ?: blocks_alloc_rows(r, "block_bound_values", BLOCKS_VALUES_MAX,
					   sizeof(*f->bv), (void **)&f->bv, &f->nbv);
	err = err
		      ?: blocks_read_rows(
				 r, "block_bound_values",
				 "SELECT rowid, loop, ctx, bound, trips, count FROM"
				 " block_bound_values WHERE func = ? ORDER BY loop, ctx, bound,"
				 " trips",
				 bound_value_row);
	return err;
}

int blocks_load_v7(struct reader *r)
{
	return load_bounds(r) ?: load_contexts(r) ?: check_calls(r) ?: blocks_load_runs(r);
}

void blocks_free_v7(struct blocks_func *f)
{
	size_t i;

	for (i = 0; f->runs && i < f->nruns; i++) {
		free(f->runs[i].b);
		free(f->runs[i].e);
	}
	free(f->runs);
	for (i = 0; f->cx && i < f->ncx; i++)
		free(f->cx[i].ctx);
	free(f->cx);
	for (i = 0; f->bv && i < f->nbv; i++)
		free(f->bv[i].ctx);
	free(f->bv);
	if (f->inl) {
		free(f->inl->name);
		free(f->inl->parent);
		free(f->inl->call_file);
		free(f->inl->ranges);
		free(f->inl);
	}
}
