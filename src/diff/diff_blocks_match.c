// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --blocks' matching (diff_blocks_int.h): a function's source lines,
 * loops (by their head's line, diff_blocks_loops.c) and conditional
 * branches (by the branch's line) paired across the two sides, never by
 * address, each with its measure (diff_blocks_measure.c).
 */
#include "diff/diff_blocks_int.h"

#include <errno.h>
#include <stdlib.h>

#include "diff/metrics.h"

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
