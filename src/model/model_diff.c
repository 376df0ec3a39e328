// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff --model: two recordings' machine-model counts matched by function
 * name and module (two kernel builds put a function at different
 * addresses), like cg_diff; sorted by the change in misses (all caches
 * together) when both simulated the same caches, else by the change in
 * instructions.  Counts are totals over each recording's windows: compare
 * recordings of as many runs.
 */
#include "model/model_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "model/model_sweep.h"
#include "model/rows.h"
#include "util/esc.h"
#include "util/json.h"

static const struct model_func none;

long long model_func_misses(const struct model_func *f)
{
	return f->v[MODEL_I1_MISSES] + f->v[MODEL_D1_READ_MISSES] + f->v[MODEL_D1_WRITE_MISSES] +
	       f->v[MODEL_LL_MISSES];
}

static long long labs_ll(long long v)
{
	return v < 0 ? -v : v;
}

/* How pairs are sorted: by the change in est_cycles, in misses, then in instructions. */
struct order {
	bool est, cache;
};

/* by the change in misses, then in instructions, then by name: a stable order */
static int by_change(const void *a, const void *b, void *ctx)
{
	const struct model_pair *x = a, *y = b;
	const struct order *o = ctx;
	long long dx = labs_ll(x->d_misses), dy = labs_ll(y->d_misses);
	double ex = fabs(x->d_est), ey = fabs(y->d_est);

	if (o->est && ex != ey && !isnan(ex) && !isnan(ey))
		return ex > ey ? -1 : 1;
	if (o->cache && dx != dy)
		return dx > dy ? -1 : 1;
	dx = labs_ll(x->d_insns);
	dy = labs_ll(y->d_insns);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name) ?: strcmp(x->module, y->module);
}

/* One table's rows of the two sides: functions, or inline instances; c: their counts. */
struct side_rows {
	const struct model_func *f;
	size_t n;
	const struct model_counts *c;
};

static void pair_set(struct model_pair *p, const struct side_rows *sb, const struct side_rows *sh)
{
	const struct model_func *b = p->base ?: &none, *h = p->hard ?: &none;

	p->name = (p->base ?: p->hard)->name;
	p->module = (p->base ?: p->hard)->module;
	p->d_insns = (long long)h->insns - (long long)b->insns;
	p->d_misses = model_func_misses(h) - model_func_misses(b);
	p->d_est = model_func_est(sh->c, h) - model_func_est(sb->c, b);
}

/* Every row of either side once, matched by name and module, by the change. */
static int pairs_make(struct side_rows b, struct side_rows h, struct order ord,
		      struct model_pair **out, size_t *n)
{
	struct model_pair *p = calloc(b.n + h.n + 1, sizeof(*p));
	size_t i, m = 0;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < b.n; i++) {
		p[m].base = &b.f[i];
		p[m].hard = model_counts_find(h.f, h.n, b.f[i].name, b.f[i].module);
		pair_set(&p[m++], &b, &h);
	}
	for (i = 0; i < h.n; i++) {
		if (model_counts_find(b.f, b.n, h.f[i].name, h.f[i].module))
			continue;
		p[m].hard = &h.f[i];
		pair_set(&p[m++], &b, &h);
	}
	qsort_r(p, m, sizeof(*p), by_change, &ord);
	*out = p;
	*n = m;
	return 0;
}

int model_diff_pairs(const struct model_counts *b, const struct model_counts *h, bool cache,
		     struct model_pair **out, size_t *n)
{
	return pairs_make((struct side_rows){b->funcs, b->nfuncs, b},
			  (struct side_rows){h->funcs, h->nfuncs, h}, (struct order){false, cache},
			  out, n);
}

/* What the two sides both counted, for the columns of their changes. */
struct both {
	bool cache, est, tlb, events;
	/* est_cycles are the timing model's cycles (both sides': model_counts_same_kind()) */
	bool timing;
};

static struct both both_of(const struct model_counts *b, const struct model_counts *h, bool cache)
{
	/* TLB misses compare between TLBs of one geometry */
	bool tlb = b->tlb && h->tlb &&
		   !memcmp(b->geoms[b->geom].tlb, h->geoms[h->geom].tlb, sizeof(b->geoms[0].tlb));

	return (struct both){cache, model_has_est(b) && model_has_est(h), tlb,
			     b->events && h->events, b->timing};
}

static bool both_known(const struct both *w, enum model_field k)
{
	return k == MF_ITLB_MISSES || k == MF_DTLB_MISSES ? w->tlb : w->events;
}

/* field k's change, hardened minus base */
static long long field_delta(const struct model_pair *p, enum model_field k)
{
	return (long long)model_field(p->hard ?: &none, k) -
	       (long long)model_field(p->base ?: &none, k);
}

static const char *const delta_heads[MODEL_FIELDS] = {
	"d_itlb",     "d_dtlb",	   "d_cr3_wr", "d_flushes", "d_serial",
	"d_indirect", "d_returns", "d_retpol", "d_rthunks",
};

static void pair_text(FILE *f, const struct model_pair *p, const struct both *w,
		      const struct model_counts *cb, const struct model_counts *ch)
{
	const struct model_func *b = p->base ?: &none, *h = p->hard ?: &none;
	double pct = b->insns ? 100.0 * p->d_insns / b->insns : 0;
	bool cache = w->cache;
	int k;

	fprintf(f, "%14llu %14llu %+13lld ", (unsigned long long)b->insns,
		(unsigned long long)h->insns, p->d_insns);
	if (p->base && p->hard)
		fprintf(f, "%+8.1f%%", pct);
	else
		fprintf(f, "%9s", p->base ? "base" : "hardened");
	if (cache)
		fprintf(f, " %12lld %12lld %+12lld", model_func_misses(b), model_func_misses(h),
			p->d_misses);
	if (w->est)
		fprintf(f, " %14.0f %14.0f %+14.0f", round(model_func_est(cb, b)),
			round(model_func_est(ch, h)), round(p->d_est));
	for (k = 0; k < MODEL_FIELDS; k++)
		if (both_known(w, k))
			fprintf(f, " %+11lld", field_delta(p, k));
	esc_printf(f, "  %s  %s\n", p->name, p->module);
}

/* The table's title: what it is sorted by. */
static const char *sorted_by(const struct both *w, bool by_est)
{
	if (by_est && w->est)
		return w->timing ? "est_cycles (the timing model's cycles)"
				 : "est_cycles (an estimate)";
	return w->cache ? "misses (I1 + D1 + LL)" : "instructions";
}

static void table_text(FILE *f, const char *title, const char *what, const struct model_pair *p,
		       size_t n, const struct model_view_opts *o, const struct both *w,
		       const struct model_counts *cb, const struct model_counts *ch)
{
	size_t i, top = o->top;
	int k;

	if (!strcmp(title, "Totals"))
		fprintf(f, "\nTotals:\n");
	else
		fprintf(f, "\n%s by the change in %s (%zu of %zu):\n", title,
			sorted_by(w, o->by_est), n < top ? n : top, n);
	fprintf(f, "%14s %14s %13s %9s", "base insns", "hard insns", "delta", "change");
	if (w->cache)
		fprintf(f, " %12s %12s %12s", "base misses", "hard misses", "delta");
	if (w->est)
		fprintf(f, " %14s %14s %14s", "base est_cyc", "hard est_cyc", "delta");
	for (k = 0; k < MODEL_FIELDS; k++)
		if (both_known(w, k))
			fprintf(f, " %11s", delta_heads[k]);
	fprintf(f, "  %s\n", what);
	for (i = 0; i < n && i < top; i++)
		pair_text(f, &p[i], w, cb, ch);
}

static void side_json(struct json *j, const char *key, const struct model_counts *c,
		      const struct model_func *f)
{
	if (!f) {
		json_str(j, key, NULL);
		return;
	}
	json_open(j, key, '{');
	model_func_json(j, c, f);
	json_close(j, '}');
}

static void table_json(struct json *j, const char *key, const struct model_counts *b,
		       const struct model_counts *h, const struct model_pair *p, size_t n,
		       size_t top, bool cache)
{
	struct both w = both_of(b, h, cache);
	size_t i;
	int k;

	json_open(j, key, '[');
	for (i = 0; i < n && i < top; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", p[i].name);
		json_str(j, "module", p[i].module);
		json_str(j, "only",
			 p[i].base && p[i].hard ? NULL
			 : p[i].base		? "base"
						: "hardened");
		json_i64(j, "delta_insns", p[i].d_insns);
		if (cache)
			json_i64(j, "delta_misses", p[i].d_misses);
		json_double(j, "delta_est_cycles", w.est ? round(p[i].d_est) : NAN);
		for (k = 0; k < MODEL_FIELDS; k++) {
			char dk[40];

			snprintf(dk, sizeof(dk), "delta_%s", model_field_names[k]);
			if (both_known(&w, k))
				json_i64(j, dk, field_delta(&p[i], k));
			else
				json_str(j, dk, NULL);
		}
		side_json(j, "base", b, p[i].base);
		side_json(j, "hardened", h, p[i].hard);
		json_close(j, '}');
	}
	json_close(j, ']');
}

/* The top rows of b's and h's functions (one geometry) as JSON, by the change in misses. */
static int funcs_json(struct json *j, const char *key, const struct model_counts *b,
		      const struct model_counts *h, size_t top)
{
	struct model_pair *p = NULL;
	size_t n = 0;
	int err = pairs_make((struct side_rows){b->funcs, b->nfuncs, b},
			     (struct side_rows){h->funcs, h->nfuncs, h},
			     (struct order){false, true}, &p, &n);

	if (!err)
		table_json(j, key, b, h, p, n, top, true);
	free(p);
	return err;
}

static int read_side(struct datafile *df, const char *side, unsigned int geom,
		     struct model_counts *c, char *why, size_t len)
{
	char what[400];
	int err = model_counts_read(df, geom, c, what, sizeof(what));

	if (err && what[0])
		snprintf(why, len, "the %s recording: %s", side, what);
	return err;
}

/* The kernel's and the user's totals of both sides, as pairs. */
static void totals_pairs(const struct model_counts *b, const struct model_counts *h,
			 struct model_pair p[2])
{
	const struct model_func *side[2][2] = {{&b->kernel, &h->kernel}, {&b->user, &h->user}};
	struct side_rows sb = {NULL, 0, b}, sh = {NULL, 0, h};
	int i;

	for (i = 0; i < 2; i++) {
		p[i] = (struct model_pair){.base = side[i][0], .hard = side[i][1]};
		pair_set(&p[i], &sb, &sh);
		p[i].name = "total";
		p[i].module = i ? "user" : "kernel";
	}
}

static void totals_text(FILE *f, const struct model_counts *b, const struct model_counts *h,
			const struct both *w)
{
	struct model_view_opts o = {.top = 2};
	struct model_pair p[2];

	totals_pairs(b, h, p);
	table_text(f, "Totals", "kernel or user", p, 2, &o, w, b, h);
}

static void totals_json(struct json *j, const struct model_counts *b, const struct model_counts *h,
			bool cache)
{
	struct model_pair p[2];

	totals_pairs(b, h, p);
	table_json(j, "totals", b, h, p, 2, 2, cache);
}

/* What one diff shows: the two sides, their pairs of functions and inline instances. */
struct shown {
	const struct model_counts *b, *h;
	const struct model_sweep *s; /* NULL: one geometry each */
	const struct model_view_opts *o;
	struct both w;
	struct model_pair *p, *q;
	size_t n, m;
	bool inl; /* both kernels' DWARF: q holds the inline instances */
};

static int show_json(const struct shown *v)
{
	const struct model_counts *b = v->b, *h = v->h;
	struct json j;
	int err = 0;

	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	json_open(&j, "base", '{');
	model_header_json(&j, b);
	model_costs_json(&j, b);
	json_close(&j, '}');
	json_open(&j, "hardened", '{');
	model_header_json(&j, h);
	model_costs_json(&j, h);
	json_close(&j, '}');
	totals_json(&j, b, h, v->w.cache);
	if (v->s)
		err = model_sweep_diff_json(&j, v->s, v->o->top, funcs_json);
	table_json(&j, "functions", b, h, v->p, v->n, v->o->top, v->w.cache);
	if (v->inl)
		table_json(&j, "inlines", b, h, v->q, v->m, v->o->top, v->w.cache);
	json_close(&j, '}');
	json_end(&j);
	return err;
}

static void show_text(const struct shown *v)
{
	const struct model_counts *b = v->b, *h = v->h;

	fputs("# base\n", stdout);
	model_header_text(stdout, b);
	fputs("# hardened\n", stdout);
	model_header_text(stdout, h);
	if (v->s)
		model_sweep_diff_text(stdout, v->s);
	if (b->cache && h->cache && !v->w.cache)
		fprintf(stdout,
			"# the base's geometry %u is not in the hardened recording:"
			" its functions by instructions\n",
			b->geom);
	if (v->w.est && b->events != h->events)
		fprintf(stdout,
			"# the %s recording counted no TLB misses or events (a table of"
			" format 1): its est_cycles lack their terms\n",
			b->events ? "hardened" : "base");
	totals_text(stdout, b, h, &v->w);
	table_text(stdout, "Functions", "function  module", v->p, v->n, v->o, &v->w, b, h);
	if (v->inl)
		table_text(stdout, "Inlined kernel functions", "function  inlined in", v->q, v->m,
			   v->o, &v->w, b, h);
}

/*
 * The geometries side by side (s, NULL: one each), then the totals, the
 * function and, with both kernels' DWARF, inline tables, as text or JSON.
 */
static int show(const struct model_counts *b, const struct model_counts *h,
		const struct model_sweep *s, const struct model_view_opts *o)
{
	bool cache = model_sweep_same(b, h);
	struct shown v = {b, h, s, o, both_of(b, h, cache)};
	struct order ord = {o->by_est && v.w.est, cache};
	int err = pairs_make((struct side_rows){b->funcs, b->nfuncs, b},
			     (struct side_rows){h->funcs, h->nfuncs, h}, ord, &v.p, &v.n);

	v.inl = b->have_inlines && h->have_inlines;
	if (!err && v.inl)
		err = pairs_make((struct side_rows){b->inlines, b->ninlines, b},
				 (struct side_rows){h->inlines, h->ninlines, h}, ord, &v.q, &v.m);
	if (!err && o->json)
		err = show_json(&v);
	else if (!err)
		show_text(&v);
	free(v.q);
	free(v.p);
	return err;
}

int model_diff(struct datafile *base, struct kernel_dwarf *kb, struct datafile *hard,
	       struct kernel_dwarf *kh, const struct model_view_opts *o, char *why, size_t len)
{
	struct model_counts b, h = {0};
	struct model_sweep *s = NULL;
	unsigned int hg = 0;
	int err = read_side(base, "base", o->geom, &b, why, len);

	err = err ?: model_sweep_match(hard, &b, &hg);
	err = err ?: read_side(hard, "hardened", hg, &h, why, len);
	err = err ?: model_counts_same_kind(&b, &h, why, len);
	/* without the base's table no est_cycles is compared: the hardened's not looked for */
	err = err ?: model_counts_costs(base, o->costs, &b);
	if (!err && b.costs)
		err = model_counts_costs(hard, o->costs, &h);
	err = err ?: model_counts_inlines(base, kb, &b) ?: model_counts_inlines(hard, kh, &h);
	/* the geometries side by side: with several on a side, or in JSON with any */
	if (!err && ((b.cache && b.ngeom > 1) || (h.cache && h.ngeom > 1) ||
		     (o->json && (b.cache || h.cache))))
		err = model_sweep_read(base, hard, &s, why, len);
	err = err ?: show(&b, &h, s, o);
	model_sweep_free(s);
	model_counts_free(&h);
	model_counts_free(&b);
	return err;
}
