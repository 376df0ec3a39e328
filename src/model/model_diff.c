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

/* by the change in misses, then in instructions, then by name: a stable order */
static int by_change(const void *a, const void *b, void *cache)
{
	const struct model_pair *x = a, *y = b;
	long long dx = labs_ll(x->d_misses), dy = labs_ll(y->d_misses);

	if (*(bool *)cache && dx != dy)
		return dx > dy ? -1 : 1;
	dx = labs_ll(x->d_insns);
	dy = labs_ll(y->d_insns);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name) ?: strcmp(x->module, y->module);
}

static void pair_set(struct model_pair *p)
{
	const struct model_func *b = p->base ?: &none, *h = p->hard ?: &none;

	p->name = (p->base ?: p->hard)->name;
	p->module = (p->base ?: p->hard)->module;
	p->d_insns = (long long)h->insns - (long long)b->insns;
	p->d_misses = model_func_misses(h) - model_func_misses(b);
}

/* One table's rows of the two sides: functions, or inline instances. */
struct side_rows {
	const struct model_func *f;
	size_t n;
};

/* Every row of either side once, matched by name and module, by the change. */
static int pairs_make(struct side_rows b, struct side_rows h, bool cache, struct model_pair **out,
		      size_t *n)
{
	struct model_pair *p = calloc(b.n + h.n + 1, sizeof(*p));
	size_t i, m = 0;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < b.n; i++) {
		p[m].base = &b.f[i];
		p[m].hard = model_counts_find(h.f, h.n, b.f[i].name, b.f[i].module);
		pair_set(&p[m++]);
	}
	for (i = 0; i < h.n; i++) {
		if (model_counts_find(b.f, b.n, h.f[i].name, h.f[i].module))
			continue;
		p[m].hard = &h.f[i];
		pair_set(&p[m++]);
	}
	qsort_r(p, m, sizeof(*p), by_change, &cache);
	*out = p;
	*n = m;
	return 0;
}

int model_diff_pairs(const struct model_counts *b, const struct model_counts *h, bool cache,
		     struct model_pair **out, size_t *n)
{
	return pairs_make((struct side_rows){b->funcs, b->nfuncs},
			  (struct side_rows){h->funcs, h->nfuncs}, cache, out, n);
}

static void pair_text(FILE *f, const struct model_pair *p, bool cache)
{
	const struct model_func *b = p->base ?: &none, *h = p->hard ?: &none;
	double pct = b->insns ? 100.0 * p->d_insns / b->insns : 0;

	fprintf(f, "%14llu %14llu %+13lld ", (unsigned long long)b->insns,
		(unsigned long long)h->insns, p->d_insns);
	if (p->base && p->hard)
		fprintf(f, "%+8.1f%%", pct);
	else
		fprintf(f, "%9s", p->base ? "base" : "hardened");
	if (cache)
		fprintf(f, " %12lld %12lld %+12lld", model_func_misses(b), model_func_misses(h),
			p->d_misses);
	esc_printf(f, "  %s  %s\n", p->name, p->module);
}

static void table_text(FILE *f, const char *title, const char *what, const struct model_pair *p,
		       size_t n, size_t top, bool cache)
{
	size_t i;

	fprintf(f, "\n%s by the change in %s (%zu of %zu):\n", title,
		cache ? "misses (I1 + D1 + LL)" : "instructions", n < top ? n : top, n);
	fprintf(f, "%14s %14s %13s %9s", "base insns", "hard insns", "delta", "change");
	if (cache)
		fprintf(f, " %12s %12s %12s", "base misses", "hard misses", "delta");
	fprintf(f, "  %s\n", what);
	for (i = 0; i < n && i < top; i++)
		pair_text(f, &p[i], cache);
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
	size_t i;

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
	int err = pairs_make((struct side_rows){b->funcs, b->nfuncs},
			     (struct side_rows){h->funcs, h->nfuncs}, true, &p, &n);

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

/*
 * The geometries side by side (s, NULL: one each), then the function and,
 * with both kernels' DWARF, inline tables, as text or JSON.
 */
static int show(const struct model_counts *b, const struct model_counts *h,
		const struct model_sweep *s, const struct model_view_opts *o)
{
	bool cache = model_sweep_same(b, h), inl = b->have_inlines && h->have_inlines;
	struct model_pair *p = NULL, *q = NULL;
	size_t n = 0, m = 0;
	struct json j;
	int err = pairs_make((struct side_rows){b->funcs, b->nfuncs},
			     (struct side_rows){h->funcs, h->nfuncs}, cache, &p, &n);

	if (!err && inl)
		err = pairs_make((struct side_rows){b->inlines, b->ninlines},
				 (struct side_rows){h->inlines, h->ninlines}, cache, &q, &m);
	if (!err && o->json) {
		json_begin(&j, stdout);
		json_open(&j, NULL, '{');
		json_open(&j, "base", '{');
		model_header_json(&j, b);
		json_close(&j, '}');
		json_open(&j, "hardened", '{');
		model_header_json(&j, h);
		json_close(&j, '}');
		if (s)
			err = model_sweep_diff_json(&j, s, o->top, funcs_json);
		table_json(&j, "functions", b, h, p, n, o->top, cache);
		if (inl)
			table_json(&j, "inlines", b, h, q, m, o->top, cache);
		json_close(&j, '}');
		json_end(&j);
	} else if (!err) {
		fputs("# base\n", stdout);
		model_header_text(stdout, b);
		fputs("# hardened\n", stdout);
		model_header_text(stdout, h);
		if (s)
			model_sweep_diff_text(stdout, s);
		if (b->cache && h->cache && !cache)
			fprintf(stdout,
				"# the base's geometry %u is not in the hardened recording:"
				" its functions by instructions\n",
				b->geom);
		table_text(stdout, "Functions", "function  module", p, n, o->top, cache);
		if (inl)
			table_text(stdout, "Inlined kernel functions", "function  inlined in", q, m,
				   o->top, cache);
	}
	free(q);
	free(p);
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
