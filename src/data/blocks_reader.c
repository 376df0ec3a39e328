// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader of one --blocks function's rows and the checks each column
 * goes through (blocks_read_int.h): a bad value is said naming its table,
 * row, function and column, with what it should be.
 */
#include "data/blocks_read_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read.h"

/* Column i of the current row is bad: say which, with its value, and what it should be. */
int blocks_bad(struct reader *r, sqlite3_stmt *st, int i, const char *want)
{
	const char *col = sqlite3_column_name(st, i);
	long long row = sqlite3_column_int64(st, 0);
	char value[64];

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_NULL:
		snprintf(value, sizeof(value), "NULL");
		break;
	case SQLITE_INTEGER:
		snprintf(value, sizeof(value), "%lld", sqlite3_column_int64(st, i));
		break;
	default:
		snprintf(value, sizeof(value), "'%.40s'", query_str(st, i));
	}
	return query_bad(r->df, "table %s, row %lld (function %s): %s is %s, not %s", r->table, row,
			 r->f->name, col, value, want);
}

/* Column i as an integer from lo to hi (NULL too when null, as BLOCKS_UNKNOWN). */
int blocks_num(struct reader *r, sqlite3_stmt *st, int i, long long lo, long long hi, bool null,
	       const char *want, long long *v)
{
	int type = sqlite3_column_type(st, i);

	if (type == SQLITE_NULL && null) {
		*v = BLOCKS_UNKNOWN;
		return 0;
	}
	*v = sqlite3_column_int64(st, i);
	if (type != SQLITE_INTEGER || *v < lo || *v > hi)
		return blocks_bad(r, st, i, want);
	return 0;
}

int blocks_count(struct reader *r, sqlite3_stmt *st, int i, bool null, long long *v)
{
	return blocks_num(r, st, i, 0, BLOCKS_COUNT_MAX, null,
			  null ? "NULL or a count from 0 to 2^40" : "a count from 0 to 2^40", v);
}

/* Column i as text of at most max bytes without NUL, copied into *out. */
int blocks_text(struct reader *r, sqlite3_stmt *st, int i, int max, char **out)
{
	const char *s = query_text(st, i);

	if (sqlite3_column_type(st, i) != SQLITE_TEXT || !s ||
	    (int)strlen(s) != sqlite3_column_bytes(st, i) || sqlite3_column_bytes(st, i) > max)
		return blocks_bad(r, st, i, "text without NUL, not too long");
	*out = strdup(s);
	return *out ? 0 : -ENOMEM;
}

static int count_row(sqlite3_stmt *st, void *ctx)
{
	*(size_t *)ctx = sqlite3_column_int64(st, 0);
	return 1;
}

/* Room for the rows of table for f, at most max of them. */
int blocks_alloc_rows(struct reader *r, const char *table, size_t max, size_t size, void **arr,
		      size_t *n)
{
	char sql[96];
	int err;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE func = ?", table);
	err = query_each(r->df, sql, count_row, n, "t", r->f->name);
	if (err < 0)
		return err;
	if (*n > max)
		return query_bad(r->df, "table %s: function %s has %zu rows, more than %zu", table,
				 r->f->name, *n, max);
	*arr = calloc(*n ?: 1, size);
	return *arr ? 0 : -ENOMEM;
}

int blocks_read_rows(struct reader *r, const char *table, const char *sql, query_row_fn fn)
{
	int err;

	r->table = table;
	r->i = 0;
	err = query_each(r->df, sql, fn, r, "t", r->f->name);
	return err < 0 ? err : 0;
}
