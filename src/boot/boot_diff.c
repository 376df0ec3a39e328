// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff of two boot recordings (boot_diff.h).  An initcall or a function on one
 * side only is listed as such ("new": only the hardened kernel ran it,
 * "gone": only the base), its change the whole of its cost; those are what
 * a user looks for first when a hardened kernel boots slower.
 */
#include "boot/boot_diff.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_report.h"
#include "boot/load.h"
#include "data/datafile.h"
#include "diff/stats.h"
#include "model/model_report.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

/* One measure's change: base and hardened means (NAN: absent), the interval (NAN: none). */
struct change {
	double base, hard, delta, lo, hi;
};

enum status { ST_BOTH, ST_NEW, ST_GONE };
static const char *const status_names[] = {"both", "new", "gone"};

/* An initcall or a function of either side. */
struct row {
	const struct boot_series *s[2]; /* NULL: absent on that side */
	enum status st;
	struct change c;
	double miss[2];		       /* functions with cache: I1 + D1 + LL misses per boot */
	struct change x[BOOT_XFIELDS]; /* functions: the model's fields; NAN where unknown */
};

static bool has_ci(const struct change *c)
{
	return !isnan(c->lo);
}

static bool significant(const struct change *c)
{
	return has_ci(c) && (c->lo > 0 || c->hi < 0);
}

/* The change between b[0..nb) and h[0..nh); an interval with 2 values or more on each side. */
static struct change change_of(const double *b, size_t nb, const double *h, size_t nh)
{
	struct change c = {NAN, NAN, NAN, NAN, NAN};
	double lo, hi;

	if (nb)
		stats_mean_interval(b, nb, &c.base, &lo, &hi);
	if (nh)
		stats_mean_interval(h, nh, &c.hard, &lo, &hi);
	if (nb && nh)
		c.delta = c.hard - c.base;
	else if (nb || nh)
		c.delta = nb ? -c.base : c.hard;
	if (nb >= 2 && nh >= 2)
		stats_welch(b, nb, h, nh, &c.lo, &c.hi);
	return c;
}

/* A phase's change over the boots that measured it. */
static int phase_change(const struct boot_rec *b, int p, struct change *c)
{
	double *k[2] = {malloc(b[0].runs * sizeof(double)), malloc(b[1].runs * sizeof(double))};
	int err = k[0] && k[1] ? 0 : -ENOMEM;

	if (!err)
		*c = change_of(k[0], boot_known(b[0].phase[p], b[0].runs, k[0]), k[1],
			       boot_known(b[1].phase[p], b[1].runs, k[1]));
	free(k[1]);
	free(k[0]);
	return err;
}

static void row_set(struct row *r, const struct boot_rec *b, unsigned int g[2])
{
	int side;

	r->st = !r->s[0] ? ST_NEW : !r->s[1] ? ST_GONE : ST_BOTH;
	r->c = change_of(r->s[0] ? r->s[0]->v : NULL, r->s[0] ? b[0].runs : 0,
			 r->s[1] ? r->s[1]->v : NULL, r->s[1] ? b[1].runs : 0);
	for (side = 0; side < 2; side++)
		r->miss[side] =
			r->s[side] && r->s[side]->miss && g[side] < b[side].ngeom
				? (double)boot_misses(r->s[side]->miss[g[side]]) / b[side].runs
				: 0;
}

static int cmp_name(const struct boot_series *x, const struct boot_series *y)
{
	return strcmp(x->name, y->name) ?: strcmp(x->module, y->module);
}

/* The two sides' series (each sorted by name) merged into rows. */
static struct row *rows_make(const struct boot_rec *b, bool funcs, unsigned int g[2], size_t *n)
{
	const struct boot_series *s[2] = {funcs ? b[0].funcs : b[0].calls,
					  funcs ? b[1].funcs : b[1].calls};
	size_t ns[2] = {funcs ? b[0].nfuncs : b[0].ncalls, funcs ? b[1].nfuncs : b[1].ncalls};
	struct row *r = calloc(ns[0] + ns[1] + 1, sizeof(*r));
	size_t i = 0, k = 0, m = 0;
	int c;

	if (!r)
		return NULL;
	while (i < ns[0] || k < ns[1]) {
		c = i == ns[0] ? 1 : k == ns[1] ? -1 : cmp_name(&s[0][i], &s[1][k]);
		r[m].s[0] = c <= 0 ? &s[0][i++] : NULL;
		r[m].s[1] = c >= 0 ? &s[1][k++] : NULL;
		row_set(&r[m++], b, g);
	}
	*n = m;
	return r;
}

static const struct boot_series *any(const struct row *r)
{
	return r->s[0] ?: r->s[1];
}

static int by_delta(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double dx = fabs(x->c.delta), dy = fabs(y->c.delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return cmp_name(any(x), any(y));
}

static int by_misses(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double dx = fabs(x->miss[1] - x->miss[0]), dy = fabs(y->miss[1] - y->miss[0]);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return by_delta(a, b);
}

/* Everything one diff shows, made once for text and JSON. */
struct diff {
	const struct boot_rec *b;
	struct change phase[BOOT_PHASES];
	struct row *calls, *funcs;
	size_t ncalls, nfuncs;
	unsigned int g[2];	   /* the geometry of each side's misses */
	bool cache;		   /* both sides simulated a geometry of the same caches */
	bool xshow;		   /* either side counted TLBs and events: their fields shown */
	bool xknown[BOOT_XFIELDS]; /* the field is known on both sides */
	struct boot_model m[2];	   /* per boot, each side's counts (xshow) */
	struct change kernel[BOOT_XFIELDS]; /* the kernel's fields per boot */
	const struct model_costs *costs;    /* est_cycles' table; NULL: none */
	struct model_costs costs_buf;
};

/* The base's geometry o->geom in the hardened recording (the same caches); false: none. */
/* The hardened recording's geometry of the same caches as the base's geom into *k; false: none. */
static bool geom_match(const struct boot_rec *b, unsigned int geom, unsigned int *k)
{
	for (*k = 0; b[0].cache && b[1].cache && *k < b[1].ngeom; (*k)++)
		if (!memcmp(b[0].geoms[geom].cache, b[1].geoms[*k].cache,
			    sizeof(b[1].geoms[*k].cache)))
			return true;
	return false;
}

static bool match_geom(struct diff *d, unsigned int geom)
{
	d->g[0] = geom;
	return geom_match(d->b, geom, &d->g[1]);
}

/* Side s's field k of function i (nfuncs: the kernel) in run r. */
static double xvalue(const struct diff *d, int s, size_t i, size_t r, enum boot_xfield k)
{
	return boot_xvalue(&d->b[s], boot_model_at(&d->m[s], i, r), d->costs, k);
}

/* The change of field k between base function i[0] and hardened i[1] (SIZE_MAX: absent). */
static int xchange(const struct diff *d, const size_t i[2], enum boot_xfield k, struct change *c)
{
	double *v[2] = {calloc(d->b[0].runs, sizeof(double)), calloc(d->b[1].runs, sizeof(double))};
	size_t r;
	int s, err = v[0] && v[1] ? 0 : -ENOMEM;

	for (s = 0; !err && s < 2; s++)
		for (r = 0; i[s] != SIZE_MAX && r < d->b[s].runs; r++)
			v[s][r] = xvalue(d, s, i[s], r, k);
	if (!err && d->xknown[k])
		*c = change_of(i[0] != SIZE_MAX ? v[0] : NULL, i[0] != SIZE_MAX ? d->b[0].runs : 0,
			       i[1] != SIZE_MAX ? v[1] : NULL, i[1] != SIZE_MAX ? d->b[1].runs : 0);
	else
		*c = (struct change){NAN, NAN, NAN, NAN, NAN};
	free(v[1]);
	free(v[0]);
	return err;
}

/* Whether side s counted field k: TLBs for the TLB misses (of the geometry compared). */
static bool xside_known(const struct diff *d, int s, enum boot_xfield k)
{
	/* TLB misses compare in TLBs of the same sizes only */
	bool same_tlb = d->cache && !memcmp(d->b[0].geoms[d->g[0]].tlb, d->b[1].geoms[d->g[1]].tlb,
					    sizeof(d->b[0].geoms[0].tlb));

	return boot_xknown(&d->b[s], k, same_tlb, d->costs);
}

/* The cost table (--costs, else the base's guest CPU, else the hardened's), both sides' counts. */
static int xmake(struct diff *d, const struct model_view_opts *o, char *why, size_t len)
{
	const char *cpu =
		datafile_meta(d->b[0].df, "cpu.model") ?: datafile_meta(d->b[1].df, "cpu.model");
	size_t n, i[2], f;
	int s, k, err = 0;

	d->xshow = d->b[0].model && d->b[1].model && (d->b[0].events || d->b[1].events);
	if (!d->xshow)
		return 0;
	err = boot_costs(&d->b[0], o->costs, cpu, &d->costs_buf, &d->costs, why, len);
	if (err)
		return err;
	for (k = 0; k < BOOT_XFIELDS; k++)
		d->xknown[k] = xside_known(d, 0, k) && xside_known(d, 1, k);
	for (s = 0, err = 0; !err && s < 2; s++)
		err = boot_model_load(&d->b[s], d->cache ? d->g[s] : MODEL_GEOMS_MAX, &d->m[s]);
	i[0] = d->b[0].nfuncs;
	i[1] = d->b[1].nfuncs;
	for (k = 0; !err && k < BOOT_XFIELDS; k++)
		err = xchange(d, i, k, &d->kernel[k]);
	for (n = 0; !err && n < d->nfuncs; n++) {
		for (s = 0; s < 2; s++)
			i[s] = d->funcs[n].s[s] ? (size_t)(d->funcs[n].s[s] - d->b[s].funcs)
						: SIZE_MAX;
		for (f = 0; !err && f < BOOT_XFIELDS; f++)
			err = xchange(d, i, f, &d->funcs[n].x[f]);
	}
	return err;
}

static int diff_make(struct diff *d, const struct model_view_opts *o, char *why, size_t len)
{
	int p, err = boot_same_kind(d->b, why, len) ?: boot_check_geom(&d->b[0], o->geom, why, len);

	d->cache = !err && match_geom(d, o->geom);
	for (p = 0; !err && p < BOOT_PHASES; p++)
		err = phase_change(d->b, p, &d->phase[p]);
	if (err)
		return err;
	d->calls = rows_make(d->b, false, d->g, &d->ncalls);
	d->funcs = rows_make(d->b, true, d->g, &d->nfuncs);
	if (!d->calls || !d->funcs)
		return -ENOMEM;
	/* a side without the model counted no function: none is new or gone */
	if (!d->b[0].model || !d->b[1].model)
		d->nfuncs = 0;
	err = xmake(d, o, why, len);
	if (err)
		return err;
	qsort(d->calls, d->ncalls, sizeof(*d->calls), by_delta);
	qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), by_delta);
	return 0;
}

/* ---- JSON: interface D ---- */

static void change_json(struct json *j, const struct change *c, const char *unit)
{
	char k[32];

	snprintf(k, sizeof(k), "base%s", unit);
	json_double(j, k, c->base);
	snprintf(k, sizeof(k), "hardened%s", unit);
	json_double(j, k, c->hard);
	snprintf(k, sizeof(k), "delta%s", unit);
	json_double(j, k, c->delta);
	snprintf(k, sizeof(k), "ci_low%s", !strcmp(unit, "_insns") ? "" : unit);
	json_double(j, k, c->lo);
	snprintf(k, sizeof(k), "ci_high%s", !strcmp(unit, "_insns") ? "" : unit);
	json_double(j, k, c->hi);
	if (has_ci(c))
		json_bool(j, "significant", significant(c));
	else
		json_str(j, "significant", NULL);
}

/* A function's misses per boot in geometries g[2] of the sides, report --model --json's names. */
static void geom_json(struct json *j, const struct diff *d, const struct row *r,
		      const unsigned int g[2])
{
	const char *side[2] = {"base_", "hardened_"};
	char k[64];
	double v[2];
	int i, s;

	json_open(j, NULL, '{');
	json_u64(j, "geometry", g[0]);
	json_u64(j, "hardened_geometry", g[1]);
	for (i = 0; i < MODEL_STATS; i++) {
		for (s = 0; s < 2; s++) {
			v[s] = r->s[s] && r->s[s]->miss
				       ? (double)r->s[s]->miss[g[s]][i] / d->b[s].runs
				       : 0;
			snprintf(k, sizeof(k), "%s%s", side[s], model_stat_names[i]);
			json_double(j, k, r->s[s] ? v[s] : NAN);
		}
		snprintf(k, sizeof(k), "delta_%s", model_stat_names[i]);
		json_double(j, k, v[1] - v[0]);
	}
	json_close(j, '}');
}

/* Its misses in each base geometry the hardened recording simulated too. */
static void misses_json(struct json *j, const struct diff *d, const struct row *r)
{
	unsigned int g[2];

	json_open(j, "misses", '[');
	for (g[0] = 0; g[0] < d->b[0].ngeom; g[0]++)
		if (geom_match(d->b, g[0], &g[1]))
			geom_json(j, d, r, g);
	json_close(j, ']');
}

/* The model's fields' changes per boot: each null where a side did not count it. */
static void xfields_json(struct json *j, const char *key, const struct diff *d,
			 const struct change *x)
{
	int k;

	json_open(j, key, '{');
	for (k = 0; k < BOOT_XFIELDS; k++) {
		if (!d->xknown[k]) {
			json_str(j, boot_xfield_names[k], NULL);
			continue;
		}
		json_open(j, boot_xfield_names[k], '{');
		json_double(j, "base", x[k].base);
		json_double(j, "hardened", x[k].hard);
		json_double(j, "delta", x[k].delta);
		json_double(j, "ci_low", x[k].lo);
		json_double(j, "ci_high", x[k].hi);
		if (has_ci(&x[k]))
			json_bool(j, "significant", significant(&x[k]));
		else
			json_str(j, "significant", NULL);
		json_close(j, '}');
	}
	json_close(j, '}');
}

/* The cost table, the kernel's fields; null without TLBs and events on either side. */
static void kernel_json(struct json *j, const struct diff *d)
{
	struct model_counts c = {.costs = d->costs};

	if (!d->xshow) {
		json_str(j, "costs", NULL);
		json_str(j, "kernel", NULL);
		return;
	}
	model_costs_json(j, &c);
	xfields_json(j, "kernel", d, d->kernel);
}

static void rows_json(struct json *j, const struct diff *d, bool funcs)
{
	const struct row *r = funcs ? d->funcs : d->calls;
	size_t i, n = funcs ? d->nfuncs : d->ncalls;

	json_open(j, funcs ? "functions" : "initcalls", '[');
	for (i = 0; i < n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", any(&r[i])->name);
		if (funcs)
			json_str(j, "module", any(&r[i])->module);
		json_str(j, "status", status_names[r[i].st]);
		change_json(j, &r[i].c, funcs ? "_insns" : "_ns");
		if (funcs && d->b[0].cache && d->b[1].cache)
			misses_json(j, d, &r[i]);
		if (funcs && d->xshow)
			xfields_json(j, "model", d, r[i].x);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void diff_json(FILE *f, const struct diff *d)
{
	static const char *const sides[] = {"base", "hardened"};
	struct json j;
	int p, s;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	for (s = 0; s < 2; s++) {
		json_open(&j, sides[s], '{');
		boot_header_json(&j, &d->b[s]);
		json_close(&j, '}');
	}
	json_open(&j, "phases", '[');
	for (p = 0; p < BOOT_PHASES; p++) {
		json_open(&j, NULL, '{');
		json_str(&j, "name", boot_phase_names[p]);
		change_json(&j, &d->phase[p], "_ns");
		json_close(&j, '}');
	}
	json_close(&j, ']');
	kernel_json(&j, d);
	rows_json(&j, d, false);
	rows_json(&j, d, true);
	json_close(&j, '}');
	json_end(&j);
}

/* ---- text ---- */

/* A time or a count, with its sign when it is a change; "-" when unknown. */
static void num_text(char *buf, size_t len, double v, bool ns, bool sign)
{
	size_t o = sign && v > 0 && len > 1;

	if (o)
		buf[0] = '+';
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (ns)
		fmt_ns(buf + o, len - o, v);
	else
		snprintf(buf + o, len - o, "%.0f", v);
}

static void change_text(FILE *f, const struct change *c, bool ns)
{
	char b[32], h[32], d[32], lo[32], hi[32], ci[80] = "-";

	num_text(b, sizeof(b), c->base, ns, false);
	num_text(h, sizeof(h), c->hard, ns, false);
	num_text(d, sizeof(d), c->delta, ns, true);
	num_text(lo, sizeof(lo), c->lo, ns, true);
	num_text(hi, sizeof(hi), c->hi, ns, true);
	if (has_ci(c))
		snprintf(ci, sizeof(ci), "%s .. %s", lo, hi);
	fprintf(f, "%12s %12s %12s %28s %3s", b, h, d, ci,
		!has_ci(c)	 ? "-"
		: significant(c) ? "yes"
				 : "no");
}

static void heads_text(FILE *f, const char *what)
{
	fprintf(f, "%12s %12s %12s %28s %3s  %s\n", "base", "hardened", "delta", "95% interval",
		"sig", what);
}

static void phases_text(FILE *f, const struct diff *d)
{
	int p;

	fputs("\nPhases (mean per boot; 95% interval of the change: Welch's, over the boots):\n",
	      f);
	heads_text(f, "phase");
	for (p = 0; p < BOOT_PHASES; p++) {
		change_text(f, &d->phase[p], true);
		fprintf(f, "  %s\n", boot_phase_about[p]);
	}
}

/* Whether a row goes in the table of changes: on both sides and, with intervals, significant. */
static bool changed(const struct row *r)
{
	return r->st == ST_BOTH && (!has_ci(&r->c) || significant(&r->c)) && r->c.delta != 0;
}

static size_t count(const struct row *r, size_t n, bool (*keep)(const struct row *r))
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += keep(&r[i]);
	return k;
}

static void rows_text(FILE *f, const struct row *r, size_t n, size_t top, bool funcs)
{
	size_t i, k;

	for (i = k = 0; i < n && k < top; i++) {
		if (!changed(&r[i]))
			continue;
		change_text(f, &r[i].c, !funcs);
		esc_printf(f, "  %s%s%s\n", any(&r[i])->name, funcs ? "  " : "",
			   funcs ? any(&r[i])->module : "");
		k++;
	}
}

static void calls_text(FILE *f, const struct diff *d, size_t top)
{
	bool ci = d->b[0].runs > 1 && d->b[1].runs > 1;
	size_t n = count(d->calls, d->ncalls, changed);

	fprintf(f, "\nInitcalls %s, by |delta| (%zu of %zu):\n",
		ci ? "that changed significantly"
		   : "that changed (no interval: one boot on a side)",
		n < top ? n : top, n);
	heads_text(f, "initcall");
	rows_text(f, d->calls, d->ncalls, top, false);
}

static void funcs_text(FILE *f, const struct diff *d, size_t top)
{
	size_t n = count(d->funcs, d->nfuncs, changed);

	fprintf(f, "\nFunctions by |delta| of instructions per boot (%zu of %zu):\n",
		n < top ? n : top, n);
	heads_text(f, "function  module");
	rows_text(f, d->funcs, d->nfuncs, top, true);
}

/* The functions by the change of their misses (I1 + D1 + LL) per boot. */
static int misses_text(FILE *f, const struct diff *d, size_t top)
{
	struct row *r = malloc((d->nfuncs + 1) * sizeof(*r));
	char b[32], h[32], x[32];
	size_t i;

	if (!r)
		return -ENOMEM;
	memcpy(r, d->funcs, d->nfuncs * sizeof(*r));
	qsort(r, d->nfuncs, sizeof(*r), by_misses);
	fprintf(f,
		"\nFunctions by |delta| of misses (I1 + D1 + LL) per boot, base geometry %u,"
		" hardened %u (%zu of %zu):\n%12s %12s %12s  %s\n",
		d->g[0], d->g[1], d->nfuncs < top ? d->nfuncs : top, d->nfuncs, "base", "hardened",
		"delta", "function  module");
	for (i = 0; i < d->nfuncs && i < top; i++) {
		num_text(b, sizeof(b), r[i].s[0] ? r[i].miss[0] : NAN, false, false);
		num_text(h, sizeof(h), r[i].s[1] ? r[i].miss[1] : NAN, false, false);
		num_text(x, sizeof(x), r[i].miss[1] - r[i].miss[0], false, true);
		esc_printf(f, "%12s %12s %12s  %s  %s\n", b, h, x, any(&r[i])->name,
			   any(&r[i])->module);
	}
	free(r);
	return 0;
}

/* Why a field is unknown: which side lacks what. */
static const char *xwhy(const struct diff *d, enum boot_xfield k)
{
	int s;

	for (s = 0; s < 2; s++)
		if (!d->b[s].events)
			return s ? "(hardened: no TLBs or events counted)"
				 : "(base: no TLBs or events counted)";
	if (k == BX_EST)
		return "(no cost table: kprotperf calibrate)";
	for (s = 0; s < 2; s++)
		if (!d->b[s].tlb)
			return s ? "(hardened: no TLB simulated)" : "(base: no TLB simulated)";
	return d->cache ? "(TLBs of other sizes)" : "(no cache geometry in common)";
}

/* The kernel's TLB misses, events and est_cycles per boot. */
static void kernel_text(FILE *f, const struct diff *d)
{
	static const struct change none = {NAN, NAN, NAN, NAN, NAN};
	int k;

	fputs("\nThe kernel's TLB misses and events per boot (mean; 95% interval of the change:"
	      " Welch's, over the boots):\n",
	      f);
	boot_est_head(f, &d->b[0], d->costs);
	if (d->b[0].cache && d->b[1].cache && !d->cache)
		fputs("# est_cycles without cache misses: no cache geometry in common\n", f);
	heads_text(f, "field");
	for (k = 0; k < BOOT_XFIELDS; k++) {
		change_text(f, d->xknown[k] ? &d->kernel[k] : &none, false);
		fprintf(f, "  %s%s%s%s\n", boot_xfield_names[k],
			k == BX_EST ? boot_est_label(&d->b[0]) : "", d->xknown[k] ? "" : "  ",
			d->xknown[k] ? "" : xwhy(d, k));
	}
}

static int by_est(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double dx = fabs(x->x[BX_EST].delta), dy = fabs(y->x[BX_EST].delta);

	if (isnan(dx) != isnan(dy))
		return isnan(dx) ? 1 : -1;
	if (!isnan(dx) && dx != dy)
		return dx > dy ? -1 : 1;
	return by_delta(a, b);
}

static bool est_changed(const struct row *r)
{
	const struct change *c = &r->x[BX_EST];

	return r->st == ST_BOTH && !isnan(c->delta) && (!has_ci(c) || significant(c)) &&
	       c->delta != 0;
}

/* The functions whose estimated cycles changed (significantly, with intervals). */
static int est_text(FILE *f, const struct diff *d, size_t top)
{
	struct row *r = malloc((d->nfuncs + 1) * sizeof(*r));
	size_t n = count(d->funcs, d->nfuncs, est_changed), i, k;

	if (!r)
		return -ENOMEM;
	memcpy(r, d->funcs, d->nfuncs * sizeof(*r));
	qsort(r, d->nfuncs, sizeof(*r), by_est);
	fprintf(f, "\nFunctions by |delta| of est_cycles per boot, %s (%zu of %zu):\n",
		d->b[0].timing ? "the timing model's cycles" : "an estimate", n < top ? n : top, n);
	heads_text(f, "function  module");
	for (i = k = 0; i < d->nfuncs && k < top; i++) {
		if (!est_changed(&r[i]))
			continue;
		change_text(f, &r[i].x[BX_EST], false);
		esc_printf(f, "  %s  %s\n", any(&r[i])->name, any(&r[i])->module);
		k++;
	}
	free(r);
	return 0;
}

static bool one_side(const struct row *r)
{
	return r->st != ST_BOTH;
}

static void one_side_rows(FILE *f, const struct row *r, size_t n, size_t top, bool funcs)
{
	size_t i, k;
	char v[32];

	for (i = k = 0; i < n && k < top; i++) {
		if (!one_side(&r[i]))
			continue;
		num_text(v, sizeof(v), r[i].st == ST_NEW ? r[i].c.hard : r[i].c.base, !funcs,
			 false);
		esc_printf(f, "%-13s %-9s %12s  %s%s%s\n",
			   r[i].st == ST_NEW ? "hardened only" : "base only",
			   funcs ? "function" : "initcall", v, any(&r[i])->name, funcs ? "  " : "",
			   funcs ? any(&r[i])->module : "");
		k++;
	}
}

static void one_side_text(FILE *f, const struct diff *d, size_t top)
{
	size_t nc = count(d->calls, d->ncalls, one_side), nf = count(d->funcs, d->nfuncs, one_side);

	fprintf(f,
		"\nOn one side only, by mean per boot (initcalls: %zu of %zu, functions: %zu of"
		" %zu):\n%-13s %-9s %12s  %s\n",
		nc < top ? nc : top, nc, nf < top ? nf : top, nf, "side", "what", "per boot",
		"name");
	one_side_rows(f, d->calls, d->ncalls, top, false);
	one_side_rows(f, d->funcs, d->nfuncs, top, true);
}

static int diff_text(FILE *f, const struct diff *d, size_t top)
{
	boot_header_text(f, "base ", &d->b[0]);
	boot_header_text(f, "hardened ", &d->b[1]);
	phases_text(f, d);
	calls_text(f, d, top);
	if (d->b[0].model && d->b[1].model)
		funcs_text(f, d, top);
	if (d->cache && misses_text(f, d, top))
		return -ENOMEM;
	if (d->xshow)
		kernel_text(f, d);
	if (d->xshow && d->xknown[BX_EST] && est_text(f, d, top))
		return -ENOMEM;
	one_side_text(f, d, top);
	return 0;
}

int boot_diff(const struct boot_rec *b, const struct model_view_opts *o, FILE *f, char *why,
	      size_t len)
{
	struct diff d = {.b = b};
	int err = diff_make(&d, o, why, len);

	if (!err && o->json)
		diff_json(f, &d);
	else if (!err)
		err = diff_text(f, &d, o->top);
	boot_model_free(&d.m[1]);
	boot_model_free(&d.m[0]);
	free(d.funcs);
	free(d.calls);
	return err;
}
