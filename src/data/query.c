// SPDX-License-Identifier: GPL-2.0-only
/*
 * The SQL machinery of data/ (see query.h): preparing (and caching inserts),
 * binding, stepping, scalars, histograms, scripts, and SQLite's result codes
 * as negative errno.
 */
#include "data/query.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "data/datafile_int.h"

int query_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EBADMSG;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		return errno ? -errno : -EIO;
	default:
		return -EIO;
	}
}

int query_vbad(struct datafile *df, const char *fmt, va_list ap)
{
	char *c, *bad = df->conn.bad;

	vsnprintf(bad, sizeof(df->conn.bad), fmt, ap);
	/* it quotes what the file holds: no byte of it may drive the terminal */
	for (c = bad; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return -EBADMSG;
}

int query_bad(struct datafile *df, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = query_vbad(df, fmt, ap);
	va_end(ap);
	return err;
}

sqlite3 *query_db(struct datafile *df)
{
	return df->conn.db;
}

/*
 * SQLite for this process, set before its first use: no thread shares a
 * connection (kprotperf's threads never touch one) and nothing reads
 * SQLite's memory statistics.  The mutexes and the statistics' counting
 * were a sixth of the instructions of opening (and checking) a recording.
 */
static void configure(void)
{
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int query_conn_open(struct query_conn *conn, const char *path, int flags)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, configure);
	return query_errno(sqlite3_open_v2(path, &conn->db, flags, NULL));
}

int query_conn_close(struct query_conn *conn)
{
	int i, err;

	for (i = 0; i < QUERY_CACHE_SIZE; i++) {
		sqlite3_finalize(conn->cache[i].stmt);
		conn->cache[i].stmt = NULL;
		conn->cache[i].sql = NULL;
	}
	for (i = 0; i < QUERY_EACH_SLOTS; i++) {
		sqlite3_finalize(conn->each[i].stmt);
		free(conn->each[i].sql);
		conn->each[i].stmt = NULL;
		conn->each[i].sql = NULL;
	}
	err = query_errno(sqlite3_close(conn->db));
	conn->db = NULL;
	return err;
}

int query_exec(struct datafile *df, const char *sql)
{
	return query_errno(sqlite3_exec(query_db(df), sql, NULL, NULL, NULL));
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

/* The statement of sql, prepared once per file and reset on each later use. */
static int cached_stmt(struct query_conn *conn, const char *sql, sqlite3_stmt **st)
{
	int i, rc;

	for (i = 0; i < QUERY_CACHE_SIZE && conn->cache[i].sql; i++) {
		if (conn->cache[i].sql == sql || !strcmp(conn->cache[i].sql, sql)) {
			sqlite3_reset(conn->cache[i].stmt);
			*st = conn->cache[i].stmt;
			return 0;
		}
	}
	if (i == QUERY_CACHE_SIZE)
		return -ENOSPC;
	rc = sqlite3_prepare_v2(conn->db, sql, -1, &conn->cache[i].stmt, NULL);
	if (rc != SQLITE_OK)
		return query_errno(rc) ?: -EINVAL;
	conn->cache[i].sql = sql;
	*st = conn->cache[i].stmt;
	return 0;
}

int query_insert(struct datafile *df, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc, err = cached_stmt(&df->conn, sql, &st);

	if (err)
		return err;
	va_start(ap, types);
	rc = bind(st, types, ap);
	va_end(ap);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	return query_errno(rc);
}

/* the slots a statement may take: its hash's and the next ones */
#define EACH_WAYS 4

/*
 * The SQL text's first slot among query_each's kept statements: FNV-1a of
 * its length and every 8th byte, enough to tell ~200 statements apart (the
 * slot's own text is compared whole); all of them took a tenth of a check
 * of a small file's values under the sanitizers.
 */
static unsigned int each_hash(const char *sql)
{
	size_t i, n = strlen(sql);
	unsigned int h = 2166136261u ^ (unsigned int)n;

	for (i = 0; i < n; i += 8)
		h = (h ^ (unsigned char)sql[i]) * 16777619u;
	return h;
}

/* sql's slot: the one holding it, else an empty one, else the first; -1 when it is in use. */
static int each_slot(struct query_conn *conn, const char *sql, bool *found)
{
	unsigned int h = each_hash(sql);
	int i, slot = -1;

	for (i = 0; i < EACH_WAYS; i++) {
		int s = (h + i) % QUERY_EACH_SLOTS;

		*found = conn->each[s].sql && !strcmp(conn->each[s].sql, sql);
		if (*found)
			/* a caller up the stack steps it: not handed out twice */
			return sqlite3_stmt_busy(conn->each[s].stmt) ? -1 : s;
		if (slot < 0 && !conn->each[s].sql)
			slot = s;
	}
	slot = slot < 0 ? (int)(h % QUERY_EACH_SLOTS) : slot;
	return conn->each[slot].stmt && sqlite3_stmt_busy(conn->each[slot].stmt) ? -1 : slot;
}

/*
 * The statement of sql for query_each, kept on a file that keeps them
 * (*kept: reset it after use) or not (finalize it).  Compiling is most of
 * a short query's time, and the checks a caller of datafile_recheck runs
 * again are ~90 statements; SQLite prepares a kept statement again itself
 * when the schema (a TEMP table) changed.
 */
static int each_stmt(struct query_conn *conn, const char *sql, sqlite3_stmt **st, bool *kept)
{
	int slot = -1, rc;
	char *copy;

	*kept = false;
	if (conn->keep_each)
		slot = each_slot(conn, sql, kept);
	if (slot >= 0 && *kept) {
		*st = conn->each[slot].stmt;
		return 0;
	}
	*kept = false;
	rc = sqlite3_prepare_v3(conn->db, sql, -1, slot >= 0 ? SQLITE_PREPARE_PERSISTENT : 0, st,
				NULL);
	if (rc != SQLITE_OK)
		return query_errno(rc);
	copy = slot >= 0 && *st ? strdup(sql) : NULL;
	if (!copy)
		return 0;
	sqlite3_finalize(conn->each[slot].stmt);
	free(conn->each[slot].sql);
	conn->each[slot].sql = copy;
	conn->each[slot].stmt = *st;
	*kept = true;
	return 0;
}

/* A statement of each_stmt done with: reset for the next caller, or finalized. */
static void each_done(sqlite3_stmt *st, bool kept)
{
	if (!kept) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

static int step_rows(sqlite3_stmt *st, query_row_fn fn, void *ctx)
{
	int rc, err = 0;

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = fn ? fn(st, ctx) : 0;
	return err ?: query_errno(rc);
}

/* query_each with its parameters as a va_list. */
static int each_va(struct datafile *df, const char *sql, query_row_fn fn, void *ctx,
		   const char *types, va_list ap)
{
	sqlite3_stmt *st;
	bool kept;
	int err = each_stmt(&df->conn, sql, &st, &kept);

	if (err)
		return err;
	err = query_errno(bind(st, types, ap)) ?: step_rows(st, fn, ctx);
	/* a statement that ran into the file's values: SUM() overflowing, ... */
	if (err == -EIO && sqlite3_errcode(query_db(df)) == SQLITE_ERROR)
		err = query_bad(df, "%s", sqlite3_errmsg(query_db(df)));
	each_done(st, kept);
	return err;
}

int query_each(struct datafile *df, const char *sql, query_row_fn fn, void *ctx, const char *types,
	       ...)
{
	va_list ap;
	int err;

	va_start(ap, types);
	err = each_va(df, sql, fn, ctx, types, ap);
	va_end(ap);
	return err;
}

int query_int_row(sqlite3_stmt *st, void *val)
{
	*(long long *)val = sqlite3_column_int64(st, 0);
	return 1;
}

long long query_scalar(struct datafile *df, const char *sql, const char *arg)
{
	long long v = 0;

	query_each(df, sql, query_int_row, &v, arg ? "t" : "", arg);
	return v;
}

struct hist {
	unsigned long long *hist;
	size_t n;
};

static int hist_row(sqlite3_stmt *st, void *ctx)
{
	struct hist *h = ctx;
	long long b = sqlite3_column_int64(st, 0);

	if (b >= 0 && (size_t)b < h->n)
		h->hist[b] = sqlite3_column_int64(st, 1);
	return 0;
}

int query_hist(struct datafile *df, const char *sql, unsigned long long *hist, size_t n,
	       const char *types, ...)
{
	va_list ap;
	int err;

	memset(hist, 0, n * sizeof(*hist));
	va_start(ap, types);
	err = each_va(df, sql, hist_row, &(struct hist){hist, n}, types, ap);
	va_end(ap);
	return err;
}

int query_prepare(struct datafile *df, const char *sql, sqlite3_stmt **st)
{
	return query_errno(sqlite3_prepare_v2(query_db(df), sql, -1, st, NULL));
}

int query_rerun(sqlite3_stmt *st, query_row_fn fn, void *ctx, const char *types, ...)
{
	va_list ap;
	int rc;

	sqlite3_reset(st);
	va_start(ap, types);
	rc = bind(st, types, ap);
	va_end(ap);
	if (rc != SQLITE_OK)
		return query_errno(rc);
	return step_rows(st, fn, ctx);
}

const char *query_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

const char *query_str(sqlite3_stmt *st, int i)
{
	return query_text(st, i) ?: "";
}
