/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the data/ readers share to run their queries: statements with bound
 * parameters, row by row, and scripts of several statements.
 */
#ifndef KP_QUERY_H
#define KP_QUERY_H

#include <sqlite3.h>

struct df;

typedef int (*query_row_fn)(sqlite3_stmt *st, void *ctx);

/* Run the statements of sql, which return no rows. */
int query_exec(struct df *df, const char *sql);
/*
 * Run sql with its parameters ?1, ?2, ... bound as df_insert's types say,
 * calling fn (if any) on each row until it returns non-zero: that value, or
 * -errno.
 */
int query_each(struct df *df, const char *sql, query_row_fn fn, void *ctx, const char *types, ...);
/* Column i as text, NULL when NULL. */
const char *query_text(sqlite3_stmt *st, int i);
/* Column i as text, "" when NULL. */
const char *query_str(sqlite3_stmt *st, int i);

#endif
