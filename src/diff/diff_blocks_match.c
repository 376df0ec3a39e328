// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --blocks' matching (diff_blocks_int.h): a function's source lines,
 * loops (by their head's line) and conditional branches (by the branch's
 * line) paired across the two sides, never by address, and each measure
 * estimated: a bootstrap over runs (diff/stats.h) when both sides have 2
 * runs or more with every count known in each, else the counts as Poisson
 * variates, else no interval.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_blocks_int.h"
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

/* The whole function: instructions executed per call. */
static bool func_eval(const struct db_side *s, int run, const void *arg, struct stats_run *v,
		      double *events)
{
	long long c, calls = db_calls(s, run);
	size_t i;

	*v = (struct stats_run){0, calls};
	*events = 0;
	for (i = 0; i < s->f.nb; i++) {
		c = db_block_count(s, run, i);
		if (c < 0)
			return false;
		*events += c;
		v->num += (double)c * s->f.b[i].insns;
	}
	return calls >= 0;
}

struct line_arg {
	const struct blocks_src_line *l; /* NULL: not in the side's code */
	bool insns;			 /* instructions on the line, else executions */
};

static bool line_eval(const struct db_side *s, int run, const void *arg, struct stats_run *v,
		      double *events)
{
	const struct line_arg *a = arg;
	long long c, calls = db_calls(s, run);
	size_t i;

	*v = (struct stats_run){0, calls};
	*events = 0;
	for (i = 0; a->l && i < a->l->nparts; i++) {
		c = db_block_count(s, run, a->l->parts[i].block);
		if (c < 0)
			return false;
		*events += c;
		v->num += a->insns ? (double)c * a->l->parts[i].insns : c;
	}
	return calls >= 0;
}

int db_cmp_line(const char *fa, int la, const char *fb, int lb)
{
	int c = strcmp(fa, fb);

	return c ?: (la > lb) - (la < lb);
}

/* The lines of both sides, merged in order: each with its blocks on either side. */
static int merge_lines(struct db_func *fn)
{
	const struct blocks_src *b = &fn->s[DM_BASE].src, *h = &fn->s[DM_HARD].src;
	size_t i = 0, k = 0;
	struct db_line *d;
	int c;

	fn->line = calloc(b->nlines + h->nlines + 1, sizeof(*fn->line));
	if (!fn->line)
		return -ENOMEM;
	while (i < b->nlines || k < h->nlines) {
		if (i == b->nlines)
			c = 1;
		else if (k == h->nlines)
			c = -1;
		else
			c = db_cmp_line(b->lines[i].file, b->lines[i].line, h->lines[k].file,
					h->lines[k].line);
		d = &fn->line[fn->nline++];
		d->l[DM_BASE] = c <= 0 ? &b->lines[i++] : NULL;
		d->l[DM_HARD] = c >= 0 ? &h->lines[k++] : NULL;
		d->file = (d->l[DM_BASE] ?: d->l[DM_HARD])->file;
		d->line = (d->l[DM_BASE] ?: d->l[DM_HARD])->line;
	}
	return 0;
}

double db_change(const struct db_measure *m)
{
	return m->known[DM_BASE] && m->known[DM_HARD] ? fabs(m->r.hard - m->r.base) : -1;
}

/* By the absolute change of instructions per call, then by file and line. */
static int cmp_line_change(const void *a, const void *b)
{
	const struct db_line *x = a, *y = b;
	double cx = db_change(&x->insns), cy = db_change(&y->insns);

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return db_cmp_line(x->file, x->line, y->file, y->line);
}

static int match_lines(struct db_func *fn)
{
	struct line_arg a[2];
	const void *arg[2] = {&a[DM_BASE], &a[DM_HARD]};
	bool seen[2];
	struct db_line *d;
	size_t i;
	int err = merge_lines(fn);

	for (i = 0; i < fn->nline && !err; i++) {
		d = &fn->line[i];
		a[DM_BASE] = (struct line_arg){d->l[DM_BASE], false};
		a[DM_HARD] = (struct line_arg){d->l[DM_HARD], false};
		seen[DM_BASE] = d->l[DM_BASE];
		seen[DM_HARD] = d->l[DM_HARD];
		err = db_measure_of(fn, line_eval, arg, seen, &d->execs);
		a[DM_BASE].insns = a[DM_HARD].insns = true;
		err = err ?: db_measure_of(fn, line_eval, arg, seen, &d->insns);
	}
	if (!err && fn->nline)
		qsort(fn->line, fn->nline, sizeof(*fn->line), cmp_line_change);
	return err;
}

int db_match(struct db_func *fn)
{
	static const bool both[2] = {true, true};
	const void *arg[2] = {NULL, NULL};
	int err = db_measure_of(fn, func_eval, arg, both, &fn->insns);

	if (err || !fn->lines)
		return err;
	return match_lines(fn) ?: db_match_loops(fn) ?: db_match_branches(fn);
}

void db_match_free(struct db_func *fn)
{
	size_t i;

	for (i = 0; fn->loop && i < fn->nloop; i++)
		free(fn->loop[i].changed);
	free(fn->line);
	free(fn->loop);
	free(fn->br);
	fn->line = NULL;
	fn->loop = NULL;
	fn->br = NULL;
	fn->nline = fn->nloop = fn->nbr = 0;
}
