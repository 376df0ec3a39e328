// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --blocks' loops and branches (diff_blocks_int.h).  A loop is matched
 * by its head's source line, and when its trips follow its bound in every
 * call on both sides and the bound's value changed, the bound is named as
 * the cause of the change.  A conditional branch is matched by the branch
 * instruction's line (the blocks ending on one line summed), and kept when
 * its direction flipped: its taken ratio crossed 50%.
 */
#include "diff/diff_blocks_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/metrics.h"

/* ctx names shown in a cause, the most calls first */
#define CAUSE_CTX 3

/* A loop of one side, at its head's source line. */
struct at_line {
	const char *file; /* NULL: unknown */
	int line;
	size_t idx;
};

static int cmp_at(const void *a, const void *b)
{
	const struct at_line *x = a, *y = b;

	if (!x->file || !y->file)
		return !x->file - !y->file;
	return db_cmp_line(x->file, x->line, y->file, y->line)
		       ?: (x->idx > y->idx) - (x->idx < y->idx);
}

/* Each loop of a side at its head's line, sorted (unknown lines last). */
static struct at_line *loop_lines(const struct db_side *s)
{
	struct at_line *v = calloc(s->f.nloops ?: 1, sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < s->f.nloops; i++) {
		blocks_src_at(&s->src, s->f.b[s->f.loops[i].head].start, &v[i].file, &v[i].line);
		v[i].idx = i;
	}
	if (s->f.nloops)
		qsort(v, s->f.nloops, sizeof(*v), cmp_at);
	return v;
}

static bool loop_eval(const struct db_side *s, int run, const void *arg, struct stats_run *v,
		      double *events)
{
	int loop = *(const int *)arg;
	long long c = loop < 0 ? 0 : db_block_count(s, run, s->f.loops[loop].head);
	long long calls = db_calls(s, run);

	*v = (struct stats_run){c, calls};
	*events = c;
	return c >= 0 && calls >= 0;
}

/* The most calls' bound value of one cache, for each cache of loop (rows come by ctx, bound). */
struct ctx_bound {
	const char *ctx;
	long long bound, calls, all;
};

static struct ctx_bound *bounds_by_ctx(const struct blocks_func *f, int loop, size_t *n)
{
	struct ctx_bound *v = calloc(f->nbv ?: 1, sizeof(*v)), *c = NULL;
	const struct blocks_bound_value *bv;
	long long run = 0;
	size_t i;

	if (!v)
		return NULL;
	for (i = 0, *n = 0; i < f->nbv; i++) {
		bv = &f->bv[i];
		if (bv->loop != loop)
			continue;
		if (!c || strcmp(c->ctx, bv->ctx)) {
			c = &v[(*n)++];
			*c = (struct ctx_bound){.ctx = bv->ctx};
			run = 0;
		} else if (i && f->bv[i - 1].bound != bv->bound) {
			run = 0;
		}
		run += bv->count;
		c->all += bv->count;
		if (run > c->calls) {
			c->calls = run;
			c->bound = bv->bound;
		}
	}
	return v;
}

/* 1 when the loop's trips follow its bound in each of its calls on the side, else 0; -ENOMEM. */
static int follows(const struct blocks_func *f, int loop)
{
	struct blocks_relation r;
	int err;

	if (!f->loops[loop].bound.expr)
		return 0;
	err = blocks_relation(f, loop, &r);
	if (err == -ENODATA)
		return 0;
	return err ?: r.calls == r.all;
}

/* A cache whose bound's value changed: the value on each side, and its calls on both. */
static int cmp_changed(const void *a, const void *b)
{
	const struct db_changed *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->ctx, y->ctx);
}

/* The caches of both sides (each sorted by name) whose bound changed, the most calls first. */
static size_t changed_ctx(const struct ctx_bound *b, size_t nb, const struct ctx_bound *h,
			  size_t nh, struct db_changed *out)
{
	size_t i = 0, k = 0, n = 0;
	int c;

	while (i < nb && k < nh) {
		c = strcmp(b[i].ctx, h[k].ctx);
		if (!c && b[i].bound != h[k].bound)
			out[n++] = (struct db_changed){b[i].ctx, b[i].bound, h[k].bound,
						       b[i].all + h[k].all};
		i += c <= 0;
		k += c >= 0;
	}
	if (n)
		qsort(out, n, sizeof(*out), cmp_changed);
	return n;
}

/* "its bound X went A -> B (cache), ...", the first CAUSE_CTX caches of c. */
static void cause_text(char *buf, size_t len, const char *xb, const char *xh,
		       const struct db_changed *c, size_t n)
{
	bool same = !strcmp(xb, xh);
	size_t i, at;

	if (same)
		at = snprintf(buf, len, "its bound %s went", xb);
	else
		at = snprintf(buf, len, "its bound went");
	for (i = 0; i < n && i < CAUSE_CTX && at < len; i++) {
		if (same)
			at += snprintf(buf + at, len - at, "%s %lld -> %lld", i ? "," : "",
				       c[i].base, c[i].hard);
		else
			at += snprintf(buf + at, len - at, "%s %s = %lld -> %s = %lld",
				       i ? "," : "", xb, c[i].base, xh, c[i].hard);
		if (*c[i].ctx && at < len)
			at += snprintf(buf + at, len - at, " (%s)", c[i].ctx);
	}
	if (n > CAUSE_CTX && at < len)
		snprintf(buf + at, len - at, ", ...");
}

/* The cause of a loop matched on both sides whose trips follow its bound on both. */
static int cause_of(struct db_loop *d, const struct db_func *fn)
{
	const struct blocks_func *b = &fn->s[DM_BASE].f, *h = &fn->s[DM_HARD].f;
	struct ctx_bound *vb = NULL, *vh = NULL;
	struct db_changed *c = NULL;
	size_t nb, nh, n;
	int err;

	if (d->loop[DM_BASE] < 0 || d->loop[DM_HARD] < 0)
		return 0;
	err = follows(b, d->loop[DM_BASE]);
	if (err > 0)
		err = follows(h, d->loop[DM_HARD]);
	if (err <= 0)
		return err;
	err = -ENOMEM;
	vb = bounds_by_ctx(b, d->loop[DM_BASE], &nb);
	vh = vb ? bounds_by_ctx(h, d->loop[DM_HARD], &nh) : NULL;
	c = vh ? calloc(nb + 1, sizeof(*c)) : NULL;
	if (c) {
		n = changed_ctx(vb, nb, vh, nh, c);
		if (n)
			cause_text(d->cause, sizeof(d->cause),
				   b->loops[d->loop[DM_BASE]].bound.expr,
				   h->loops[d->loop[DM_HARD]].bound.expr, c, n);
		d->changed = n ? c : NULL;
		d->nchanged = n;
		c = n ? NULL : c;
		err = 0;
	}
	free(c);
	free(vh);
	free(vb);
	return err;
}

/* The loops of both sides, paired by their head's line (unknown lines never pair). */
static int merge_loops(struct db_func *fn, const struct at_line *b, size_t nb,
		       const struct at_line *h, size_t nh)
{
	size_t i = 0, k = 0;
	struct db_loop *d;
	int c;

	fn->loop = calloc(nb + nh + 1, sizeof(*fn->loop));
	if (!fn->loop)
		return -ENOMEM;
	while (i < nb || k < nh) {
		if (i == nb || k == nh || !b[i].file || !h[k].file)
			c = i == nb || (k < nh && !b[i].file) ? 1 : -1;
		else
			c = db_cmp_line(b[i].file, b[i].line, h[k].file, h[k].line);
		d = &fn->loop[fn->nloop++];
		d->loop[DM_BASE] = c <= 0 ? (int)b[i].idx : -1;
		d->loop[DM_HARD] = c >= 0 ? (int)h[k].idx : -1;
		d->file = c <= 0 ? b[i].file : h[k].file;
		d->line = c <= 0 ? b[i].line : h[k].line;
		i += c <= 0;
		k += c >= 0;
	}
	return 0;
}

static int cmp_loop_change(const void *a, const void *b)
{
	const struct db_loop *x = a, *y = b;
	double cx = db_change(&x->trips), cy = db_change(&y->trips);

	if (cx != cy)
		return cx < cy ? 1 : -1;
	if (!x->file || !y->file)
		return !x->file - !y->file;
	return db_cmp_line(x->file, x->line, y->file, y->line);
}

int db_match_loops(struct db_func *fn)
{
	struct at_line *b = loop_lines(&fn->s[DM_BASE]), *h = loop_lines(&fn->s[DM_HARD]);
	const void *arg[2];
	bool seen[2];
	struct db_loop *d;
	size_t i;
	int err = b && h ? merge_loops(fn, b, fn->s[DM_BASE].f.nloops, h, fn->s[DM_HARD].f.nloops)
			 : -ENOMEM;

	for (i = 0; i < fn->nloop && !err; i++) {
		d = &fn->loop[i];
		arg[DM_BASE] = &d->loop[DM_BASE];
		arg[DM_HARD] = &d->loop[DM_HARD];
		seen[DM_BASE] = d->loop[DM_BASE] >= 0;
		seen[DM_HARD] = d->loop[DM_HARD] >= 0;
		err = db_measure_of(fn, loop_eval, arg, seen, &d->trips) ?: cause_of(d, fn);
	}
	if (!err && fn->nloop)
		qsort(fn->loop, fn->nloop, sizeof(*fn->loop), cmp_loop_change);
	free(h);
	free(b);
	return err;
}

/* A side's conditional branch: the line of its branch instruction, its two edges. */
struct br_edge {
	const char *file;
	int line;
	int taken, not_taken;
};

static int cmp_br_edge(const void *a, const void *b)
{
	const struct br_edge *x = a, *y = b;

	return db_cmp_line(x->file, x->line, y->file, y->line);
}

/* A side's conditional branches of decoded blocks, sorted by line. */
static struct br_edge *branch_edges(const struct db_side *s, size_t *n)
{
	struct br_edge *v = calloc(s->f.nb ?: 1, sizeof(*v));
	const struct blocks_src_insn *last;
	int t, nt;
	size_t i;

	if (!v)
		return NULL;
	for (i = 0, *n = 0; i < s->f.nb; i++) {
		if (!blocks_branch(&s->f, i, &t, &nt) || t < 0 || nt < 0 || !s->src.ninsn[i])
			continue;
		last = &s->src.insn[i][s->src.ninsn[i] - 1];
		v[(*n)++] = (struct br_edge){last->file, last->line, t, nt};
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_br_edge);
	return v;
}

/* The branches of a side at one line. */
struct br_arg {
	const struct br_edge *e;
	size_t n;
};

static bool branch_eval(const struct db_side *s, int run, const void *arg, struct stats_run *v,
			double *events)
{
	const struct br_arg *a = arg;
	long long t, nt;
	size_t i;

	*v = (struct stats_run){0, 0};
	for (i = 0; i < a->n; i++) {
		t = db_edge_count(s, run, a->e[i].taken);
		nt = db_edge_count(s, run, a->e[i].not_taken);
		if (t < 0 || nt < 0)
			return false;
		v->num += t;
		v->den += t + nt;
	}
	*events = v->num;
	return true;
}

/* Taken more often than not on one side, less on the other. */
static bool flipped(const struct db_measure *m)
{
	const struct stats_result *r = &m->r;

	return m->known[DM_BASE] && m->known[DM_HARD] && r->base_den > 0 && r->hard_den > 0 &&
	       (r->base - 0.5) * (r->hard - 0.5) < 0;
}

/* The end of the run of branches at v[i]'s line. */
static size_t line_end(const struct br_edge *v, size_t n, size_t i)
{
	size_t k = i;

	while (k < n && !cmp_br_edge(&v[i], &v[k]))
		k++;
	return k;
}

static int cmp_br_change(const void *a, const void *b)
{
	const struct db_branch *x = a, *y = b;
	double cx = db_change(&x->taken), cy = db_change(&y->taken);

	if (cx != cy)
		return cx < cy ? 1 : -1;
	return db_cmp_line(x->file, x->line, y->file, y->line);
}

/* Both sides' branches at the same lines, those whose direction flipped kept. */
static int flips(struct db_func *fn, const struct br_edge *b, size_t nb, const struct br_edge *h,
		 size_t nh)
{
	static const bool both[2] = {true, true};
	struct br_arg a[2];
	const void *arg[2] = {&a[DM_BASE], &a[DM_HARD]};
	size_t i = 0, k = 0, ie, ke;
	struct db_branch *d;
	int c, err = 0;

	while (i < nb && k < nh && !err) {
		c = cmp_br_edge(&b[i], &h[k]);
		ie = c <= 0 ? line_end(b, nb, i) : i;
		ke = c >= 0 ? line_end(h, nh, k) : k;
		if (!c) {
			a[DM_BASE] = (struct br_arg){&b[i], ie - i};
			a[DM_HARD] = (struct br_arg){&h[k], ke - k};
			d = &fn->br[fn->nbr];
			*d = (struct db_branch){b[i].file, b[i].line};
			err = db_measure_of(fn, branch_eval, arg, both, &d->taken);
			fn->nbr += flipped(&d->taken);
		}
		i = ie;
		k = ke;
	}
	return err;
}

int db_match_branches(struct db_func *fn)
{
	size_t nb = 0, nh = 0;
	struct br_edge *b = branch_edges(&fn->s[DM_BASE], &nb);
	struct br_edge *h = branch_edges(&fn->s[DM_HARD], &nh);
	int err = -ENOMEM;

	fn->br = b && h ? calloc(nb + 1, sizeof(*fn->br)) : NULL;
	if (fn->br)
		err = flips(fn, b, nb, h, nh);
	if (!err && fn->nbr)
		qsort(fn->br, fn->nbr, sizeof(*fn->br), cmp_br_change);
	free(h);
	free(b);
	return err;
}
