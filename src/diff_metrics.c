// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "diff_metrics.h"
#include "features.h"
#include "hist.h"
#include "report_inline.h"

/* An empty runs table is an older or single-run recording: its totals are the one run. */
static const char views_sql[] =
	"CREATE TEMP TABLE d_runs(run INTEGER PRIMARY KEY, idx INTEGER);"
	"INSERT INTO d_runs SELECT run, ROW_NUMBER() OVER (ORDER BY run) - 1 FROM runs;"
	"INSERT INTO d_runs SELECT 0, 0 WHERE NOT EXISTS (SELECT 1 FROM runs);"
	"CREATE TEMP VIEW d_lat AS SELECT d.idx AS run, l.kind, l.id, l.calls, l.done,"
	" l.total_ns, l.oncpu_ns, l.offcpu_ns FROM run_latency l JOIN d_runs d ON d.run = l.run"
	" UNION ALL SELECT 0, kind, id, calls, done, total_ns, oncpu_ns, offcpu_ns FROM latency"
	" WHERE NOT EXISTS (SELECT 1 FROM runs);"
	"CREATE TEMP VIEW d_samples AS SELECT d.idx AS run, s.kstack, s.count FROM run_samples s"
	" JOIN d_runs d ON d.run = s.run UNION ALL SELECT 0, kstack, count FROM samples"
	" WHERE NOT EXISTS (SELECT 1 FROM runs);";

int dm_prepare(struct df *df, size_t *runs)
{
	int err = df_errno(sqlite3_exec(df_db(df), views_sql, NULL, NULL, NULL));

	*runs = err ? 0 : (size_t)df_scalar(df, "SELECT COUNT(*) FROM d_runs", NULL);
	return err;
}

void dm_init(struct dm_set *s, const char *kind, const char *clock, const size_t runs[2],
	     const double *period)
{
	*s = (struct dm_set){.kind = kind, .clock = clock, .samples = period};
	memcpy(s->runs, runs, sizeof(s->runs));
	if (period)
		memcpy(s->period, period, sizeof(s->period));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct dm_metric *)a)->name, ((const struct dm_metric *)b)->name);
}

static struct dm_metric *new_metric(struct dm_set *s, const char *name)
{
	struct dm_metric *m = calloc(1, sizeof(*m)), **v;
	int side;
	size_t i;

	v = reallocarray(s->v, s->n + 1, sizeof(*v));
	if (v)
		s->v = v;
	if (!m || !v || !(m->name = strdup(name)))
		goto err;
	for (side = 0; side < 2; side++) {
		m->run[side] = calloc(s->runs[side] ?: 1, sizeof(*m->run[side]));
		if (!m->run[side])
			goto err;
		/* a value per run: every run counts, sampled or not */
		for (i = 0; !s->kind && i < s->runs[side]; i++)
			m->run[side][i].den = 1;
	}
	if (!tsearch(m, &s->index, cmp_name))
		goto err;
	s->v[s->n++] = m;
	return m;
err:
	if (m) {
		free(m->run[0]);
		free(m->run[1]);
		free(m->name);
	}
	free(m);
	return NULL;
}

static struct dm_metric *metric(struct dm_set *s, const char *name)
{
	struct dm_metric key = {.name = (char *)name};
	void *found = tfind(&key, &s->index, cmp_name);

	return found ? *(struct dm_metric **)found : new_metric(s, name);
}

struct collect {
	struct dm_set *s;
	int side;
};

static int collect_row(sqlite3_stmt *st, void *ctx)
{
	struct collect *c = ctx;
	long long run = sqlite3_column_int64(st, 0);
	const char *name = (const char *)sqlite3_column_text(st, 1);
	struct dm_metric *m;

	if (!name || run < 0 || (size_t)run >= c->s->runs[c->side])
		return 0;
	m = metric(c->s, name);
	if (!m)
		return -ENOMEM;
	m->run[c->side][run].num +=
		sqlite3_column_double(st, 2) * (c->s->samples ? c->s->period[c->side] : 1);
	if (c->s->kind)
		m->run[c->side][run].den += sqlite3_column_double(st, 3);
	return 0;
}

int dm_collect(struct dm_set *s, int side, struct df *df, const char *sql)
{
	return df_each_row(df, sql, collect_row, &(struct collect){s, side});
}

/* A latency measure's histogram on one side, all its ids merged (instances of one function). */
static int load_hist(const struct dm_set *s, struct df *df, const char *name, __u64 *hist)
{
	static const char sc_sql[] =
		"SELECT h.bucket, SUM(h.count) FROM latency_hist h JOIN latency n ON n.kind ="
		" h.kind AND n.id = h.id WHERE h.kind = 'syscall' AND n.name = ?1 AND h.clock = ?2"
		" GROUP BY h.bucket";
	static const char fn_sql[] =
		"SELECT h.bucket, SUM(h.count) FROM latency_hist h JOIN funcs f ON f.id = h.id"
		" WHERE h.kind = 'func' AND f.name = ?1 AND h.clock = ?2 GROUP BY h.bucket";
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(df_db(df), strcmp(s->kind, "func") ? sc_sql : fn_sql, -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return df_errno(rc);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, s->clock, -1, SQLITE_STATIC);
	return df_hist_rows(st, hist, KP_HIST_BUCKETS);
}

static int interval(struct dm_set *s, struct df *const df[2], struct dm_metric *m)
{
	__u64 hist[2][KP_HIST_BUCKETS];
	size_t nb = s->runs[DM_BASE], nh = s->runs[DM_HARD];
	int err;

	ds_point(m->run[DM_BASE], nb, m->run[DM_HARD], nh, &m->r);
	if (nb >= 2 && nh >= 2)
		return ds_bootstrap(m->run[DM_BASE], nb, m->run[DM_HARD], nh, &m->r);
	if (s->samples)
		ds_poisson(nb, s->period[DM_BASE], nh, s->period[DM_HARD], &m->r);
	if (!s->kind)
		return 0;
	/* off-CPU time has no histogram of its own: no interval from one run */
	if (!s->clock)
		return 0;
	err = load_hist(s, df[DM_BASE], m->name, hist[DM_BASE])
		      ?: load_hist(s, df[DM_HARD], m->name, hist[DM_HARD]);
	if (!err)
		ds_histogram(hist[DM_BASE], hist[DM_HARD], &m->r);
	return err;
}

static int cmp_contribution(const void *a, const void *b)
{
	const struct dm_metric *x = *(struct dm_metric *const *)a;
	const struct dm_metric *y = *(struct dm_metric *const *)b;
	double dx = fabs(x->r.delta_run), dy = fabs(y->r.delta_run);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

int dm_finish(struct dm_set *s, struct df *const df[2])
{
	size_t i;
	int err = 0;

	for (i = 0; i < s->n && !err; i++)
		err = interval(s, df, s->v[i]);
	if (!err && s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_contribution);
	return err;
}

double dm_total_delta(const struct dm_set *s)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		sum += s->v[i]->r.delta_run;
	return sum;
}

/* the nodes are the metrics, freed from s->v */
static void free_node(void *p)
{
}

void dm_free(struct dm_set *s)
{
	size_t i;

	tdestroy(s->index, free_node);
	for (i = 0; i < s->n; i++) {
		free(s->v[i]->run[0]);
		free(s->v[i]->run[1]);
		free(s->v[i]->name);
		free(s->v[i]);
	}
	free(s->v);
	s->v = NULL;
	s->index = NULL;
	s->n = 0;
}
