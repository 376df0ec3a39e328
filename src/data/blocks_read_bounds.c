// SPDX-License-Identifier: GPL-2.0-only
/*
 * A --blocks function's loops' bounds and its calls by bound value
 * (block_bounds, block_bound_values; schema 7; blocks_read.h): a bound
 * names a loop without another bound and a block, a bound value a loop that
 * has a bound.
 */
#include "data/blocks_read_int.h"

#include <errno.h>

#include "data/blocks_read.h"

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

int blocks_load_bounds(struct reader *r)
{
	struct blocks_func *f = r->f;
	int err;

	err = blocks_read_rows(r, "block_bounds",
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
