// SPDX-License-Identifier: GPL-2.0-only
/* The queries on the latency tables and those of record --func (see latency.h). */
#include "data/latency.h"

#include <errno.h>
#include <stdbool.h>

#include "data/datafile.h"
#include "data/query.h"
#include "data/samples.h"
#include "util/hist.h"

int latency_hist(struct datafile *df, const char *kind, long long id, const char *clock,
		 __u64 *hist)
{
	return query_hist(df,
			  "SELECT bucket, count FROM latency_hist WHERE kind = ?"
			  " AND id = ? AND clock = ?",
			  hist, KP_HIST_BUCKETS, "tit", kind, id, clock);
}

struct row_walk {
	union {
		latency_row_fn row;
		latency_func_syscall_fn func_syscall;
		latency_func_context_fn func_context;
	};
	void *ctx;
};

static int latency_row(sqlite3_stmt *st, void *ctx)
{
	struct row_walk *w = ctx;
	struct latency_row r = {
		.id = sqlite3_column_int64(st, 0),
		.name = query_str(st, 1),
		.calls = sqlite3_column_int64(st, 2),
		.done = sqlite3_column_int64(st, 3),
		.total_ns = sqlite3_column_int64(st, 4),
		.oncpu_ns = sqlite3_column_int64(st, 5),
		.offcpu_ns = sqlite3_column_int64(st, 6),
		.max_ns = sqlite3_column_int64(st, 7),
		.method = query_str(st, 8),
		.symbol = query_str(st, 9),
		.module = query_str(st, 10),
	};

	return w->row(&r, w->ctx);
}

int latency_syscalls(struct datafile *df, latency_row_fn fn, void *ctx)
{
	return query_each(df,
			  "SELECT id, name, calls, done, total_ns, oncpu_ns, offcpu_ns, max_ns,"
			  " '', '', '' FROM latency WHERE kind = 'syscall'",
			  latency_row, &(struct row_walk){{.row = fn}, ctx}, "");
}

int latency_funcs(struct datafile *df, latency_row_fn fn, void *ctx)
{
	return query_each(df,
			  "SELECT f.id, f.name, COALESCE(l.calls, 0), COALESCE(l.done, 0),"
			  " COALESCE(l.total_ns, 0), 0, 0, COALESCE(l.max_ns, 0), f.method,"
			  " f.symbol, f.module FROM funcs f"
			  " LEFT JOIN latency l ON l.kind = 'func' AND l.id = f.id",
			  latency_row, &(struct row_walk){{.row = fn}, ctx}, "");
}

struct absent_walk {
	int (*fn)(const char *pattern, void *ctx);
	void *ctx;
};

static int absent_row(sqlite3_stmt *st, void *ctx)
{
	struct absent_walk *w = ctx;

	return w->fn(query_str(st, 0), w->ctx);
}

int latency_func_absent(struct datafile *df, int (*fn)(const char *pattern, void *ctx), void *ctx)
{
	return query_each(df, "SELECT pattern FROM func_absent ORDER BY pattern", absent_row,
			  &(struct absent_walk){fn, ctx}, "");
}

long long latency_syscall_id(struct datafile *df, const char *name)
{
	return query_scalar(df,
			    "SELECT COALESCE((SELECT id FROM latency WHERE kind = 'syscall'"
			    " AND name = ?1), -1)",
			    name);
}

long long latency_func_id(struct datafile *df, const char *name)
{
	/* the symbol probed wins over a name given to record --func */
	return query_scalar(df,
			    "SELECT COALESCE((SELECT id FROM funcs WHERE ?1 IN (name, symbol)"
			    " ORDER BY symbol = ?1 DESC, id LIMIT 1), -1)",
			    name);
}

static int func_syscall_row(sqlite3_stmt *st, void *ctx)
{
	struct row_walk *w = ctx;
	struct latency_func_syscall r = {
		.func = query_str(st, 0),
		.syscall = query_text(st, 1),
		.nr = sqlite3_column_int64(st, 2),
		.calls = sqlite3_column_int64(st, 3),
		.total_ns = sqlite3_column_int64(st, 4),
		.oncpu_ns = sqlite3_column_int64(st, 5),
	};

	return w->func_syscall(&r, w->ctx);
}

/* nr 65535: calls made outside any syscall (page faults, kernel threads). */
static const char func_syscalls_sql[] =
	"SELECT f.name, CASE fs.nr WHEN 65535 THEN NULL"
	" ELSE COALESCE(s.name, 'syscall_' || fs.nr) END, fs.nr, fs.calls, fs.total_ns,"
	" COALESCE(s.oncpu_ns, 0) FROM func_syscalls fs JOIN funcs f ON f.id = fs.func"
	" LEFT JOIN latency s ON s.kind = 'syscall' AND s.id = fs.nr"
	" WHERE fs.calls > 0 ORDER BY fs.total_ns DESC, f.name, fs.nr LIMIT ?2";

int latency_func_syscalls(struct datafile *df, int limit, latency_func_syscall_fn fn, void *ctx)
{
	return query_each(df, func_syscalls_sql, func_syscall_row,
			  &(struct row_walk){{.func_syscall = fn}, ctx}, "ti", NULL,
			  (long long)limit);
}

static int func_context_row(sqlite3_stmt *st, void *ctx)
{
	struct row_walk *w = ctx;
	struct latency_func_context r = {
		.func = query_str(st, 0),
		.context = query_str(st, 1),
		.calls = sqlite3_column_int64(st, 2),
		.total_ns = sqlite3_column_int64(st, 3),
	};

	return w->func_context(&r, w->ctx);
}

int latency_func_contexts(struct datafile *df, int limit, latency_func_context_fn fn, void *ctx)
{
	return query_each(df,
			  "SELECT f.name, c.context, c.calls, c.total_ns FROM func_contexts c"
			  " JOIN funcs f ON f.id = c.func ORDER BY c.total_ns DESC, f.name,"
			  " c.context LIMIT ?2",
			  func_context_row, &(struct row_walk){{.func_context = fn}, ctx}, "ti",
			  NULL, (long long)limit);
}

/* Both %Q are the function asked for (by name or symbol probed), NULL for all. */
#define FUNC_FILTER " WHERE %Q IS NULL OR %Q IN (f.name, f.symbol)"

long long latency_count_funcs(struct datafile *df, const char *func)
{
	char *sql = sqlite3_mprintf("SELECT COUNT(*) FROM funcs f" FUNC_FILTER, func, func);
	long long n = 0;
	int err;

	if (!sql)
		return -ENOMEM;
	err = query_each(df, sql, query_int_row, &n, "");
	sqlite3_free(sql);
	return err < 0 ? err : n;
}

int latency_func_stacks(struct datafile *df, const char *func, samples_stack_fn fn, void *ctx)
{
	/* shaped like the samples' stacks, the function standing where the comm does */
	char *sql = sqlite3_mprintf("SELECT f.name, NULL, s.kstack, s.total_ns FROM"
				    " func_stacks s JOIN funcs f ON f.id = s.func" FUNC_FILTER,
				    func, func);
	int err;

	if (!sql)
		return -ENOMEM;
	err = samples_stacks_of(df, sql, fn, ctx);
	sqlite3_free(sql);
	return err;
}
