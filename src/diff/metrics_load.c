// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff's loaders: one recording's per-run values of each measure,
 * by the names that match across kernels (clone suffixes stripped).
 */
#include "diff/metrics.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/runs.h"
#include "features/features.h"
#include "symbols/recorded_inlines.h"
#include "util/array.h"

static int add(struct metric_set *s, int side, struct datafile *df,
	       int (*reader)(struct datafile *df, runs_value_fn fn, void *ctx))
{
	return reader(df, metrics_add, &(struct metrics_sink){s, side});
}

int metrics_load_latency(struct metric_set *s, int side, struct datafile *df, const char *column)
{
	return runs_latency(df, s->kind, column, metrics_add, &(struct metrics_sink){s, side});
}

int metrics_load_kernel_functions(struct metric_set *self, struct metric_set *total, int side,
				  struct datafile *df)
{
	return add(self, side, df, runs_kernel_self) ?: add(total, side, df, runs_kernel_total);
}

struct inst_key {
	const struct recorded_inlines *set;
	char buf[256];
};

/* Instances match across kernels by "inlined in parent", the parent without clone suffix. */
static const char *inst_key(size_t i, void *ctx)
{
	struct inst_key *k = ctx;
	const struct recorded_inline *v = &k->set->v[i];
	int n = strcspn(v->parent, ".");

	snprintf(k->buf, sizeof(k->buf), "%s in %.*s", v->func, n, v->parent);
	return k->buf;
}

int metrics_load_inlines(struct metric_set *self, struct metric_set *total, int side,
			 struct datafile *df, struct kernel_dwarf *kd)
{
	struct metrics_sink to_self = {self, side}, to_total = {total, side};
	struct recorded_inlines set;
	struct inst_key k = {.set = &set};
	int err = recorded_inlines_load(&set, df, kd);

	err = err ?: runs_inline_keys(df, set.n, inst_key, &k);
	err = err ?: runs_inline_samples(df, true, metrics_add, &to_self);
	err = err ?: runs_inline_samples(df, false, metrics_add, &to_total);
	recorded_inlines_free(&set);
	return err;
}

/* Kernel samples only: a lost kernel stack is unmapped, a user-mode sample is not counted. */
int metrics_load_features(struct metric_set *s, int side, struct datafile *df,
			  const struct features *f)
{
	struct runs_feature_map m;

	features_map(f, &m);
	return runs_features(df, &m, metrics_add, &(struct metrics_sink){s, side});
}

int metrics_load_wall(struct metric_set *s, int side, struct datafile *df)
{
	return add(s, side, df, runs_wall);
}

static int cmp_inlining(const void *a, const void *b)
{
	return strcmp(((const struct metrics_inlining *)a)->name,
		      ((const struct metrics_inlining *)b)->name);
}

struct inlining_list {
	struct metrics_inlining *v;
	size_t n, cap;
	int side;
};

/* The base's names are appended, the hardened's looked up. */
static int how(const char *name, bool inlined, bool out_of_line, void *ctx)
{
	struct inlining_list *l = ctx;
	struct metrics_inlining key = {}, *e;

	snprintf(key.name, sizeof(key.name), "%s", name);
	if (l->side == DM_BASE) {
		if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
			return -ENOMEM;
		e = &l->v[l->n++];
		*e = key;
	} else {
		/* bsearch() of no array: NULL, which it must not be given */
		e = l->n ? bsearch(&key, l->v, l->n, sizeof(*l->v), cmp_inlining) : NULL;
		if (!e)
			return 0;
	}
	e->how[l->side] = (inlined ? DM_INLINED : 0) | (out_of_line ? DM_OUT_OF_LINE : 0);
	return 0;
}

/* Inlined on one side and out of line, never inlined, on the other. */
static bool changed(const struct metrics_inlining *e)
{
	unsigned int b = e->how[DM_BASE], h = e->how[DM_HARD];

	return ((b & DM_INLINED) && !(h & DM_INLINED) && (h & DM_OUT_OF_LINE)) ||
	       ((h & DM_INLINED) && !(b & DM_INLINED) && (b & DM_OUT_OF_LINE));
}

int metrics_load_inlining_changes(struct datafile *const df[2], struct metrics_inlining **out,
				  size_t *n)
{
	struct inlining_list l = {.side = DM_BASE};
	size_t i;
	int err;

	*out = NULL;
	*n = 0;
	err = runs_inlining(df[DM_BASE], how, &l);
	/* GROUP BY promises no order */
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_inlining);
	l.side = DM_HARD;
	err = err ?: runs_inlining(df[DM_HARD], how, &l);
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
