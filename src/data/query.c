// SPDX-License-Identifier: GPL-2.0-only
/* The statement running the data/ readers share. */
#include <stdarg.h>

#include "data/datafile.h"
#include "data/query.h"

int query_exec(struct df *df, const char *sql)
{
	return df_errno(sqlite3_exec(df_db(df), sql, NULL, NULL, NULL));
}

static int bind(sqlite3_stmt *st, const char *types, va_list ap)
{
	const char *s;
	int i, rc = SQLITE_OK;

	for (i = 0; types[i] && rc == SQLITE_OK; i++) {
		switch (types[i]) {
		case 'i':
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
			break;
		case 't':
			s = va_arg(ap, const char *);
			rc = s ? sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i + 1);
			break;
		default:
			return SQLITE_MISUSE;
		}
	}
	return rc;
}

int query_each(struct df *df, const char *sql, query_row_fn fn, void *ctx, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(df_db(df), sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return df_errno(rc);
	va_start(ap, types);
	rc = bind(st, types, ap);
	va_end(ap);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(st);
		return df_errno(rc);
	}
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = fn ? fn(st, ctx) : 0;
	sqlite3_finalize(st);
	return err ?: df_errno(rc);
}

const char *query_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

const char *query_str(sqlite3_stmt *st, int i)
{
	return query_text(st, i) ?: "";
}
