// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --blocks' per-call distributions (report_blocks_view.h): the
 * instructions per call, and each loop with its trips per call per slab
 * cache and, where record --blocks found one, its bound and how the trips
 * follow it.
 */
#include "report/report_blocks_view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/blocks_read.h"
#include "util/esc.h"
#include "util/json.h"

/* distinct values a distribution's text line shows; JSON has them all */
#define SHOWN_VALUES 8

/* A per-call distribution: its calls, mean and percentiles. */
struct dist {
	long long calls, p50, p90, max;
	double mean;
};

static int cmp_value(const void *a, const void *b)
{
	const struct blocks_value *x = *(const struct blocks_value *const *)a;
	const struct blocks_value *y = *(const struct blocks_value *const *)b;

	return (x->value > y->value) - (x->value < y->value);
}

/* The distribution of v[n], sorted by value. */
static void dist_of(const struct blocks_value *const *v, size_t n, struct dist *d)
{
	double sum = 0, cum = 0;
	size_t i;

	*d = (struct dist){.p50 = -1, .p90 = -1};
	for (i = 0; i < n; i++) {
		d->calls += v[i]->count;
		sum += (double)v[i]->value * v[i]->count;
	}
	for (i = 0; i < n && d->calls; i++) {
		cum += v[i]->count;
		if (d->p50 < 0 && cum * 2 >= d->calls)
			d->p50 = v[i]->value;
		if (d->p90 < 0 && cum * 10 >= 9.0 * d->calls)
			d->p90 = v[i]->value;
		if (v[i]->count)
			d->max = v[i]->value;
	}
	d->mean = d->calls ? sum / d->calls : 0;
}

/* The distribution as "N calls, mean M, p50 A, p90 B, max C: v xn, ..." or a JSON object. */
static void print_dist(struct view *v, const char *key, const char *ctx,
		       const struct blocks_value *const *vals, size_t n)
{
	struct dist d;
	size_t i;

	dist_of(vals, n, &d);
	if (v->j) {
		json_open(v->j, key, '{');
		if (ctx)
			json_str(v->j, "ctx", ctx);
		json_u64(v->j, "calls", d.calls);
		json_double(v->j, "mean", d.mean);
		report_blocks_json_count(v->j, "p50", d.p50);
		report_blocks_json_count(v->j, "p90", d.p90);
		json_u64(v->j, "max", d.max);
		json_open(v->j, "values", '[');
		for (i = 0; i < n; i++) {
			json_open(v->j, NULL, '{');
			json_u64(v->j, "value", vals[i]->value);
			json_u64(v->j, "calls", vals[i]->count);
			json_close(v->j, '}');
		}
		json_close(v->j, ']');
		json_close(v->j, '}');
		return;
	}
	if (!d.calls) {
		fputs("no complete call\n", v->out);
		return;
	}
	fprintf(v->out, "%lld calls, mean %.2f, p50 %lld, p90 %lld, max %lld:", d.calls, d.mean,
		d.p50, d.p90, d.max);
	for (i = 0; i < n && i < SHOWN_VALUES; i++)
		fprintf(v->out, "%s %lld x%lld", i ? "," : "", vals[i]->value, vals[i]->count);
	if (n > SHOWN_VALUES)
		fprintf(v->out, ", ... (%zu values more)", n - SHOWN_VALUES);
	fputc('\n', v->out);
}

/* The values of what (trips of loop, or insns when loop < 0) into *out, sorted by value. */
static int values_of(const struct blocks_func *f, int loop, const char *ctx,
		     const struct blocks_value ***out, size_t *n)
{
	const struct blocks_value **p = calloc(f->nv ?: 1, sizeof(*p));
	size_t i;

	if (!p)
		return -ENOMEM;
	*n = 0;
	for (i = 0; i < f->nv; i++)
		if (f->v[i].trips == (loop >= 0) && f->v[i].loop == loop &&
		    (!ctx || !strcmp(ctx, f->v[i].ctx)))
			p[(*n)++] = &f->v[i];
	qsort(p, *n, sizeof(*p), cmp_value);
	*out = p;
	return 0;
}

/* Instructions per call, over all contexts. */
int report_blocks_insns_per_call(struct view *v)
{
	const struct blocks_value **p;
	size_t n;
	int err = values_of(v->f, -1, NULL, &p, &n);

	if (err)
		return err;
	if (!v->j)
		fputs("# instructions per call: ", v->out);
	if (n || v->j)
		print_dist(v, "insns_per_call", NULL, p, n);
	else
		fputs("not recorded\n", v->out);
	free(p);
	return 0;
}

/* Loop l's trips per call: one distribution per context (slab cache), in the file's order. */
static int print_trips(struct view *v, int l)
{
	const struct blocks_func *f = v->f;
	const struct blocks_value **p;
	const char *ctx = NULL;
	size_t i, n;
	int err = 0;

	if (v->j)
		json_open(v->j, "trips_per_call", '[');
	for (i = 0; i < f->nv && !err; i++) {
		if (!f->v[i].trips || f->v[i].loop != l || (ctx && !strcmp(ctx, f->v[i].ctx)))
			continue;
		ctx = f->v[i].ctx;
		err = values_of(f, l, ctx, &p, &n);
		if (err)
			break;
		if (!v->j)
			esc_printf(v->out, "    trips per call%s%s: ", *ctx ? ", " : "", ctx);
		print_dist(v, NULL, ctx, p, n);
		free(p);
	}
	if (v->j)
		json_close(v->j, ']');
	else if (!ctx)
		fputs("    trips per call: not recorded\n", v->out);
	return err;
}

static int print_loop(struct view *v, int l)
{
	const struct blocks_loop *lp = &v->f->loops[l];
	const char *file;
	char e[24], it[24], where[256] = "";
	int line, err;

	blocks_src_at(&v->src, v->f->b[lp->head].start, &file, &line);
	if (file)
		snprintf(where, sizeof(where), " at %s:%d", file, line);
	if (v->j) {
		json_open(v->j, NULL, '{');
		json_u64(v->j, "loop", l);
		json_u64(v->j, "head", lp->head);
		json_str(v->j, "file", file);
		json_u64(v->j, "line", line);
		report_blocks_json_count(v->j, "parent", lp->parent);
		json_u64(v->j, "depth", lp->depth);
		json_bool(v->j, "irreducible", lp->irreducible);
		report_blocks_json_count(v->j, "entries", lp->entries);
		report_blocks_json_count(v->j, "iterations", lp->iterations);
		if (lp->entries > 0 && lp->iterations >= 0)
			json_double(v->j, "trips_per_entry", (double)lp->iterations / lp->entries);
		else
			json_str(v->j, "trips_per_entry", NULL);
	} else {
		esc_printf(v->out,
			   "\nloop %d: head block %d%s, depth %d%s: entries %s, iterations %s", l,
			   lp->head, where, lp->depth, lp->irreducible ? ", irreducible" : "",
			   report_blocks_count_text(e, sizeof(e), lp->entries),
			   report_blocks_count_text(it, sizeof(it), lp->iterations));
		if (lp->entries > 0 && lp->iterations >= 0)
			fprintf(v->out, ", %.2f trips per entry",
				(double)lp->iterations / lp->entries);
		fputc('\n', v->out);
	}
	err = print_trips(v, l);
	if (!err && v->j)
		err = blocks_src_bound_json(v->j, "bound", &v->src, l);
	else if (!err)
		err = blocks_src_bound_text(v->out, &v->src, l, "    ", v->top);
	if (v->j)
		json_close(v->j, '}');
	return err;
}

int report_blocks_loops(struct view *v)
{
	size_t i;
	int err = 0;

	if (v->j)
		json_open(v->j, "loops", '[');
	for (i = 0; i < v->f->nloops && !err; i++)
		err = print_loop(v, i);
	if (v->j)
		json_close(v->j, ']');
	return err;
}
