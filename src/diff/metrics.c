// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff's measures: the per-run values of both sides gathered by
 * name, sorted by their change, and the intervals of the rows shown.
 */
#include "diff/metrics.h"

#include <errno.h>
#include <math.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "data/runs.h"
#include "util/array.h"

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
		/* runs_prepare() counts a recording without runs as one */
		m->run[side] = calloc(s->runs[side], sizeof(*m->run[side]));
		if (!m->run[side])
			goto err;
		/* a value per run: every run counts, sampled or not */
		for (i = 0; !s->kind && i < s->runs[side]; i++)
			m->run[side][i].den = 1;
		m->ncalls[side] = s->kind ? calloc(s->runs[side], sizeof(double)) : NULL;
		if (s->kind && !m->ncalls[side])
			goto err;
	}
	if (!tsearch(m, &s->index, cmp_name))
		goto err;
	s->v[s->n++] = m;
	return m;
err:
	if (m) {
		free(m->run[0]);
		free(m->run[1]);
		free(m->ncalls[0]);
		free(m->ncalls[1]);
		free(m->name);
	}
	free(m);
	return NULL;
}

struct metric *metrics_find(const struct metric_set *s, const char *name)
{
	struct metric key = {.name = (char *)name};
	void *found = tfind(&key, &s->index, cmp_name);

	return found ? *(struct metric **)found : NULL;
}

static struct metric *metric(struct metric_set *s, const char *name)
{
	return metrics_find(s, name) ?: new_metric(s, name);
}

int metrics_add(const struct runs_value *v, void *sink)
{
	struct metrics_sink *c = sink;
	struct metric *m;

	if (!v->name || v->run < 0 || (size_t)v->run >= c->s->runs[c->side])
		return 0;
	m = metric(c->s, v->name);
	if (!m)
		return -ENOMEM;
	/* a row of nothing (no samples, no calls) is no sighting */
	if (v->num || (c->s->kind && (v->den || v->calls)))
		m->seen[c->side] = true;
	m->run[c->side][v->run].num += v->num * (c->s->samples ? c->s->period[c->side] : 1);
	if (c->s->kind) {
		m->run[c->side][v->run].den += v->den;
		m->ncalls[c->side][v->run] += v->calls;
	}
	return 0;
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

static int hist_row(const struct runs_hist *r, void *ctx)
{
	struct hist_fill *h = ctx;
	struct metric *m;

	if (!r->name || r->bucket < 0 || r->bucket >= KP_HIST_BUCKETS)
		return 0;
	m = metrics_find(h->s, r->name);
	if (m && m->hist)
		m->hist[h->side][r->bucket] = r->count;
	return 0;
}

/*
 * The shown rows' histograms, each with all its ids merged (the instances of
 * one function): one query per side for the whole set.
 */
static int load_hists(struct metric_set *s, struct datafile *const df[2])
{
	size_t i;
	int side, err = 0;

	if (!needs_hist(s))
		return 0;
	for (i = 0; i < s->shown; i++) {
		s->v[i]->hist = calloc(2, sizeof(*s->v[i]->hist));
		if (!s->v[i]->hist)
			return -ENOMEM;
	}
	for (side = 0; side < 2 && !err; side++)
		err = runs_latency_hists(df[side], s->kind, s->clock, hist_row,
					 &(struct hist_fill){s, side});
	return err;
}

/*
 * Calls per run as a value per run (num: calls, den: 1); with one run on a
 * side, the calls are counts of events as the samples are: Poisson.
 */
static int calls_interval(struct metric_set *s, struct metric *m)
{
	size_t nb = s->runs[DM_BASE], nh = s->runs[DM_HARD], i;
	struct stats_run *v = calloc(nb + nh, sizeof(*v));
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < nb + nh; i++) {
		v[i].num = i < nb ? m->ncalls[DM_BASE][i] : m->ncalls[DM_HARD][i - nb];
		v[i].den = 1;
	}
	stats_point(v, nb, v + nb, nh, &m->calls);
	if (nb >= 2 && nh >= 2)
		err = stats_bootstrap(v, nb, v + nb, nh, &m->calls);
	else
		stats_poisson(nb, 1, nh, 1, &m->calls);
	free(v);
	return err;
}

static int interval(struct metric_set *s, struct metric *m)
{
	size_t nb = s->runs[DM_BASE], nh = s->runs[DM_HARD];
	int err = s->kind ? calls_interval(s, m) : 0;

	if (err)
		return err;
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

int metrics_finish(struct metric_set *s, struct datafile *const df[2], int top)
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
		free(s->v[i]->ncalls[0]);
		free(s->v[i]->ncalls[1]);
		free(s->v[i]->hist);
		free(s->v[i]->name);
		free(s->v[i]);
	}
	free(s->v);
	s->v = NULL;
	s->index = NULL;
	s->n = s->cap = s->shown = 0;
}
