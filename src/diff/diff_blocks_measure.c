// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --blocks' measures (diff_blocks_int.h): a side's counts in one run
 * or all, and a measure of both sides estimated: a bootstrap over runs
 * (diff/stats.h) when both sides have 2 runs or more with every count known
 * in each, else the counts as Poisson variates, else no interval; and the
 * orders the matched rows sort in (by change, by source line).
 */
#include "diff/diff_blocks_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/metrics.h"

/* One side of a measure: num over den in each run and in all, and the events num counts. */
struct series {
	struct stats_run *run; /* NULL: not known in every run */
	size_t n;
	struct stats_run all;
	double events;
	bool known;
};

long long db_block_count(const struct db_side *s, int run, size_t b)
{
	return run < 0 ? s->f.b[b].count : s->f.runs[run].b[b];
}

long long db_edge_count(const struct db_side *s, int run, size_t e)
{
	return run < 0 ? s->f.e[e].count : s->f.runs[run].e[e];
}

long long db_calls(const struct db_side *s, int run)
{
	return run < 0 ? s->f.calls : s->f.runs[run].calls;
}

static int series_of(const struct db_side *s, db_eval_fn eval, const void *arg, struct series *out)
{
	struct stats_run v;
	double events;
	size_t k;

	*out = (struct series){0};
	if (!s->present)
		return 0;
	out->known = eval(s, -1, arg, &out->all, &out->events);
	if (!out->known || !s->f.nruns)
		return 0;
	out->run = calloc(s->f.nruns, sizeof(*out->run));
	if (!out->run)
		return -ENOMEM;
	for (k = 0; k < s->f.nruns; k++) {
		if (!eval(s, k, arg, &v, &events)) {
			free(out->run);
			out->run = NULL;
			return 0;
		}
		out->run[out->n++] = v;
	}
	return 0;
}

/* Both sides' series to the measure: its point, interval and method. */
static int estimate(const struct series sr[2], struct db_measure *m)
{
	double w[2];
	int side;

	stats_point(&sr[DM_BASE].all, 1, &sr[DM_HARD].all, 1, &m->r);
	for (side = 0; side < 2; side++) {
		m->known[side] = sr[side].known;
		m->runs[side] = sr[side].n;
	}
	if (!sr[DM_BASE].known || !sr[DM_HARD].known)
		return 0;
	if (sr[DM_BASE].run && sr[DM_HARD].run && sr[DM_BASE].n >= 2 && sr[DM_HARD].n >= 2)
		return stats_bootstrap(sr[DM_BASE].run, sr[DM_BASE].n, sr[DM_HARD].run,
				       sr[DM_HARD].n, &m->r);
	/* what one event weighs: a side without events weighs as the other */
	for (side = 0; side < 2; side++)
		w[side] = sr[side].events > 0 ? sr[side].all.num / sr[side].events : 0;
	for (side = 0; side < 2; side++)
		w[side] = w[side] ?: w[!side] ?: 1;
	/* without exposure on a side there is no rate, and no interval */
	if (sr[DM_BASE].all.den <= 0 || sr[DM_HARD].all.den <= 0)
		return 0;
	stats_poisson_rate(sr[DM_BASE].events, sr[DM_BASE].all.den, w[DM_BASE], sr[DM_HARD].events,
			   sr[DM_HARD].all.den, w[DM_HARD],
			   w[DM_HARD] * sr[DM_HARD].events / sr[DM_HARD].all.den -
				   w[DM_BASE] * sr[DM_BASE].events / sr[DM_BASE].all.den,
			   &m->r);
	return 0;
}

int db_measure_of(const struct db_func *fn, db_eval_fn eval, const void *const arg[2],
		  const bool seen[2], struct db_measure *m)
{
	struct series sr[2] = {{0}};
	int side, err = 0;

	for (side = 0; side < 2 && !err; side++) {
		err = series_of(&fn->s[side], eval, arg[side], &sr[side]);
		m->seen[side] = seen[side] && fn->s[side].present;
	}
	err = err ?: estimate(sr, m);
	free(sr[DM_BASE].run);
	free(sr[DM_HARD].run);
	return err;
}

double db_change(const struct db_measure *m)
{
	return m->known[DM_BASE] && m->known[DM_HARD] ? fabs(m->r.hard - m->r.base) : -1;
}

int db_cmp_line(const char *fa, int la, const char *fb, int lb)
{
	int c = strcmp(fa, fb);

	return c ?: (la > lb) - (la < lb);
}
