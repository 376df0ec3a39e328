/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to data/blocks_read*.c: the reader of one function's rows, and
 * the checks each column goes through (blocks_reader.c), and the readers of
 * the schema-7 tables (blocks_read.h says what is read).  blocks_read.c
 * reads the schema-6 tables and calls the others in turn.
 */
#ifndef KP_BLOCKS_READ_INT_H
#define KP_BLOCKS_READ_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "data/query.h"

struct blocks_func;

#define BLOCKS_COUNT_MAX  (1LL << 40)
#define BLOCKS_NAME_MAX	  4096
#define BLOCKS_TEXT_MAX	  (1 << 20)
#define BLOCKS_VALUES_MAX (1 << 20)
#define BLOCKS_BYTES_MAX  (1LL << 24) /* a function's size, and a block's */

/* The table being read, for the error naming the bad value. */
struct reader {
	struct datafile *df;
	struct blocks_func *f;
	const char *table;
	size_t i;	    /* rows read so far */
	long long inl_row;  /* block_inlines' rowid of the function */
	long long *run_ids; /* the runs table's runs, ascending */
	size_t nrun_ids;
};

/* Column i of the current row (rowid in column 0) is bad: says which, and what it should be. */
int blocks_bad(struct reader *r, sqlite3_stmt *st, int i, const char *want);
/* Column i as an integer from lo to hi (NULL too when null, as BLOCKS_UNKNOWN). */
int blocks_num(struct reader *r, sqlite3_stmt *st, int i, long long lo, long long hi, bool null,
	       const char *want, long long *v);
/* Column i as a count from 0 to 2^40 (or NULL when null). */
int blocks_count(struct reader *r, sqlite3_stmt *st, int i, bool null, long long *v);
/* Column i as text of at most max bytes without NUL, copied into *out. */
int blocks_text(struct reader *r, sqlite3_stmt *st, int i, int max, char **out);
/* Room for the rows of table for the function, at most max of them. */
int blocks_alloc_rows(struct reader *r, const char *table, size_t max, size_t size, void **arr,
		      size_t *n);
/* fn on each row of sql (one parameter: the function's name), r->table and r->i set. */
int blocks_read_rows(struct reader *r, const char *table, const char *sql, query_row_fn fn);

/*
 * The schema-7 tables of r->f, after the schema-6 ones: its inline instance
 * (block_inlines), its loops' bounds and calls by bound value (block_bounds,
 * block_bound_values), its calls by context (block_contexts), each run's
 * counts (block_runs, block_run_edges, block_run_calls).
 */
int blocks_load_inline(struct reader *r);
int blocks_load_bounds(struct reader *r);
int blocks_load_contexts(struct reader *r);
int blocks_load_runs(struct reader *r);

#endif
