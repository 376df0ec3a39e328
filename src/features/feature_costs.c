// SPDX-License-Identifier: GPL-2.0-only
/* report's feature roll-up and features FILE (feature_costs.h). */
#include "features/feature_costs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/meta.h"
#include "data/protect.h"
#include "data/runs.h"
#include "features/features.h"
#include "symbols/stacks.h"
#include "util/array.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/kv.h"

#define TOP_FUNCS 5

struct feature_row {
	char *name;
	long long samples, sites_sampled;
	bool compiler;	       /* the feature has compiler-inserted sites in the code that ran */
	struct protect_kind k; /* those sites; k.kind unused */
	struct {
		char *name;
		long long samples;
	} top[TOP_FUNCS]; /* a compiler-inserted feature's: the functions its samples were for */
	int ntop;
};

struct rows {
	const struct features *feat;
	struct feature_row *v;
	size_t n, cap;
	long long kernel; /* kernel samples */
	bool blocks;	  /* --blocks counted a site */
};

static const struct feature_row *find(const struct rows *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

static struct feature_row *row(struct rows *r, const char *name)
{
	struct feature_row *e = (struct feature_row *)find(r, name);

	if (e)
		return e;
	if (array_reserve((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return NULL;
	r->v[r->n] = (struct feature_row){.name = strdup(name)};
	return r->v[r->n].name ? &r->v[r->n++] : NULL;
}

static int total(const char *feature, long long samples, long long sites, void *ctx)
{
	struct rows *r = ctx;
	struct feature_row *e = row(r, feature);

	if (!e)
		return -ENOMEM;
	e->samples = samples;
	e->sites_sampled = sites;
	r->kernel += samples;
	return 0;
}

static int kind(const struct protect_kind *k, void *ctx)
{
	struct rows *r = ctx;
	const char *name = features_of_site(r->feat, k->kind);
	struct feature_row *e;

	if (!name)
		return 0;
	e = row(r, name);
	if (!e)
		return -ENOMEM;
	e->compiler = true;
	e->k = *k;
	e->k.kind = NULL;
	r->blocks |= k->probed > 0;
	return 0;
}

/* Most samples first, then by name; (unmapped) last. */
static int cmp_rows(const void *a, const void *b)
{
	const struct feature_row *x = a, *y = b;
	bool ux = !strcmp(x->name, "(unmapped)"), uy = !strcmp(y->name, "(unmapped)");

	if (ux != uy)
		return ux - uy;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

static const char *class_of(const struct rows *r, const char *name, enum features_class c)
{
	long i = features_index(r->feat, name);

	return i < 0 ? NULL : features_class(r->feat, i, c);
}

static void text_row(const struct rows *r, const struct feature_row *e, double period, FILE *f)
{
	char t[32], a[24] = "-", b[24] = "-";

	fmt_ns(t, sizeof(t), e->samples * period);
	if (e->compiler) {
		snprintf(a, sizeof(a), "%lld", e->sites_sampled);
		snprintf(b, sizeof(b), "%lld", e->k.sites);
	}
	esc_printf(f, "%-24s %-8s %8lld %7.1f%% %10s %8s %8s", e->name,
		   class_of(r, e->name, FEATURES_TYPE) ?: "-", e->samples,
		   r->kernel ? 100.0 * e->samples / r->kernel : 0.0, t, a, b);
	if (r->blocks && e->compiler)
		fprintf(f, " %8lld %8lld %12lld", e->k.probed, e->k.reached, e->k.executions);
	fputc('\n', f);
}

/* "  return_thunk, for: f 12, g 8": on a site, its function; in a thunk, the frame above. */
static void text_funcs(const struct feature_row *e, FILE *f)
{
	int k;

	if (!e->ntop)
		return;
	esc_printf(f, "  %s, for:", e->name);
	for (k = 0; k < e->ntop; k++)
		esc_printf(f, "%s %s %lld", k ? "," : "", e->top[k].name, e->top[k].samples);
	fputc('\n', f);
}

static void print_text(struct datafile *df, const struct rows *r, FILE *f)
{
	const char *src = datafile_meta(df, "protect.source");
	double period = datafile_sample_period_ns(df);
	size_t i;

	fputs("\nHardening features: kernel samples (a sample whose pc is on a compiler-inserted"
	      " site\ncounts for its feature, any other for the innermost frame a feature names)\n",
	      f);
	fprintf(f, "%-24s %-8s %8s %8s %10s %8s %8s%s\n", "FEATURE", "TYPE", "SAMPLES", "KERNEL",
		"TIME", "SAMPLED", "SITES", r->blocks ? "   PROBED  REACHED   EXECUTIONS" : "");
	for (i = 0; i < r->n; i++)
		text_row(r, &r->v[i], period, f);
	for (i = 0; i < r->n; i++)
		text_funcs(&r->v[i], f);
	fputs("SAMPLED: the sites samples were on; SITES: those in the functions that ran"
	      " (sampled\nor --blocks); for: the functions the samples were for (the site's, or"
	      " the\nframe above the thunk: for a return thunk, the function returned to)",
	      f);
	fputs(r->blocks ? "; PROBED, REACHED, EXECUTIONS: what --blocks counted of them\n" : "\n",
	      f);
	if (!src)
		fputs("note: no compiler-inserted site located: the recording is older than"
		      " schema 8\n",
		      f);
}

static void json_funcs(const struct feature_row *e, struct json *j)
{
	int k;

	if (!e->compiler) {
		json_str(j, "functions", NULL);
		return;
	}
	json_open(j, "functions", '[');
	for (k = 0; k < e->ntop; k++) {
		json_open(j, NULL, '{');
		json_str(j, "name", e->top[k].name);
		json_i64(j, "samples", e->top[k].samples);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void json_row(const struct rows *r, const struct feature_row *e, double period,
		     struct json *j)
{
	static const char *const keys[FEATURES_CLASSES] = {"type", "position", "when"};
	int c;

	json_open(j, NULL, '{');
	json_str(j, "name", e->name);
	for (c = 0; c < FEATURES_CLASSES; c++)
		json_str(j, keys[c], class_of(r, e->name, c));
	json_i64(j, "samples", e->samples);
	json_double(j, "kernel_pct", r->kernel ? 100.0 * e->samples / r->kernel : 0.0);
	json_double(j, "time_ns", e->samples * period);
	if (!e->compiler) {
		json_str(j, "sites_sampled", NULL);
		json_str(j, "sites", NULL);
		json_str(j, "blocks", NULL);
	} else {
		json_i64(j, "sites_sampled", e->sites_sampled);
		json_i64(j, "sites", e->k.sites);
		json_open(j, "blocks", '{');
		json_i64(j, "sites_probed", e->k.probed);
		json_i64(j, "sites_reached", e->k.reached);
		json_i64(j, "executions", e->k.executions);
		json_close(j, '}');
	}
	json_funcs(e, j);
	json_close(j, '}');
}

/* rows null when the table is left out (feature_costs_sites_unknown()): sites_source says why. */
static void print_json(struct datafile *df, const struct rows *r, bool shown, struct json *j)
{
	double period = datafile_sample_period_ns(df);
	size_t i;

	json_open(j, "features", '{');
	json_str(j, "sites_source", datafile_meta(df, "protect.source"));
	json_i64(j, "kernel_samples", r->kernel);
	if (!shown) {
		json_str(j, "rows", NULL);
	} else {
		json_open(j, "rows", '[');
		for (i = 0; i < r->n; i++)
			json_row(r, &r->v[i], period, j);
		json_close(j, ']');
	}
	json_close(j, '}');
}

/*
 * A recording older than schema 8 is not one: it keeps its table and note,
 * its frame-named features being all it ever had.
 */
const char *feature_costs_sites_unknown(struct datafile *df)
{
	const char *src = datafile_meta(df, "protect.source");

	return src && !strncmp(src, "none: ", 6) ? src + 6 : NULL;
}

/* Functions come by feature, most samples first: the first TOP_FUNCS are kept. */
static int func(const char *feature, const char *name, long long samples, void *ctx)
{
	struct feature_row *e = (struct feature_row *)find(ctx, feature);

	if (!e || !e->compiler || e->ntop == TOP_FUNCS)
		return 0;
	e->top[e->ntop].name = strdup(name);
	if (!e->top[e->ntop].name)
		return -ENOMEM;
	e->top[e->ntop++].samples = samples;
	return 0;
}

static int collect(struct datafile *df, struct rows *r)
{
	struct runs_feature_map m;

	features_map(r->feat, &m);
	return runs_feature_totals(df, &m, total, r) ?: protect_kinds(df, kind, r)
		?: runs_feature_functions(df, func, r);
}

static void rows_free(struct rows *r)
{
	size_t i;
	int k;

	for (i = 0; i < r->n; i++) {
		for (k = 0; k < r->v[i].ntop; k++)
			free(r->v[i].top[k].name);
		free(r->v[i].name);
	}
	free(r->v);
}

int feature_costs_rollup(struct datafile *df, const struct features *feat, FILE *f, struct json *j)
{
	struct rows r = {.feat = feat};
	const char *unknown = feature_costs_sites_unknown(df);
	int err = collect(df, &r);

	if (!err) {
		if (r.n)
			qsort(r.v, r.n, sizeof(*r.v), cmp_rows);
		if (j)
			print_json(df, &r, !unknown, j);
		else if (unknown)
			esc_printf(
				f,
				"\n# hardening features: not shown: no compiler-inserted site is"
				" known, so the table would miss the samples on them (record: %s)\n",
				unknown);
		else
			print_text(df, &r, f);
	}
	rows_free(&r);
	return err;
}

/* What features_state() asks of the recording. */
struct facts {
	struct kv_list config;
	const struct rows *r;
	bool scanned;
};

static const char *config_of(const char *option, void *ctx)
{
	return kv_get(&((struct facts *)ctx)->config, option);
}

static long long sites_of(const char *kind, void *ctx)
{
	const struct facts *k = ctx;
	const char *name = features_of_site(k->r->feat, kind);
	const struct feature_row *e = name ? find(k->r, name) : NULL;

	if (!k->scanned)
		return -1;
	return e && e->compiler ? e->k.sites : 0;
}

static int config_pair(const struct meta_pair *p, void *l)
{
	return kv_add(l, p->key, "%s", p->value);
}

struct list_out {
	struct datafile *df;
	const struct rows *r;
	double per_run; /* ns per sample, over the runs */
	FILE *f;
	struct json *j;
};

static void list_row(const struct list_out *o, size_t i, enum features_state st, const char *why)
{
	const struct features *feat = o->r->feat;
	const char *name = features_name(feat, i), *c[FEATURES_CLASSES];
	const struct feature_row *e = find(o->r, name);
	long long n = e ? e->samples : 0;
	double pct = o->r->kernel ? 100.0 * n / o->r->kernel : 0.0;
	char t[32];
	int k;

	for (k = 0; k < FEATURES_CLASSES; k++)
		c[k] = features_class(feat, i, k);
	if (!o->j) {
		fmt_ns(t, sizeof(t), n * o->per_run);
		esc_printf(o->f, "%-22s %-8s %-8s %-5s %-9s %6.1f%% %10s  %s\n", name, c[0] ?: "-",
			   c[1] ?: "-", c[2] ?: "-", features_state_name(st), pct, t, why);
		return;
	}
	json_open(o->j, NULL, '{');
	json_str(o->j, "name", name);
	json_str(o->j, "about", features_about(feat, i));
	json_str(o->j, "type", c[0]);
	json_str(o->j, "position", c[1]);
	json_str(o->j, "when", c[2]);
	json_str(o->j, "state", features_state_name(st));
	json_str(o->j, "why", why);
	json_i64(o->j, "samples", n);
	json_double(o->j, "kernel_pct", pct);
	json_double(o->j, "time_per_run_ns", n * o->per_run);
	if (e && e->compiler)
		json_i64(o->j, "sites", e->k.sites);
	else
		json_str(o->j, "sites", NULL);
	json_close(o->j, '}');
}

static void list(const struct list_out *o, struct facts *k)
{
	struct features_facts facts = {
		.config = config_of,
		.config_known = k->config.n > 0,
		.cmdline = datafile_meta(o->df, "kernel.cmdline"),
		.sites = sites_of,
		.ctx = k,
	};
	char why[512];
	size_t i;

	if (!o->j)
		printf("%-22s %-8s %-8s %-5s %-9s %7s %10s  %s\n", "FEATURE", "TYPE", "POSITION",
		       "WHEN", "STATE", "KERNEL", "TIME/RUN", "STATE FROM");
	else
		json_open(o->j, "features", '[');
	for (i = 0; i < features_count(o->r->feat); i++) {
		enum features_state st = features_state(o->r->feat, i, &facts, why, sizeof(why));

		list_row(o, i, st, why);
	}
	if (o->j)
		json_close(o->j, ']');
}

int feature_costs_list(struct datafile *df, struct kernel_dwarf *kd, const struct features *feat,
		       FILE *f, struct json *j)
{
	struct rows r = {.feat = feat};
	struct facts k = {.r = &r};
	const char *src = datafile_meta(df, "protect.source");
	size_t runs = 1;
	int err = stacks_name_frames(df, kd, NULL) ?: runs_prepare(df, &runs) ?: collect(df, &r);

	err = err ?: meta_each(df, META_CONFIG_SHORT, config_pair, &k.config);
	if (!err) {
		struct list_out o = {df, &r, datafile_sample_period_ns(df) / (runs ?: 1), f, j};

		k.scanned = src && !strcmp(src, "/proc/kcore");
		list(&o, &k);
	}
	kv_list_free(&k.config);
	rows_free(&r);
	return err;
}
