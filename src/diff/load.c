// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff's loaders: one recording's per-run values of each measure,
 * by the names that match across kernels (clone suffixes stripped).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "data/datafile.h"
#include "diff/metrics.h"
#include "data/features.h"
#include "report/report_inline.h"

int metrics_load_latency(struct metric_set *s, int side, struct df *df, const char *column)
{
	char sql[512];

	if (!strcmp(s->kind, "syscall"))
		snprintf(sql, sizeof(sql),
			 "SELECT l.run, n.name, l.%s, l.done FROM d_lat l JOIN latency n"
			 " ON n.kind = 'syscall' AND n.id = l.id WHERE l.kind = 'syscall'",
			 column);
	else
		/* the instances of one inlined function share its name, and are summed */
		snprintf(sql, sizeof(sql),
			 "SELECT l.run, f.name, l.%s, l.done FROM d_lat l JOIN funcs f"
			 " ON f.id = l.id WHERE l.kind = 'func'",
			 column);
	return metrics_collect(s, side, df, sql);
}

/* Self: the innermost frame of the leaf, inline or not; total: anywhere on the stack. */
int metrics_load_kernel_functions(struct metric_set *self, struct metric_set *total, int side, struct df *df)
{
	return metrics_collect(self, side, df,
			  "SELECT s.run, kp_func_base(f.name), SUM(s.count), 1"
			  " FROM d_samples s JOIN frames f ON f.space = 'k' AND f.stack = s.kstack"
			  " AND f.depth = 0 AND f.leaf = 1 GROUP BY 1, 2")
		       ?: metrics_collect(total, side, df,
				     "SELECT s.run, f.base, SUM(s.count), 1 FROM d_samples s"
				     " JOIN (SELECT DISTINCT stack, kp_func_base(name) AS base"
				     " FROM frames WHERE space = 'k') f ON f.stack = s.kstack"
				     " GROUP BY 1, 2");
}

/* Instances match across kernels by "inlined in parent", the parent without clone suffix. */
static int name_instances(struct df *df, const struct inl_insts *set)
{
	char key[256];
	size_t i, n;
	int err = df_errno(sqlite3_exec(df_db(df),
					"CREATE TEMP TABLE d_inl(inst INTEGER PRIMARY KEY,"
					" key TEXT)",
					NULL, NULL, NULL));

	for (i = 0; i < set->n && !err; i++) {
		n = strcspn(set->v[i].parent, ".");
		snprintf(key, sizeof(key), "%s in %.*s", set->v[i].func, (int)n, set->v[i].parent);
		err = df_insert(df, "INSERT INTO d_inl VALUES(?,?)", "it", (long long)i, key);
	}
	return err;
}

#define INL_STACKS_SQL                                                                     \
	" FROM (SELECT k.key, i.stack, MAX(i.self) AS self FROM inline_stacks i"           \
	" JOIN d_inl k ON k.inst = i.inst GROUP BY 1, 2) h JOIN d_samples s ON s.kstack =" \
	" h.stack GROUP BY 1, 2"

int metrics_load_inlines(struct metric_set *self, struct metric_set *total, int side, struct df *df,
		    struct kernel_dwarf *kd)
{
	struct inl_insts set;
	int err = inl_insts_load(&set, df, kd);

	err = err ?: name_instances(df, &set);
	err = err
		      ?: metrics_collect(self, side, df,
				    "SELECT s.run, h.key, SUM(CASE WHEN h.self THEN s.count ELSE 0"
				    " END), 1" INL_STACKS_SQL);
	err = err
		      ?: metrics_collect(total, side, df,
				    "SELECT s.run, h.key, SUM(s.count), 1" INL_STACKS_SQL);
	inl_insts_free(&set);
	return err;
}

struct feature_walk {
	struct df *df;
	const struct features *f;
	long long stack; /* the stack whose feature is known, -1: none yet */
};

/* Frames come innermost first: the first one a feature names decides the stack. */
static int feature_row(sqlite3_stmt *st, void *ctx)
{
	struct feature_walk *w = ctx;
	long long stack = sqlite3_column_int64(st, 0);
	const char *name = (const char *)sqlite3_column_text(st, 1), *feature;

	if (stack == w->stack || !name)
		return 0;
	feature = features_match(w->f, name);
	if (!feature)
		return 0;
	w->stack = stack;
	return df_insert(w->df, "INSERT INTO d_stack_feature VALUES(?,?)", "it", stack, feature);
}

/* Kernel samples only: a lost kernel stack is unmapped, a user-mode sample is not counted. */
int metrics_load_features(struct metric_set *s, int side, struct df *df, const struct features *f)
{
	struct feature_walk w = {df, f, -1};
	int err =
		df_errno(sqlite3_exec(df_db(df),
				      "CREATE TEMP TABLE d_stack_feature(stack INTEGER PRIMARY KEY,"
				      " feature TEXT)",
				      NULL, NULL, NULL));

	err = err
		      ?: df_each_row(df,
				     "SELECT stack, name FROM frames WHERE space = 'k'"
				     " ORDER BY stack, depth, sub DESC",
				     feature_row, &w);
	return err
		       ?: metrics_collect(
				  s, side, df,
				  "SELECT s.run, COALESCE(f.feature, '(unmapped)'), SUM(s.count), 1"
				  " FROM d_samples s LEFT JOIN d_stack_feature f ON f.stack = s.kstack"
				  " WHERE s.kstack IS NOT NULL GROUP BY 1, 2");
}

int metrics_load_wall(struct metric_set *s, int side, struct df *df)
{
	return metrics_collect(s, side, df,
			  "SELECT d.idx, 'wall', r.wall_ns, 1 FROM runs r JOIN d_runs d"
			  " ON d.run = r.run UNION ALL SELECT 0, 'wall', CAST(value AS INTEGER), 1"
			  " FROM meta WHERE key = 'record.wall_ns' AND NOT EXISTS"
			  " (SELECT 1 FROM runs)");
}

static int cmp_inlining(const void *a, const void *b)
{
	return strcmp(((const struct metrics_inlining *)a)->name, ((const struct metrics_inlining *)b)->name);
}

struct inlining_list {
	struct metrics_inlining *v;
	size_t n, cap;
	int side;
};

/* How the kernel has a name: inline frames and recorded instances, out-of-line symbols. */
#define HOW_SQL                                                                         \
	"SELECT kp_func_base(name), MAX(inl), MIN(inl) FROM"                            \
	" (SELECT name, inl FROM frames WHERE space = 'k' UNION ALL"                    \
	"  SELECT name, 1 FROM inlines UNION ALL"                                       \
	"  SELECT name, 0 FROM funcs WHERE method NOT IN ('inline-kprobe', 'samples'))" \
	" GROUP BY 1"

/* The base's rows are appended, the hardened's looked up. */
static int how_row(sqlite3_stmt *st, void *ctx)
{
	struct inlining_list *l = ctx;
	struct metrics_inlining key = {}, *e;

	snprintf(key.name, sizeof(key.name), "%s", (const char *)sqlite3_column_text(st, 0) ?: "");
	if (l->side == DM_BASE) {
		if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
			return -ENOMEM;
		e = &l->v[l->n++];
		*e = key;
	} else {
		e = bsearch(&key, l->v, l->n, sizeof(*l->v), cmp_inlining);
		if (!e)
			return 0;
	}
	e->how[l->side] = (sqlite3_column_int(st, 1) ? DM_INLINED : 0) |
			  (sqlite3_column_int(st, 2) ? 0 : DM_OUT_OF_LINE);
	return 0;
}

/* Inlined on one side and out of line, never inlined, on the other. */
static bool changed(const struct metrics_inlining *e)
{
	unsigned int b = e->how[DM_BASE], h = e->how[DM_HARD];

	return ((b & DM_INLINED) && !(h & DM_INLINED) && (h & DM_OUT_OF_LINE)) ||
	       ((h & DM_INLINED) && !(b & DM_INLINED) && (b & DM_OUT_OF_LINE));
}

int metrics_inlining_changes(struct df *const df[2], struct metrics_inlining **out, size_t *n)
{
	struct inlining_list l = {.side = DM_BASE};
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	err = df_each_row(df[DM_BASE], HOW_SQL, how_row, &l);
	/* GROUP BY promises no order */
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_inlining);
	l.side = DM_HARD;
	err = err ?: df_each_row(df[DM_HARD], HOW_SQL, how_row, &l);
	if (err) {
		free(l.v);
		return err;
	}
	for (i = 0; i < l.n; i++)
		if (changed(&l.v[i]))
			l.v[(*n)++] = l.v[i];
	*out = l.v;
	return 0;
}
