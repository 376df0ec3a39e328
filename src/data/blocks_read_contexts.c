// SPDX-License-Identifier: GPL-2.0-only
/*
 * A --blocks function's calls by where they ran (block_contexts; schema 7;
 * blocks_read.h): by syscall, kernel stack at entry and slab cache, each
 * stack one of table kstack_frames.
 */
#include "data/blocks_read_int.h"

#include <errno.h>
#include <limits.h>

#include "data/blocks_read.h"

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

static int stack_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;

	return query_bad(r->df,
			 "table block_contexts, row %lld (function %s): kstack %lld is no stack"
			 " of table kstack_frames",
			 sqlite3_column_int64(st, 0), r->f->name, sqlite3_column_int64(st, 1));
}

int blocks_load_contexts(struct reader *r)
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
