// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading record --blocks' tables (blocks_read.h).  Every value is checked
 * as it is read, by type and range and against the other tables (a block,
 * edge or loop index must name one that is there), and the instructions
 * executed are bounded, so that a report's sums never overflow.  The
 * schema-7 tables are blocks_read_inline.c's, blocks_read_bounds.c's,
 * blocks_read_contexts.c's and blocks_read_runs.c's, each column read
 * through blocks_reader.c.
 */
#include "data/blocks_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read_int.h"

#define MAX_BLOCKS 65536
#define MAX_EDGES  (3 * MAX_BLOCKS + 1)
/* instructions executed over all blocks: far below 2^63, so that sums of them cannot overflow */
#define INSNS_TOTAL_MAX (1LL << 60)

static const char *const kind_names[] = {
	[BLOCKS_EDGE_ENTRY] = "entry",	       [BLOCKS_EDGE_FALL] = "fall",
	[BLOCKS_EDGE_JUMP] = "jump",	       [BLOCKS_EDGE_TAKEN] = "taken",
	[BLOCKS_EDGE_NOT_TAKEN] = "not_taken", [BLOCKS_EDGE_RETURN] = "return",
	[BLOCKS_EDGE_TAIL] = "tail",	       [BLOCKS_EDGE_INDIRECT] = "indirect",
	[BLOCKS_EDGE_NORETURN] = "noreturn",   [BLOCKS_EDGE_TRAP] = "trap",
};

static const char *const tables[] = {"blocks", "block_edges", "block_loops", "block_values",
				     "block_funcs"};

const char *blocks_edge_kind_name(enum blocks_edge_kind k)
{
	return kind_names[k];
}

/* The row's own index (column 1) must be the next one: the tables number from 0 up. */
static int index_ok(struct reader *r, sqlite3_stmt *st, size_t n)
{
	long long v;
	char want[64];

	snprintf(want, sizeof(want), "%zu (numbered from 0 without gaps)", r->i);
	if (blocks_num(r, st, 1, (long long)r->i, (long long)r->i, false, want, &v))
		return -EBADMSG;
	return r->i < n ? 0 : -EBADMSG;
}

static int func_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	long long addr, size;
	int err;

	addr = sqlite3_column_int64(st, 1);
	if (sqlite3_column_type(st, 1) != SQLITE_INTEGER)
		return blocks_bad(r, st, 1, "an address");
	err = blocks_num(r, st, 2, 1, BLOCKS_BYTES_MAX, false, "a size from 1 to 2^24 bytes",
			 &size);
	err = err ?: blocks_count(r, st, 3, false, &f->calls);
	err = err ?: blocks_count(r, st, 4, false, &f->complete);
	err = err ?: blocks_count(r, st, 5, false, &f->lost);
	err = err ?: blocks_text(r, st, 6, BLOCKS_TEXT_MAX, &f->unprobed);
	if (!err && f->complete > f->calls)
		err = blocks_bad(r, st, 4, "at most calls");
	f->addr = (__u64)addr;
	f->size = (__u64)size;
	return err ?: 1;
}

static int block_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_block *b = &f->b[r->i];
	long long start, end, probed, loop;
	int err = index_ok(r, st, f->nb);

	start = sqlite3_column_int64(st, 2);
	end = sqlite3_column_int64(st, 3);
	if (!err && sqlite3_column_type(st, 2) != SQLITE_INTEGER)
		err = blocks_bad(r, st, 2, "an address");
	if (!err && (sqlite3_column_type(st, 3) != SQLITE_INTEGER || (__u64)end <= (__u64)start ||
		     (__u64)end - (__u64)start > BLOCKS_BYTES_MAX))
		err = blocks_bad(r, st, 3, "an address after start, at most 2^24 bytes on");
	err = err
		      ?: blocks_num(r, st, 4, 1, (__u64)end - (__u64)start, false,
				    "from 1 to the block's bytes", &b->insns);
	err = err ?: blocks_count(r, st, 5, true, &b->count);
	err = err ?: blocks_num(r, st, 6, 0, 1, false, "0 or 1", &probed);
	err = err
		      ?: blocks_num(r, st, 7, 0, (long long)f->nloops - 1, true,
				    "NULL or a loop of the function", &loop);
	b->start = (__u64)start;
	b->end = (__u64)end;
	b->probed = probed;
	b->loop = loop < 0 ? -1 : loop;
	r->i++;
	return err;
}

static int edge_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_edge *e = &f->e[r->i];
	long long src, dst, last = (long long)f->nb - 1;
	const char *kind = query_text(st, 4);
	size_t k;
	int err = index_ok(r, st, f->ne);

	err = err
		      ?: blocks_num(r, st, 2, -1, last, false,
				    "-1 (the call) or a block of the function", &src);
	err = err
		      ?: blocks_num(r, st, 3, -2, last, false,
				    "-2 (out) or a block of the function", &dst);
	if (!err && dst == -1)
		err = blocks_bad(r, st, 3, "-2 (out) or a block of the function");
	for (k = 0; !err && k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (kind && sqlite3_column_type(st, 4) == SQLITE_TEXT &&
		    !strcmp(kind, kind_names[k]))
			break;
	if (!err && k == sizeof(kind_names) / sizeof(kind_names[0]))
		err = blocks_bad(r, st, 4,
				 "an edge kind (entry, fall, jump, taken, not_taken, ...)");
	err = err ?: blocks_count(r, st, 5, true, &e->count);
	e->src = src;
	e->dst = dst;
	e->kind = k;
	r->i++;
	return err;
}

static int loop_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_loop *l = &f->loops[r->i];
	long long head, parent, depth, irr;
	int err = index_ok(r, st, f->nloops);

	err = err
		      ?: blocks_num(r, st, 2, 0, (long long)f->nb - 1, false,
				    "a block of the function", &head);
	/* outer loops come first: a parent is numbered below the loop it holds */
	err = err
		      ?: blocks_num(r, st, 3, 0, (long long)r->i - 1, true, "NULL or an outer loop",
				    &parent);
	err = err
		      ?: blocks_num(r, st, 4, 1, (long long)f->nloops, false,
				    "a depth from 1 to the loops", &depth);
	err = err ?: blocks_num(r, st, 5, 0, 1, false, "0 or 1", &irr);
	err = err ?: blocks_count(r, st, 6, true, &l->entries);
	err = err ?: blocks_count(r, st, 7, true, &l->iterations);
	l->head = head;
	l->parent = parent < 0 ? -1 : parent;
	l->depth = depth;
	l->irreducible = irr;
	r->i++;
	return err;
}

static int value_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	struct blocks_value *v = &f->v[r->i];
	const char *what = query_text(st, 1);
	long long loop;
	int err = 0;

	if (r->i >= f->nv)
		return -EBADMSG;
	r->i++;
	v->trips = what && !strcmp(what, "trips");
	if (sqlite3_column_type(st, 1) != SQLITE_TEXT || !what ||
	    (!v->trips && strcmp(what, "insns")))
		return blocks_bad(r, st, 1, "'insns' or 'trips'");
	if (v->trips)
		err = blocks_num(r, st, 2, 0, (long long)f->nloops - 1, false,
				 "a loop of the function", &loop);
	else
		err = blocks_num(r, st, 2, -1, -1, false, "-1 (for 'insns')", &loop);
	err = err ?: blocks_text(r, st, 3, BLOCKS_NAME_MAX, &v->ctx);
	err = err ?: blocks_count(r, st, 4, false, &v->value);
	err = err ?: blocks_count(r, st, 5, false, &v->count);
	v->loop = loop;
	return err;
}

/* Instructions executed over all blocks stay below INSNS_TOTAL_MAX: sums of them cannot overflow.
 */
static int check_total(struct reader *r)
{
	const struct blocks_func *f = r->f;
	long long total = 0;
	size_t i;

	for (i = 0; i < f->nb; i++) {
		if (f->b[i].count <= 0)
			continue;
		if (f->b[i].count > (INSNS_TOTAL_MAX - total) / f->b[i].insns)
			return query_bad(r->df,
					 "table blocks: function %s executed more than 2^60 "
					 "instructions",
					 f->name);
		total += f->b[i].count * f->b[i].insns;
	}
	return 0;
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

static int load_rows(struct reader *r)
{
	struct blocks_func *f = r->f;
	int err;

	err = blocks_alloc_rows(r, "blocks", MAX_BLOCKS, sizeof(*f->b), (void **)&f->b, &f->nb);
	err = err
		      ?: blocks_alloc_rows(r, "block_edges", MAX_EDGES, sizeof(*f->e),
					   (void **)&f->e, &f->ne);
	err = err
		      ?: blocks_alloc_rows(r, "block_loops", MAX_BLOCKS, sizeof(*f->loops),
					   (void **)&f->loops, &f->nloops);
	err = err
		      ?: blocks_alloc_rows(r, "block_values", BLOCKS_VALUES_MAX, sizeof(*f->v),
					   (void **)&f->v, &f->nv);
	err = err
		      ?: blocks_read_rows(
				 r, "blocks",
				 "SELECT rowid, block, start, end, insns, count, probed, loop"
				 " FROM blocks WHERE func = ? ORDER BY block",
				 block_row);
	err = err
		      ?: blocks_read_rows(
				 r, "block_edges",
				 "SELECT rowid, edge, src, dst, kind, count FROM block_edges"
				 " WHERE func = ? ORDER BY edge",
				 edge_row);
	err = err
		      ?: blocks_read_rows(
				 r, "block_loops",
				 "SELECT rowid, loop, head, parent, depth, irreducible, entries,"
				 " iterations FROM block_loops WHERE func = ? ORDER BY loop",
				 loop_row);
	err = err
		      ?: blocks_read_rows(
				 r, "block_values",
				 "SELECT rowid, what, loop, ctx, value, count FROM block_values"
				 " WHERE func = ? ORDER BY what, loop, ctx, value",
				 value_row);
	return err ?: check_total(r) ?: blocks_load_inline(r) ?: blocks_load_bounds(r)
		?: blocks_load_contexts(r) ?: check_calls(r) ?: blocks_load_runs(r);
}

int blocks_load(struct datafile *df, const char *name, struct blocks_func *out)
{
	struct reader r = {.df = df, .f = out, .table = "block_funcs"};
	int err;

	memset(out, 0, sizeof(*out));
	out->name = strdup(name);
	if (!out->name)
		return -ENOMEM;
	err = query_each(
		df,
		"SELECT rowid, addr, size, calls, complete, lost, unprobed FROM block_funcs"
		" WHERE func = ?",
		func_row, &r, "t", name);
	if (err == 0)
		return -ENOENT;
	if (err > 0)
		err = load_rows(&r);
	free(r.run_ids);
	return err;
}

void blocks_func_free(struct blocks_func *f)
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
	for (i = 0; f->v && i < f->nv; i++)
		free(f->v[i].ctx);
	free(f->v);
	for (i = 0; f->loops && i < f->nloops; i++) {
		free(f->loops[i].bound.expr);
		free(f->loops[i].bound.counter);
		free(f->loops[i].bound.cond);
	}
	free(f->loops);
	free(f->e);
	free(f->b);
	free(f->unprobed);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

static int present_row(sqlite3_stmt *st, void *ctx)
{
	*(long long *)ctx = sqlite3_column_int64(st, 0);
	return 1;
}

int blocks_present(struct datafile *df, bool *present)
{
	const size_t n = sizeof(tables) / sizeof(tables[0]);
	long long one, found = 0;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		one = 0;
		err = query_each(df,
				 "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND"
				 " name = ?",
				 present_row, &one, "t", tables[i]);
		if (err < 0)
			return err;
		found += one;
	}
	*present = found == (long long)n;
	if (found && !*present)
		return query_bad(df, "it has %lld of the %zu --blocks tables", found, n);
	return 0;
}

struct names_walk {
	struct datafile *df;
	blocks_name_fn fn;
	void *ctx;
};

static int name_row(sqlite3_stmt *st, void *ctx)
{
	struct names_walk *w = ctx;
	const char *s = query_text(st, 1);

	if (sqlite3_column_type(st, 1) != SQLITE_TEXT || !s ||
	    (int)strlen(s) != sqlite3_column_bytes(st, 1) || strlen(s) > BLOCKS_NAME_MAX)
		return query_bad(w->df, "table block_funcs, row %lld: func is not a name",
				 sqlite3_column_int64(st, 0));
	return w->fn(s, w->ctx);
}

int blocks_names(struct datafile *df, blocks_name_fn fn, void *ctx)
{
	struct names_walk w = {df, fn, ctx};

	return query_each(df, "SELECT rowid, func FROM block_funcs ORDER BY func", name_row, &w,
			  "");
}

/* calls whose trips are the bound plus offset */
struct offset_calls {
	long long offset, bound, calls;
};

static int cmp_offset(const void *a, const void *b)
{
	const struct offset_calls *x = a, *y = b;

	if (x->offset != y->offset)
		return (x->offset > y->offset) - (x->offset < y->offset);
	return (x->bound > y->bound) - (x->bound < y->bound);
}

/* The offset most calls have into r, with their bound values counted; v sorted. */
static void best_offset(const struct offset_calls *v, size_t n, struct blocks_relation *r)
{
	long long run = 0, values = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		bool same = i && v[i].offset == v[i - 1].offset;

		run = same ? run + v[i].calls : v[i].calls;
		values = same ? values + (v[i].bound != v[i - 1].bound) : 1;
		if (run > r->calls) {
			r->calls = run;
			r->offset = v[i].offset;
			r->values = values;
		} else if (run == r->calls && v[i].offset == r->offset) {
			r->values = values;
		}
	}
}

int blocks_relation(const struct blocks_func *f, int loop, struct blocks_relation *r)
{
	struct offset_calls *v = calloc(f->nbv ?: 1, sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return -ENOMEM;
	*r = (struct blocks_relation){0};
	for (i = 0; i < f->nbv; i++) {
		if (f->bv[i].loop != loop)
			continue;
		r->all += f->bv[i].count;
		/* a bound so far from the trips relates to nothing */
		if (__builtin_sub_overflow(f->bv[i].trips, f->bv[i].bound, &v[n].offset))
			continue;
		v[n].bound = f->bv[i].bound;
		v[n++].calls = f->bv[i].count;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_offset);
	best_offset(v, n, r);
	free(v);
	return r->all ? 0 : -ENODATA;
}

bool blocks_related(const struct blocks_relation *r)
{
	return r->calls && (r->calls == r->all || r->values >= 2);
}

bool blocks_branch(const struct blocks_func *f, int block, int *taken, int *not_taken)
{
	size_t i;

	*taken = *not_taken = -1;
	for (i = 0; i < f->ne; i++) {
		if (f->e[i].src != block)
			continue;
		if (f->e[i].kind == BLOCKS_EDGE_TAKEN)
			*taken = i;
		else if (f->e[i].kind == BLOCKS_EDGE_NOT_TAKEN)
			*not_taken = i;
	}
	return *taken >= 0 || *not_taken >= 0;
}
