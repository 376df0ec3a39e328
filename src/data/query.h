/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The SQL machinery of data/, internal to it: every statement the data/
 * readers and writers run goes through here, prepared (an insert's cached for
 * the file's life), its parameters bound by one binder, stepped row by row,
 * and its SQLite result code turned into a negative errno.  Only src/data/
 * and the unit tests (which write synthetic recordings) include this header;
 * everyone else reads and writes through data/'s typed functions.
 */
#ifndef KP_QUERY_H
#define KP_QUERY_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>

struct datafile;
struct query_conn;

sqlite3 *query_db(struct datafile *df);
/*
 * Open conn's database at path (sqlite3_open_v2's flags): one thread per
 * connection, so no mutex; 0 or -errno.
 */
int query_conn_open(struct query_conn *conn, const char *path, int flags);
/* Finalize the cached statements and close the database: 0 or -errno. */
int query_conn_close(struct query_conn *conn);

/*
 * A bad value read from df: what is wrong (formatted, naming table and row)
 * kept in its connection's bad, control bytes as '?'; returns -EBADMSG.
 */
int query_bad(struct datafile *df, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int query_vbad(struct datafile *df, const char *fmt, va_list ap);

/* Map an SQLite result code to a negative errno. */
int query_errno(int rc);

typedef int (*query_row_fn)(sqlite3_stmt *st, void *ctx);

/* Run the statements of sql, which return no rows. */
int query_exec(struct datafile *df, const char *sql);
/*
 * Insert one row: types is one letter per parameter ?1, ?2, ...: i (int64),
 * t (text, a NULL pointer stores NULL), d (double); the values follow.  The
 * statement is cached on the file.
 */
int query_insert(struct datafile *df, const char *sql, const char *types, ...);
/*
 * Run sql with its parameters bound as query_insert's types say, calling fn
 * (if any) on each row until it returns non-zero: that value, or -errno.
 */
int query_each(struct datafile *df, const char *sql, query_row_fn fn, void *ctx, const char *types,
	       ...);
/* A row fn storing column 0 in *(long long *)val and stopping there (returns 1). */
int query_int_row(sqlite3_stmt *st, void *val);
/* The first column of the first row of sql, whose one parameter (if any) is arg; 0 if none. */
long long query_scalar(struct datafile *df, const char *sql, const char *arg);
/*
 * Step the rows (bucket, count) of sql, parameters bound as query_insert's
 * types say, into hist[n], zeroed first once sql is ready.
 */
int query_hist(struct datafile *df, const char *sql, unsigned long long *hist, size_t n,
	       const char *types, ...);

/*
 * A statement run many times with new parameters: query_prepare it, then each
 * query_rerun binds types' values and calls fn as query_each does; finalize it
 * with sqlite3_finalize.
 */
int query_prepare(struct datafile *df, const char *sql, sqlite3_stmt **st);
int query_rerun(sqlite3_stmt *st, query_row_fn fn, void *ctx, const char *types, ...);

/* Column i as text, NULL when NULL. */
const char *query_text(sqlite3_stmt *st, int i);
/* Column i as text, "" when NULL. */
const char *query_str(sqlite3_stmt *st, int i);

#endif
