// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each run's share of a --blocks function's counts (block_runs,
 * block_run_edges, block_run_calls; blocks_read.h).  A run must be one of
 * the runs table (or run 0 of a recording without one, as data/runs.h
 * reads it), each run has at most one row per block, edge and function, and
 * the runs' counts sum to the total where every run's is known, and never
 * past it.  A function without any such row (schema 6) has no runs.
 */
#include "data/blocks_read_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read.h"

/* per-run counts a function may have: runs x (blocks + edges) */
#define MAX_RUN_CELLS (1LL << 23)
/* record --repeat's most */
#define MAX_RUNS 100000
/* a per-run count the file has no row for, until the rows are all read */
#define NO_ROW (-2LL)

static int run_id_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;

	if (r->nrun_ids == MAX_RUNS)
		return query_bad(r->df, "table runs: more than %d runs", MAX_RUNS);
	r->run_ids[r->nrun_ids++] = sqlite3_column_int64(st, 0);
	return 0;
}

static int load_run_ids(struct reader *r)
{
	int err;

	r->run_ids = calloc(MAX_RUNS, sizeof(*r->run_ids));
	if (!r->run_ids)
		return -ENOMEM;
	err = query_each(r->df, "SELECT run FROM runs ORDER BY run", run_id_row, r, "");
	if (err < 0)
		return err;
	/* no runs table: the recording is run 0 */
	if (!r->nrun_ids)
		r->nrun_ids = 1;
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Column 1's run, as its index among the runs. */
static int run_of(struct reader *r, sqlite3_stmt *st, size_t *idx)
{
	long long run = sqlite3_column_int64(st, 1);
	const long long *at = bsearch(&run, r->run_ids, r->nrun_ids, sizeof(run), cmp_ll);

	if (sqlite3_column_type(st, 1) != SQLITE_INTEGER || !at)
		return blocks_bad(r, st, 1, "a run of the runs table");
	*idx = at - r->run_ids;
	return 0;
}

/* Row (rowid, run, block or edge, count) of block_runs or block_run_edges. */
static int cell_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_func *f = r->f;
	bool edges = !strcmp(r->table, "block_run_edges");
	size_t run, n = edges ? f->ne : f->nb;
	long long i, *cell;
	int err = run_of(r, st, &run);

	err = err
		      ?: blocks_num(r, st, 2, 0, (long long)n - 1, false,
				    edges ? "an edge of the function" : "a block of the function",
				    &i);
	if (err)
		return err;
	cell = edges ? &f->runs[run].e[i] : &f->runs[run].b[i];
	if (*cell != NO_ROW)
		return blocks_bad(r, st, 2, "one without another row in the run");
	return blocks_count(r, st, 3, true, cell);
}

/* Row (rowid, run, calls, complete, lost) of block_run_calls. */
static int calls_row(sqlite3_stmt *st, void *ctx)
{
	struct reader *r = ctx;
	struct blocks_run *run;
	size_t i;
	int err = run_of(r, st, &i);

	if (err)
		return err;
	run = &r->f->runs[i];
	if (run->calls != NO_ROW)
		return blocks_bad(r, st, 1, "a run without another row");
	err = blocks_count(r, st, 2, false, &run->calls);
	err = err ?: blocks_count(r, st, 3, false, &run->complete);
	err = err ?: blocks_count(r, st, 4, false, &run->lost);
	if (!err && run->complete > run->calls)
		err = blocks_bad(r, st, 3, "at most calls");
	return err;
}

/* A run's count of value i: a block's, an edge's, or (0, 1, 2) its calls, complete, lost. */
typedef long long *(*cell_fn)(struct blocks_run *run, size_t i);

static long long *block_cell(struct blocks_run *run, size_t i)
{
	return &run->b[i];
}

static long long *edge_cell(struct blocks_run *run, size_t i)
{
	return &run->e[i];
}

static long long *calls_cell(struct blocks_run *run, size_t i)
{
	return i == 0 ? &run->calls : i == 1 ? &run->complete : &run->lost;
}

/*
 * The runs' counts of one value (what: "block 3"), those without a row
 * made unknown, sum to total where all are known, and never past it.
 */
static int check_sum(struct reader *r, const char *table, const char *what, cell_fn cell, size_t i,
		     long long total)
{
	struct blocks_func *f = r->f;
	long long sum = 0, *c;
	bool all = true;
	size_t k;

	for (k = 0; k < f->nruns; k++) {
		c = cell(&f->runs[k], i);
		if (*c == NO_ROW)
			*c = BLOCKS_UNKNOWN;
		if (*c < 0)
			all = false;
		else
			sum += *c;
	}
	if (total < 0 || (all ? sum == total : sum <= total))
		return 0;
	return query_bad(r->df,
			 "table %s: function %s, %s: the runs' counts sum to %lld, %s its total,"
			 " %lld",
			 table, f->name, what, sum, all ? "not" : "more than", total);
}

static int check_sums(struct reader *r)
{
	static const char *const calls[] = {"calls", "complete", "lost"};
	const struct blocks_func *f = r->f;
	const long long total[] = {f->calls, f->complete, f->lost};
	char what[32];
	size_t i;
	int err = 0;

	for (i = 0; i < f->nb && !err; i++) {
		snprintf(what, sizeof(what), "block %zu", i);
		err = check_sum(r, "block_runs", what, block_cell, i, f->b[i].count);
	}
	for (i = 0; i < f->ne && !err; i++) {
		snprintf(what, sizeof(what), "edge %zu", i);
		err = check_sum(r, "block_run_edges", what, edge_cell, i, f->e[i].count);
	}
	for (i = 0; i < 3 && !err; i++)
		err = check_sum(r, "block_run_calls", calls[i], calls_cell, i, total[i]);
	return err;
}

/* Room for every run's counts, none read yet. */
static int alloc_runs(struct reader *r)
{
	struct blocks_func *f = r->f;
	struct blocks_run *run;
	size_t k, i;

	if ((long long)r->nrun_ids * (long long)(f->nb + f->ne) > MAX_RUN_CELLS)
		return query_bad(r->df,
				 "table block_runs: function %s: %zu runs of %zu blocks and"
				 " %zu edges, more than %lld counts",
				 f->name, r->nrun_ids, f->nb, f->ne, MAX_RUN_CELLS);
	f->runs = calloc(r->nrun_ids, sizeof(*f->runs));
	if (!f->runs)
		return -ENOMEM;
	f->nruns = r->nrun_ids;
	for (k = 0; k < f->nruns; k++) {
		run = &f->runs[k];
		run->b = malloc((f->nb ?: 1) * sizeof(*run->b));
		run->e = malloc((f->ne ?: 1) * sizeof(*run->e));
		if (!run->b || !run->e)
			return -ENOMEM;
		for (i = 0; i < f->nb; i++)
			run->b[i] = NO_ROW;
		for (i = 0; i < f->ne; i++)
			run->e[i] = NO_ROW;
		run->calls = run->complete = run->lost = NO_ROW;
	}
	return 0;
}

static int rows_row(sqlite3_stmt *st, void *ctx)
{
	*(long long *)ctx = sqlite3_column_int64(st, 0);
	return 1;
}

int blocks_load_runs(struct reader *r)
{
	long long rows = 0;
	int err = query_each(r->df,
			     "SELECT (SELECT count(*) FROM block_runs WHERE func = ?1) + (SELECT"
			     " count(*) FROM block_run_edges WHERE func = ?1) + (SELECT count(*)"
			     " FROM block_run_calls WHERE func = ?1)",
			     rows_row, &rows, "t", r->f->name);

	if (err < 0 || !rows)
		return err < 0 ? err : 0;
	err = load_run_ids(r) ?: alloc_runs(r);
	err = err
		      ?: blocks_read_rows(
				 r, "block_runs",
				 "SELECT rowid, run, block, count FROM block_runs WHERE func = ?",
				 cell_row);
	err = err
		      ?: blocks_read_rows(
				 r, "block_run_edges",
				 "SELECT rowid, run, edge, count FROM block_run_edges WHERE"
				 " func = ?",
				 cell_row);
	err = err
		      ?: blocks_read_rows(
				 r, "block_run_calls",
				 "SELECT rowid, run, calls, complete, lost FROM block_run_calls"
				 " WHERE func = ?",
				 calls_row);
	return err ?: check_sums(r);
}
