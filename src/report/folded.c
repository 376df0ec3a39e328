// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf folded: one line per distinct stack, "comm;user;...;kernel_[k] N",
 * root first, as flamegraph.pl and speedscope read it.  N is a sample count,
 * or with --weight latency the ns spent in a probed function entered from
 * that kernel stack (the line then starts with the function's name).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "data/datafile.h"
#include "report/folded.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"

struct folder {
	struct df *df;
	const struct folded_frames *o;
	bool cut; /* the first column is a probed function: cut the stack there */
	sqlite3_stmt *frames;
	folded_fn fn;
	void *ctx;
};

/* Whether frame is function func or one of its clones (func.isra.0, ...). */
static bool is_func(const char *frame, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(frame, func, n) && (!frame[n] || frame[n] == '.');
}

/*
 * Appends the frames of one stack, root first; space is 'k' or 'u'.  With
 * cut, *cut_at is where the leafmost frame of that function ends: what lies
 * beyond is the probe's own machinery (BPF program, trampoline).
 */
static int append_stack(struct folder *fo, FILE *line, const char *space, long long stack,
			const char *cut, long *cut_at)
{
	sqlite3_stmt *st = fo->frames;
	const char *name;
	bool inl;
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, space, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, stack);
	sqlite3_bind_int(st, 3, fo->o->inlines);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		inl = sqlite3_column_int(st, 1);
		fprintf(line, ";%s", name);
		if (fo->o->srcline && sqlite3_column_type(st, 2) != SQLITE_NULL)
			fprintf(line, ":%s:%d", sqlite3_column_text(st, 2),
				sqlite3_column_int(st, 3));
		fputs(*space != 'k' ? "" : inl ? "_[i]" : "_[k]", line);
		if (cut && is_func(name, cut))
			*cut_at = ftell(line);
	}
	return df_errno(rc);
}

static int fold_row(sqlite3_stmt *row, void *ctx)
{
	struct folder *fo = ctx;
	const char *cut = fo->cut ? (const char *)sqlite3_column_text(row, 0) : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *line = open_memstream(&buf, &len);
	long cut_at = -1;
	int err = 0;

	if (!line)
		return -errno;
	fputs((const char *)sqlite3_column_text(row, 0), line);
	if (fo->o->user && sqlite3_column_type(row, 1) != SQLITE_NULL) {
		if (sqlite3_column_int64(row, 1) < 0)
			fputs(";[unknown]", line);
		else
			err = append_stack(fo, line, "u", sqlite3_column_int64(row, 1), NULL, NULL);
	}
	if (!err && fo->o->kernel && sqlite3_column_type(row, 2) != SQLITE_NULL) {
		if (sqlite3_column_int64(row, 2) < 0)
			fputs(";[kernel stack lost]_[k]", line);
		else
			err = append_stack(fo, line, "k", sqlite3_column_int64(row, 2), cut,
					   &cut_at);
	}
	fclose(line);
	if (cut_at >= 0)
		buf[cut_at] = 0;
	if (!err)
		err = df_insert(fo->df, "INSERT INTO folded VALUES(?,?)", "ti", buf,
				sqlite3_column_int64(row, 3));
	free(buf);
	return err;
}

static int emit_line(sqlite3_stmt *st, void *ctx)
{
	struct folder *fo = ctx;

	return fo->fn((const char *)sqlite3_column_text(st, 0), sqlite3_column_int64(st, 1),
		      fo->ctx);
}

static int print_line(const char *line, long long n, void *ctx)
{
	printf("%s %lld\n", line, n);
	return 0;
}

static const char samples_sql[] =
	"SELECT comm, ustack, kstack, SUM(count) FROM samples GROUP BY comm, ustack, kstack";
/*
 * Shaped like samples_sql, the function standing where the comm does.  Both
 * %Q are the function asked for (by name or symbol probed), NULL for all.
 */
#define FUNC_FILTER " WHERE %Q IS NULL OR %Q IN (f.name, f.symbol)"
static const char func_stacks_sql[] = "SELECT f.name, NULL, s.kstack, s.total_ns FROM"
				      " func_stacks s JOIN funcs f ON f.id = s.func" FUNC_FILTER;

/* Different stack ids can print the same line: they are merged by the GROUP BY. */
static int fold(struct folder *fo, const char *sql)
{
	sqlite3 *db = df_db(fo->df);
	int rc, err;

	rc = sqlite3_exec(db, "CREATE TEMP TABLE folded(line TEXT, n INTEGER)", NULL, NULL, NULL);
	rc = rc
		     ?: sqlite3_prepare_v2(
				db,
				"SELECT name, inl, file, line FROM frames WHERE space = ?"
				" AND stack = ? AND (?3 OR sub = 0)"
				" ORDER BY depth DESC, sub",
				-1, &fo->frames, NULL);
	if (rc != SQLITE_OK)
		return df_errno(rc);
	err = df_each_row(fo->df, sql, fold_row, fo);
	sqlite3_finalize(fo->frames);
	/* calls that never returned weigh nothing */
	return err
		       ?: df_each_row(fo->df,
				      "SELECT line, SUM(n) FROM folded GROUP BY line"
				      " HAVING SUM(n) > 0 ORDER BY line",
				      emit_line, fo);
}

int folded_samples(struct df *df, const struct folded_frames *o, folded_fn fn, void *ctx)
{
	struct folder fo = {.df = df, .o = o, .fn = fn, .ctx = ctx};

	return fold(&fo, samples_sql);
}

static int first_int(sqlite3_stmt *st, void *n)
{
	*(long long *)n = sqlite3_column_int64(st, 0);
	return 0;
}

long long folded_count_funcs(struct df *df, const char *func)
{
	char *sql = sqlite3_mprintf("SELECT COUNT(*) FROM funcs f" FUNC_FILTER, func, func);
	long long n = 0;
	int err;

	if (!sql)
		return -ENOMEM;
	err = df_each_row(df, sql, first_int, &n);
	sqlite3_free(sql);
	return err ?: n;
}

int folded_print(struct df *df, struct kernel_dwarf *kd, const struct folded_frames *fr,
		 bool latency, const char *func)
{
	struct folder fo = {.df = df, .o = fr, .fn = print_line, .cut = latency};
	char *sql = NULL;
	int err;

	if (latency) {
		sql = sqlite3_mprintf(func_stacks_sql, func, func);
		if (!sql)
			return -ENOMEM;
	}
	err = stacks_name_frames(df, kd) ?: fold(&fo, sql ?: samples_sql);
	sqlite3_free(sql);
	return err;
}
