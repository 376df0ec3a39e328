// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-run views of a recording and the queries of kprotperf diff's
 * measures on them (see runs.h); the rows handed over typed.
 */
#include "data/runs.h"

#include <stdio.h>
#include <string.h>

#include "data/protect.h"
#include "data/query.h"

/*
 * An empty runs table is an older or single-run recording: its totals are
 * the one run.  That run's row has no run number (NULL joins no row), so
 * that run_latency and run_samples rows of a run 0 the runs table lacks
 * are not counted on top of the totals.
 */
static const char views_sql[] =
	"CREATE TEMP TABLE d_runs(run INTEGER UNIQUE, idx INTEGER);"
	"INSERT INTO d_runs SELECT run, ROW_NUMBER() OVER (ORDER BY run) - 1 FROM runs;"
	"INSERT INTO d_runs SELECT NULL, 0 WHERE NOT EXISTS (SELECT 1 FROM runs);"
	"CREATE TEMP VIEW d_lat AS SELECT d.idx AS run, l.kind, l.id, l.calls, l.done,"
	" l.total_ns, l.oncpu_ns, l.offcpu_ns FROM run_latency l JOIN d_runs d ON d.run = l.run"
	" UNION ALL SELECT 0, kind, id, calls, done, total_ns, oncpu_ns, offcpu_ns FROM latency"
	" WHERE NOT EXISTS (SELECT 1 FROM runs);"
	"CREATE TEMP VIEW d_samples AS SELECT d.idx AS run, s.kstack, s.count FROM run_samples s"
	" JOIN d_runs d ON d.run = s.run UNION ALL SELECT 0, kstack, count FROM samples"
	" WHERE NOT EXISTS (SELECT 1 FROM runs);";

int runs_prepare(struct datafile *df, size_t *runs)
{
	int err = query_exec(df, views_sql);

	*runs = err ? 0 : (size_t)query_scalar(df, "SELECT COUNT(*) FROM d_runs", NULL);
	return err;
}

struct value_walk {
	runs_value_fn fn;
	void *ctx;
};

/* Rows (run idx, name, num, den). */
static int value_row(sqlite3_stmt *st, void *ctx)
{
	struct value_walk *w = ctx;
	struct runs_value v = {
		.run = sqlite3_column_int64(st, 0),
		.name = (const char *)sqlite3_column_text(st, 1),
		.num = sqlite3_column_double(st, 2),
		.den = sqlite3_column_double(st, 3),
		/* a fifth column only in the latency readers' rows */
		.calls = sqlite3_column_count(st) > 4 ? sqlite3_column_double(st, 4) : 0,
	};

	return w->fn(&v, w->ctx);
}

int runs_values(struct datafile *df, const char *sql, runs_value_fn fn, void *ctx)
{
	return query_each(df, sql, value_row, &(struct value_walk){fn, ctx}, "");
}

int runs_latency(struct datafile *df, const char *kind, const char *column, runs_value_fn fn,
		 void *ctx)
{
	char sql[512];

	if (!strcmp(kind, "syscall"))
		snprintf(sql, sizeof(sql),
			 "SELECT l.run, n.name, l.%s, l.done, l.calls FROM d_lat l JOIN latency n"
			 " ON n.kind = 'syscall' AND n.id = l.id WHERE l.kind = 'syscall'",
			 column);
	else
		/* the instances of one inlined function share its name, and are summed */
		snprintf(sql, sizeof(sql),
			 "SELECT l.run, f.name, l.%s, l.done, l.calls FROM d_lat l JOIN funcs f"
			 " ON f.id = l.id WHERE l.kind = 'func'",
			 column);
	return runs_values(df, sql, fn, ctx);
}

int runs_wall(struct datafile *df, runs_value_fn fn, void *ctx)
{
	return runs_values(df,
			   "SELECT d.idx, 'wall', r.wall_ns, 1 FROM runs r JOIN d_runs d"
			   " ON d.run = r.run UNION ALL SELECT 0, 'wall', CAST(value AS INTEGER), 1"
			   " FROM meta WHERE key = 'record.wall_ns' AND NOT EXISTS"
			   " (SELECT 1 FROM runs)",
			   fn, ctx);
}

int runs_kernel_self(struct datafile *df, runs_value_fn fn, void *ctx)
{
	return runs_values(df,
			   "SELECT s.run, kp_func_base(f.name), SUM(s.count), 1"
			   " FROM d_samples s JOIN frames f ON f.space = 'k' AND f.stack = s.kstack"
			   " AND f.depth = 0 AND f.leaf = 1 GROUP BY 1, 2",
			   fn, ctx);
}

int runs_kernel_total(struct datafile *df, runs_value_fn fn, void *ctx)
{
	return runs_values(df,
			   "SELECT s.run, f.base, SUM(s.count), 1 FROM d_samples s"
			   " JOIN (SELECT DISTINCT stack, kp_func_base(name) AS base"
			   " FROM frames WHERE space = 'k') f ON f.stack = s.kstack"
			   " GROUP BY 1, 2",
			   fn, ctx);
}

int runs_inline_keys(struct datafile *df, size_t n, const char *(*key)(size_t i, void *ctx),
		     void *ctx)
{
	size_t i;
	int err = query_exec(df, "CREATE TEMP TABLE d_inl(inst INTEGER PRIMARY KEY, key TEXT)");

	for (i = 0; i < n && !err; i++)
		err = query_insert(df, "INSERT INTO d_inl VALUES(?,?)", "it", (long long)i,
				   key(i, ctx));
	return err;
}

#define INL_STACKS_SQL                                                                     \
	" FROM (SELECT k.key, i.stack, MAX(i.self) AS self FROM inline_stacks i"           \
	" JOIN d_inl k ON k.inst = i.inst GROUP BY 1, 2) h JOIN d_samples s ON s.kstack =" \
	" h.stack GROUP BY 1, 2"

int runs_inline_samples(struct datafile *df, bool self, runs_value_fn fn, void *ctx)
{
	return runs_values(df,
			   self ? "SELECT s.run, h.key, SUM(CASE WHEN h.self THEN s.count ELSE 0"
				  " END), 1" INL_STACKS_SQL
				: "SELECT s.run, h.key, SUM(s.count), 1" INL_STACKS_SQL,
			   fn, ctx);
}

struct feature_walk {
	struct datafile *df;
	const struct runs_feature_map *m;
	long long stack; /* the stack whose feature is known, -1: none yet */
};

/* A leaf on a compiler-inserted site: the innermost site's feature, first in its order. */
static int site_row(long long stack, const char *kind, __u64 site, void *ctx)
{
	struct feature_walk *w = ctx;
	const char *feature;

	if (stack == w->stack)
		return 0;
	feature = w->m->of_site(kind, w->m->ctx);
	if (!feature)
		return 0;
	w->stack = stack;
	return query_insert(w->df, "INSERT INTO d_stack_feature VALUES(?,?,?)", "iti", stack,
			    feature, (long long)site);
}

/* Frames come innermost first: the first one a feature names decides the stack. */
static int feature_row(sqlite3_stmt *st, void *ctx)
{
	struct feature_walk *w = ctx;
	long long stack = sqlite3_column_int64(st, 0);
	const char *name = (const char *)sqlite3_column_text(st, 1), *feature;

	if (stack == w->stack || !name)
		return 0;
	feature = w->m->of_frame(name, w->m->ctx);
	if (!feature)
		return 0;
	w->stack = stack;
	/* a stack a site decided is kept */
	return query_insert(w->df, "INSERT OR IGNORE INTO d_stack_feature VALUES(?,?,NULL)", "it",
			    stack, feature);
}

static int stack_features(struct datafile *df, const struct runs_feature_map *m)
{
	struct feature_walk w = {df, m, -1};
	int err = query_exec(df, "CREATE TEMP TABLE d_stack_feature(stack INTEGER PRIMARY KEY,"
				 " feature TEXT, site INTEGER)");

	err = err ?: protect_leaf_sites(df, site_row, &w);
	w.stack = -1;
	return err
		       ?: query_each(df,
				     "SELECT stack, name FROM frames WHERE space = 'k'"
				     " ORDER BY stack, depth, sub DESC",
				     feature_row, &w, "");
}

int runs_features(struct datafile *df, const struct runs_feature_map *m, runs_value_fn fn,
		  void *ctx)
{
	return stack_features(df, m)
		       ?: runs_values(
				  df,
				  "SELECT s.run, COALESCE(f.feature, '(unmapped)'), SUM(s.count), 1"
				  " FROM d_samples s LEFT JOIN d_stack_feature f ON f.stack = s.kstack"
				  " WHERE s.kstack IS NOT NULL GROUP BY 1, 2",
				  fn, ctx);
}

struct total_walk {
	int (*fn)(const char *feature, long long samples, long long sites, void *ctx);
	void *ctx;
};

static int total_row(sqlite3_stmt *st, void *ctx)
{
	struct total_walk *w = ctx;
	const char *name = (const char *)sqlite3_column_text(st, 0);

	return name ? w->fn(name, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), w->ctx)
		    : 0;
}

int runs_feature_totals(struct datafile *df, const struct runs_feature_map *m,
			int (*fn)(const char *feature, long long samples, long long sites,
				  void *ctx),
			void *ctx)
{
	struct total_walk w = {fn, ctx};

	return stack_features(df, m)
		       ?: query_each(df,
				     "SELECT COALESCE(f.feature, '(unmapped)'), SUM(s.count),"
				     " COUNT(DISTINCT f.site) FROM samples s LEFT JOIN"
				     " d_stack_feature f ON f.stack = s.kstack"
				     " WHERE s.kstack IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1",
				     total_row, &w, "");
}

struct func_walk {
	int (*fn)(const char *feature, const char *func, long long samples, void *ctx);
	void *ctx;
};

static int func_row(sqlite3_stmt *st, void *ctx)
{
	struct func_walk *w = ctx;
	const char *feature = (const char *)sqlite3_column_text(st, 0),
		   *func = (const char *)sqlite3_column_text(st, 1);

	return feature && func ? w->fn(feature, func, sqlite3_column_int64(st, 2), w->ctx) : 0;
}

int runs_feature_functions(struct datafile *df,
			   int (*fn)(const char *feature, const char *func, long long samples,
				     void *ctx),
			   void *ctx)
{
	struct func_walk w = {fn, ctx};

	/* on a site: the function holding it (the leaf); in a thunk: the frame above it */
	return query_each(df,
			  "SELECT f.feature, fr.name, SUM(s.count) FROM samples s"
			  " JOIN d_stack_feature f ON f.stack = s.kstack"
			  " JOIN frames fr ON fr.space = 'k' AND fr.stack = s.kstack AND fr.sub = 0"
			  " AND fr.depth = (f.site IS NULL)"
			  " GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2",
			  func_row, &w, "");
}

struct hist_walk {
	int (*fn)(const struct runs_hist *h, void *ctx);
	void *ctx;
};

static int hist_row(sqlite3_stmt *st, void *ctx)
{
	struct hist_walk *w = ctx;
	struct runs_hist h = {
		.name = (const char *)sqlite3_column_text(st, 0),
		.bucket = sqlite3_column_int64(st, 1),
		.count = sqlite3_column_int64(st, 2),
	};

	return w->fn(&h, w->ctx);
}

int runs_latency_hists(struct datafile *df, const char *kind, const char *clock,
		       int (*fn)(const struct runs_hist *h, void *ctx), void *ctx)
{
	static const char sc_sql[] =
		"SELECT n.name, h.bucket, SUM(h.count) FROM latency_hist h JOIN latency n"
		" ON n.kind = h.kind AND n.id = h.id WHERE h.kind = 'syscall' AND h.clock = '%s'"
		" GROUP BY 1, 2";
	static const char fn_sql[] =
		"SELECT f.name, h.bucket, SUM(h.count) FROM latency_hist h JOIN funcs f"
		" ON f.id = h.id WHERE h.kind = 'func' AND h.clock = '%s' GROUP BY 1, 2";
	char sql[512];

	snprintf(sql, sizeof(sql), strcmp(kind, "func") ? sc_sql : fn_sql, clock);
	return query_each(df, sql, hist_row, &(struct hist_walk){fn, ctx}, "");
}

struct how_walk {
	int (*fn)(const char *name, bool inlined, bool out_of_line, void *ctx);
	void *ctx;
};

/* How the kernel has a name: inline frames and recorded instances, out-of-line symbols. */
#define HOW_SQL                                                                         \
	"SELECT kp_func_base(name), MAX(inl), MIN(inl) FROM"                            \
	" (SELECT name, inl FROM frames WHERE space = 'k' UNION ALL"                    \
	"  SELECT name, 1 FROM inlines UNION ALL"                                       \
	"  SELECT name, 0 FROM funcs WHERE method NOT IN ('inline-kprobe', 'samples'))" \
	" GROUP BY 1"

static int how_row(sqlite3_stmt *st, void *ctx)
{
	struct how_walk *w = ctx;

	return w->fn((const char *)sqlite3_column_text(st, 0) ?: "", sqlite3_column_int(st, 1),
		     !sqlite3_column_int(st, 2), w->ctx);
}

int runs_inlining(struct datafile *df,
		  int (*fn)(const char *name, bool inlined, bool out_of_line, void *ctx), void *ctx)
{
	return query_each(df, HOW_SQL, how_row, &(struct how_walk){fn, ctx}, "");
}
