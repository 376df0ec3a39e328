// SPDX-License-Identifier: GPL-2.0-only
/* The readers of a boot recording (boot_read.h): their SQL. */
#include "data/boot_read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "data/datafile.h"
#include "data/query.h"

bool boot_present(struct datafile *df)
{
	return datafile_meta(df, "boot.runs") != NULL;
}

int boot_nruns(struct datafile *df, size_t *runs)
{
	const char *s = datafile_meta(df, "boot.runs");
	char *end;
	unsigned long n;

	if (!s)
		return -ENODATA;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s < '0' || *s > '9' || n < 1 || n > BOOT_RUNS_MAX)
		return query_bad(df, "meta boot.runs: '%s' is not a number of boots from 1 to %d",
				 s, BOOT_RUNS_MAX);
	*runs = n;
	return 0;
}

/* The walks' common state: the caller's fn, and the runs a row may name. */
struct walk {
	struct datafile *df;
	const char *table;
	size_t runs;
	void *fn, *ctx;
};

/* Column 0 of st, a run, checked against the recording's runs. */
static int run_of(struct walk *w, sqlite3_stmt *st, size_t *run)
{
	long long r = sqlite3_column_int64(st, 0);

	if (r < 0 || (size_t)r >= w->runs)
		return query_bad(w->df,
				 "table %s: run %lld, but the recording has %zu boots (meta"
				 " boot.runs)",
				 w->table, r, w->runs);
	*run = r;
	return 0;
}

static long long int_or_none(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static int run_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct boot_run_row r = {
		.clock_offset_ns = int_or_none(st, 1),
		.initcalls_end_ns = int_or_none(st, 2),
		.first_user_ns = int_or_none(st, 3),
		.entry_insns = int_or_none(st, 4),
		.first_user_insns = int_or_none(st, 5),
		.initcalls = sqlite3_column_int64(st, 6),
	};

	return run_of(w, st, &r.run) ?: ((boot_run_fn)w->fn)(&r, w->ctx);
}

/* A walk over table's rows: the recording's runs read first. */
static int walk_init(struct walk *w, struct datafile *df, const char *table, void *fn, void *ctx)
{
	*w = (struct walk){.df = df, .table = table, .fn = fn, .ctx = ctx};
	return boot_nruns(df, &w->runs);
}

int boot_runs_each(struct datafile *df, boot_run_fn fn, void *ctx)
{
	struct walk w;

	return walk_init(&w, df, "boot_runs", fn, ctx)
		       ?: query_each(
				  df,
				  "SELECT run, clock_offset_ns, initcalls_end_ns, first_user_ns,"
				  " entry_insns, first_user_insns, initcalls FROM boot_runs ORDER BY run",
				  run_row, &w, "");
}

static int initcall_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct boot_initcall_row r = {
		.name = query_str(st, 1),
		.start_ns = sqlite3_column_int64(st, 2),
		.ns = sqlite3_column_int64(st, 3),
		.ret = sqlite3_column_int64(st, 4),
	};

	return run_of(w, st, &r.run) ?: ((boot_initcall_fn)w->fn)(&r, w->ctx);
}

int boot_initcalls_each(struct datafile *df, boot_initcall_fn fn, void *ctx)
{
	struct walk w;

	return walk_init(&w, df, "boot_initcalls", fn, ctx)
		       ?: query_each(df,
				     "SELECT run, name, start_ns, ns, ret FROM boot_initcalls"
				     " ORDER BY run, seq",
				     initcall_row, &w, "");
}

static int func_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct boot_func_row r = {
		.name = query_str(st, 1),
		.module = query_str(st, 2),
		.insns = sqlite3_column_int64(st, 3),
	};

	return run_of(w, st, &r.run) ?: ((boot_func_fn)w->fn)(&r, w->ctx);
}

int boot_funcs_each(struct datafile *df, boot_func_fn fn, void *ctx)
{
	struct walk w;

	return walk_init(&w, df, "boot_funcs", fn, ctx)
		       ?: query_each(df,
				     "SELECT run, name, module, insns FROM boot_funcs"
				     " ORDER BY name, module, run",
				     func_row, &w, "");
}

static int miss_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct boot_miss_row r = {.name = query_str(st, 1), .module = query_str(st, 2)};
	size_t run;
	int i;

	for (i = 0; i < MODEL_STATS; i++)
		r.v[i] = sqlite3_column_int64(st, 3 + i);
	return run_of(w, st, &run) ?: ((boot_miss_fn)w->fn)(&r, w->ctx);
}

int boot_misses_each(struct datafile *df, unsigned int geom, boot_miss_fn fn, void *ctx)
{
	struct walk w;

	/* MAX(run): the check that every row's run is the recording's */
	return walk_init(&w, df, "boot_func_misses", fn, ctx)
		       ?: query_each(df,
				     "SELECT MAX(run), name, module, SUM(i1_misses), SUM(d1_reads),"
				     " SUM(d1_read_misses), SUM(d1_writes), SUM(d1_write_misses),"
				     " SUM(ll_misses) FROM boot_func_misses WHERE geom = ?1"
				     " GROUP BY name, module ORDER BY name, module",
				     miss_row, &w, "i", (long long)geom);
}

static int model_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct boot_model_row r = {.name = query_str(st, 1), .module = query_str(st, 2)};
	int i, n = sqlite3_column_count(st) - 3;

	if (!strcmp(w->table, "boot_func_misses"))
		r.what = BOOT_ROW_MISSES;
	else if (!strcmp(w->table, "boot_func_tlb"))
		r.what = BOOT_ROW_TLB;
	else if (!strcmp(w->table, "boot_func_thunks"))
		r.what = BOOT_ROW_THUNKS;
	else if (!strcmp(w->table, "boot_func_cycles"))
		r.what = BOOT_ROW_CYCLES;
	else
		r.what = BOOT_ROW_EVENT;
	if (r.what == BOOT_ROW_EVENT) {
		r.kind = model_kind_of(query_str(st, 3));
		r.v[0] = sqlite3_column_int64(st, 4);
		r.v[1] = sqlite3_column_int64(st, 5);
	} else {
		for (i = 0; i < n && i < (int)(sizeof(r.v) / sizeof(r.v[0])); i++)
			r.v[i] = sqlite3_column_int64(st, 3 + i);
	}
	return run_of(w, st, &r.run) ?: ((boot_model_fn)w->fn)(&r, w->ctx);
}

/* The timing model's cycles per function and run: only a boot under it has the table's rows. */
static int cycles_each(struct datafile *df, boot_model_fn fn, void *ctx)
{
	struct walk w;

	if (strcmp(datafile_meta(df, "model.mode") ?: "", "timing"))
		return 0;
	return walk_init(&w, df, "boot_func_cycles", fn, ctx)
		       ?: query_each(
				  df,
				  "SELECT run, name, module, cycles, base, branch, icache, dcache,"
				  " tlb, serialize FROM boot_func_cycles ORDER BY name, module, run",
				  model_row, &w, "");
}

int boot_model_each(struct datafile *df, unsigned int geom, boot_model_fn fn, void *ctx)
{
	struct walk w;

	return walk_init(&w, df, "boot_func_misses", fn, ctx)
		       ?: query_each(df,
				     "SELECT run, name, module, i1_misses, d1_reads, d1_read_misses,"
				     " d1_writes, d1_write_misses, ll_misses FROM boot_func_misses"
				     " WHERE geom = ?1 ORDER BY name, module, run",
				     model_row, &w, "i", (long long)geom)
		       ?: walk_init(&w, df, "boot_func_tlb", fn, ctx)
		       ?: query_each(df,
				     "SELECT run, name, module, itlb_misses, dtlb_misses FROM"
				     " boot_func_tlb WHERE geom = ?1 ORDER BY name, module, run",
				     model_row, &w, "i", (long long)geom)
		       ?: walk_init(&w, df, "boot_func_events", fn, ctx)
		       ?: query_each(df,
				     "SELECT run, name, module, kind, execs, flushes FROM"
				     " boot_func_events ORDER BY name, module, run, kind",
				     model_row, &w, "")
		       ?: walk_init(&w, df, "boot_func_thunks", fn, ctx)
		       ?: query_each(df,
				     "SELECT run, name, module, retpolines, return_thunks FROM"
				     " boot_func_thunks ORDER BY name, module, run",
				     model_row, &w, "")
		       ?: cycles_each(df, fn, ctx);
}
