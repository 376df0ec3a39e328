// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "data/datafile.h"
#include "diff/metrics.h"

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

int metrics_prepare(struct df *df, size_t *runs)
{
	int err = df_errno(sqlite3_exec(df_db(df), views_sql, NULL, NULL, NULL));

	*runs = err ? 0 : (size_t)df_scalar(df, "SELECT COUNT(*) FROM d_runs", NULL);
	return err;
}

void metrics_init(struct metric_set *s, const char *kind, const char *clock, const size_t runs[2],
	     const double *period)
{
	*s = (struct metric_set){.kind = kind, .clock = clock, .samples = period};
	memcpy(s->runs, runs, sizeof(s->runs));
	if (period)
		memcpy(s->period, period, sizeof(s->period));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct metric *)a)->name, ((const struct metric *)b)->name);
}

static struct metric *new_metric(struct metric_set *s, const char *name)
{
	struct metric *m = calloc(1, sizeof(*m));
	int side;
	size_t i;

	if (!m || array_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) ||
	    !(m->name = strdup(name)))
		goto err;
	for (side = 0; side < 2; side++) {
		/* metrics_prepare() counts a recording without runs as one */
		m->run[side] = calloc(s->runs[side], sizeof(*m->run[side]));
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

static struct metric *find(struct metric_set *s, const char *name)
{
	struct metric key = {.name = (char *)name};
	void *found = tfind(&key, &s->index, cmp_name);

	return found ? *(struct metric **)found : NULL;
}

static struct metric *metric(struct metric_set *s, const char *name)
{
	return find(s, name) ?: new_metric(s, name);
}

struct collect {
	struct metric_set *s;
	int side;
};

static int collect_row(sqlite3_stmt *st, void *ctx)
{
	struct collect *c = ctx;
	long long run = sqlite3_column_int64(st, 0);
	const char *name = (const char *)sqlite3_column_text(st, 1);
	struct metric *m;

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

int metrics_collect(struct metric_set *s, int side, struct df *df, const char *sql)
{
	return df_each_row(df, sql, collect_row, &(struct collect){s, side});
}

/* One run on a side and a latency histogram to compare (off-CPU time has none). */
static bool needs_hist(const struct metric_set *s)
{
	return (s->runs[DM_BASE] < 2 || s->runs[DM_HARD] < 2) && s->kind && s->clock;
}

struct hist_fill {
	struct metric_set *s;
	int side;
};

static int hist_row(sqlite3_stmt *st, void *ctx)
{
	struct hist_fill *h = ctx;
	const char *name = (const char *)sqlite3_column_text(st, 0);
	long long b = sqlite3_column_int64(st, 1);
	struct metric *m;

	if (!name || b < 0 || b >= KP_HIST_BUCKETS)
		return 0;
	m = find(h->s, name);
	if (m && m->hist)
		m->hist[h->side][b] = sqlite3_column_int64(st, 2);
	return 0;
}

/*
 * The shown rows' histograms, each with all its ids merged (the instances of
 * one function): one query per side for the whole set.
 */
static int load_hists(struct metric_set *s, struct df *const df[2])
{
	static const char sc_sql[] =
		"SELECT n.name, h.bucket, SUM(h.count) FROM latency_hist h JOIN latency n"
		" ON n.kind = h.kind AND n.id = h.id WHERE h.kind = 'syscall' AND h.clock = '%s'"
		" GROUP BY 1, 2";
	static const char fn_sql[] =
		"SELECT f.name, h.bucket, SUM(h.count) FROM latency_hist h JOIN funcs f"
		" ON f.id = h.id WHERE h.kind = 'func' AND h.clock = '%s' GROUP BY 1, 2";
	char sql[512];
	size_t i;
	int side, err = 0;

	if (!needs_hist(s))
		return 0;
	for (i = 0; i < s->shown; i++) {
		s->v[i]->hist = calloc(2, sizeof(*s->v[i]->hist));
		if (!s->v[i]->hist)
			return -ENOMEM;
	}
	snprintf(sql, sizeof(sql), strcmp(s->kind, "func") ? sc_sql : fn_sql, s->clock);
	for (side = 0; side < 2 && !err; side++)
		err = df_each_row(df[side], sql, hist_row, &(struct hist_fill){s, side});
	return err;
}

static int interval(struct metric_set *s, struct metric *m)
{
	size_t nb = s->runs[DM_BASE], nh = s->runs[DM_HARD];

	if (nb >= 2 && nh >= 2)
		return stats_bootstrap(m->run[DM_BASE], nb, m->run[DM_HARD], nh, &m->r);
	if (s->samples)
		stats_poisson(nb, s->period[DM_BASE], nh, s->period[DM_HARD], &m->r);
	if (m->hist)
		stats_histogram(m->hist[DM_BASE], m->hist[DM_HARD], &m->r);
	return 0;
}

/* A metric with no time on either side (no calls, or calls of 0 ns) is no row. */
static bool has_time(const struct metric *m)
{
	return m->r.base_run || m->r.hard_run;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct metric *x = *(struct metric *const *)a;
	const struct metric *y = *(struct metric *const *)b;
	double dx = fabs(x->r.delta_run), dy = fabs(y->r.delta_run);

	if (has_time(x) != has_time(y))
		return has_time(x) ? -1 : 1;
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

int metrics_finish(struct metric_set *s, struct df *const df[2], int top)
{
	size_t i;
	int err;

	for (i = 0; i < s->n; i++)
		stats_point(s->v[i]->run[DM_BASE], s->runs[DM_BASE], s->v[i]->run[DM_HARD],
			 s->runs[DM_HARD], &s->v[i]->r);
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_rows);
	/* the resampling is the costly part: only for the rows printed */
	s->shown = 0;
	while (s->shown < s->n && s->shown < (size_t)top && has_time(s->v[s->shown]))
		s->shown++;
	err = load_hists(s, df);
	for (i = 0; i < s->shown && !err; i++)
		err = interval(s, s->v[i]);
	return err;
}

double metrics_total_delta(const struct metric_set *s)
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

void metrics_free(struct metric_set *s)
{
	size_t i;

	tdestroy(s->index, free_node);
	for (i = 0; i < s->n; i++) {
		free(s->v[i]->run[0]);
		free(s->v[i]->run[1]);
		free(s->v[i]->hist);
		free(s->v[i]->name);
		free(s->v[i]);
	}
	free(s->v);
	s->v = NULL;
	s->index = NULL;
	s->n = s->cap = s->shown = 0;
}
