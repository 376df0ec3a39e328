// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf diff's tables and its inlining section printed, as text or as JSON. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmt.h"
#include "diff/tables.h"
#include "data/features.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/kv.h"

static void fmt_signed(char *buf, size_t len, double ns)
{
	char b[24];

	fmt_ns(b, sizeof(b), (unsigned long long)llround(fabs(ns)));
	snprintf(buf, len, "%c%s", ns < 0 ? '-' : '+', b);
}

/* den: the side's calls (or runs); without any there is no value per call to show. */
static void fmt_value(char *buf, size_t len, double ns, double den)
{
	if (den <= 0)
		snprintf(buf, len, "-");
	else
		fmt_ns(buf, len, (unsigned long long)llround(ns));
}

static int fmt_pct(char *buf, size_t len, double ratio)
{
	return isinf(ratio) ? snprintf(buf, len, "+inf")
			    : snprintf(buf, len, "%+.1f%%", 100 * (ratio - 1));
}

/* The base had no calls (or runs) to compare with: the measure is new. */
static bool is_new(const struct stats_result *r)
{
	return r->base_den <= 0 && r->hard_den > 0;
}

static void fmt_ratio(char *buf, size_t len, const struct stats_result *r)
{
	if (is_new(r))
		snprintf(buf, len, "new");
	else if (isinf(r->ratio))
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%.2fx", r->ratio);
}

/* "+95.2% [+88.1%, +102.0%]": the relative change and its interval, when there is one. */
static void fmt_change(char *buf, size_t len, const struct stats_result *r)
{
	int n = is_new(r) ? snprintf(buf, len, "new") : fmt_pct(buf, len, r->ratio);

	/* nothing to be relative to (a base of 0): no interval around it either */
	if (isinf(r->ratio) || isnan(r->lo) || isnan(r->hi))
		return;
	n += snprintf(buf + n, len - n, " [");
	n += fmt_pct(buf + n, len - n, r->lo);
	n += snprintf(buf + n, len - n, ", ");
	n += fmt_pct(buf + n, len - n, r->hi);
	snprintf(buf + n, len - n, "]");
}

static const char *sig_text(const struct stats_result *r)
{
	return r->method == DS_NONE ? "-" : r->sig ? "yes" : "no";
}

/* The method the table's rows got (all get the same but where there is nothing to estimate). */
static enum stats_method table_method(const struct metric_set *s)
{
	size_t i;

	for (i = 0; i < s->shown; i++)
		if (s->v[i]->r.method != DS_NONE)
			return s->v[i]->r.method;
	return DS_NONE;
}

static void print_method(const struct metric_set *s, FILE *f)
{
	switch (table_method(s)) {
	case DS_BOOTSTRAP:
		fprintf(f, "bootstrap over %zu + %zu runs, %d resamples", s->runs[DM_BASE],
			s->runs[DM_HARD], DS_RESAMPLES);
		break;
	case DS_HISTOGRAM:
		fputs("delta method on the latency histograms (JSON p_value: a Mann-Whitney U"
		      " test)",
		      f);
		break;
	case DS_POISSON:
		fputs("sample counts as Poisson", f);
		break;
	default:
		fputs("none (one run on a side, and no histogram)", f);
	}
}

/* The feature named so, -1 for (unmapped) and outside the feature table. */
static long feature(const struct features *feat, const char *name)
{
	size_t i;

	for (i = 0; feat && i < features_count(feat); i++)
		if (!strcmp(features_name(feat, i), name))
			return i;
	return -1;
}

/* A feature's one-line description; NULL for (unmapped) and outside the feature table. */
static const char *about(const struct features *feat, const char *name)
{
	long i = feature(feat, name);

	return i < 0 ? NULL : features_about(feat, i);
}

/* The value of a config option on a side, NULL when its config does not have it. */
static const char *config_of(const struct diff_table *t, int side, const char *option)
{
	return t->config ? kv_get(&t->config[side], option) : NULL;
}

/* At most this many options are named when they are the same on both sides. */
#define SAME_SHOWN 3

/*
 * "; config A n -> y": the feature's options that differ between the
 * kernels; when none does, "; config A n, B n on both" (more than
 * SAME_SHOWN: "; config: N options, the same on both"); nothing when
 * neither kernel's config has any.
 */
static void config_state(const struct diff_table *t, long i, FILE *f)
{
	size_t k, n = i < 0 ? 0 : features_nconfig(t->feat, i), known = 0, differ = 0;
	const char *o, *b, *h;

	for (k = 0; k < n; k++) {
		o = features_config(t->feat, i, k);
		b = config_of(t, DM_BASE, o);
		h = config_of(t, DM_HARD, o);
		known += b || h;
		if ((b || h) && !(b && h && !strcmp(b, h)))
			esc_printf(f, "%s%s %s -> %s", differ++ ? ", " : "; config ", o,
				   b ?: "(not set)", h ?: "(not set)");
	}
	if (differ || !known)
		return;
	if (known > SAME_SHOWN) {
		fprintf(f, "; config: %zu options, the same on both", known);
		return;
	}
	for (k = 0, known = 0; k < n; k++) {
		o = features_config(t->feat, i, k);
		b = config_of(t, DM_BASE, o);
		if (b)
			esc_printf(f, "%s%s %s", known++ ? ", " : "; config ", o, b);
	}
	fputs(" on both", f);
}

static void text_row(const struct metric *m, double total, FILE *f)
{
	char b[32], h[32], ratio[32], change[96], d[40], share[32];

	fmt_value(b, sizeof(b), m->r.base, m->r.base_den);
	fmt_value(h, sizeof(h), m->r.hard, m->r.hard_den);
	/* a probed function that side's kernel does not have, not one never called */
	if (m->absent[DM_BASE])
		snprintf(b, sizeof(b), "absent");
	if (m->absent[DM_HARD])
		snprintf(h, sizeof(h), "absent");
	fmt_ratio(ratio, sizeof(ratio), &m->r);
	fmt_change(change, sizeof(change), &m->r);
	fmt_signed(d, sizeof(d), m->r.delta_run);
	if (fabs(total) > 1e-9)
		snprintf(share, sizeof(share), "%.1f%%", 100 * m->r.delta_run / total);
	else
		snprintf(share, sizeof(share), "-");
	esc_printf(f, "%-32s %10s %10s %7s %-30s %4s %10s %7s\n", m->name, b, h, ratio, change,
		   sig_text(&m->r), d, share);
}

/* Under the feature table: what each feature shown is, and its config on each side. */
static void legend(const struct diff_table *t, FILE *f)
{
	const char *name;
	size_t i;
	long k;

	for (i = 0; i < t->set.shown; i++) {
		name = t->set.v[i]->name;
		k = feature(t->feat, name);
		if (k < 0 || (!*features_about(t->feat, k) && !features_nconfig(t->feat, k)))
			continue;
		esc_printf(f, "  %s: %s", name, features_about(t->feat, k));
		config_state(t, k, f);
		fputc('\n', f);
	}
}

void tables_text(const struct diff_table *t, FILE *f)
{
	double total = metrics_total_delta(t->share);
	size_t i;

	fprintf(f, "\n%s; 95%% CI: ", t->title);
	print_method(&t->set, f);
	fprintf(f, "\n%-32s %10s %10s %7s %-30s %4s %10s %7s\n", t->col, "BASE", "HARDENED",
		"RATIO", "CHANGE [95% CI]", "SIG", "DELTA/RUN", "SHARE");
	for (i = 0; i < t->set.shown; i++)
		text_row(t->set.v[i], total, f);
	if (!t->set.shown)
		fputs("(none)\n", f);
	legend(t, f);
}

/* A feature row's config options known on either side: {option, base, hardened}. */
static void json_config(struct json *j, const struct diff_table *t, long i)
{
	size_t k, n = i < 0 ? 0 : features_nconfig(t->feat, i);
	const char *o, *b, *h;

	json_open(j, "config", '[');
	for (k = 0; k < n; k++) {
		o = features_config(t->feat, i, k);
		b = config_of(t, DM_BASE, o);
		h = config_of(t, DM_HARD, o);
		if (!b && !h)
			continue;
		json_open(j, NULL, '{');
		json_str(j, "option", o);
		json_str(j, "base", b);
		json_str(j, "hardened", h);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void json_row(struct json *j, const struct diff_table *t, const struct metric *m,
		     double total)
{
	const struct stats_result *r = &m->r;

	json_open(j, NULL, '{');
	json_str(j, "name", m->name);
	if (t->feat) {
		json_str(j, "about", about(t->feat, m->name));
		json_config(j, t, feature(t->feat, m->name));
	}
	if (t->set.kind && !strcmp(t->set.kind, "func"))
		json_str(j, "only",
			 m->absent[DM_BASE]   ? "hardened"
			 : m->absent[DM_HARD] ? "base"
					      : NULL);
	json_double(j, "base", r->base);
	json_double(j, "hardened", r->hard);
	json_double(j, "ratio", r->ratio);
	json_double(j, "change_pct", 100 * (r->ratio - 1));
	json_double(j, "ci_low_pct", 100 * (r->lo - 1));
	json_double(j, "ci_high_pct", 100 * (r->hi - 1));
	if (r->method == DS_NONE)
		json_str(j, "significant", NULL);
	else
		json_bool(j, "significant", r->sig);
	json_str(j, "method", stats_method_name(r->method));
	json_double(j, "p_value", r->p);
	json_double(j, "base_per_run_ns", r->base_run);
	json_double(j, "hardened_per_run_ns", r->hard_run);
	json_double(j, "delta_per_run_ns", r->delta_run);
	json_double(j, "delta_ci_low_ns", r->delta_lo);
	json_double(j, "delta_ci_high_ns", r->delta_hi);
	json_double(j, "share_pct", fabs(total) > 1e-9 ? 100 * r->delta_run / total : NAN);
	json_close(j, '}');
}

void tables_json(const struct diff_table *t, struct json *j)
{
	double total = metrics_total_delta(t->share);
	size_t i;

	json_open(j, t->key, '[');
	for (i = 0; i < t->set.shown; i++)
		json_row(j, t, t->set.v[i], total);
	json_close(j, ']');
}

static const char *how_text(unsigned int how)
{
	static const char *const text[] = {"not seen", "inlined", "out of line",
					   "inlined and out of line"};

	return text[how & 3];
}

void tables_inlining_text(const struct metrics_inlining *v, size_t n, int top, bool same_build,
			  FILE *f)
{
	size_t i;

	fputs("\nFunctions inlined in one kernel, not in the other (their samples count for\n"
	      "them either way: as inline frames with the kernel's DWARF)\n",
	      f);
	fprintf(f, "%-32s %-24s %s\n", "FUNCTION", "BASE", "HARDENED");
	for (i = 0; i < n && i < (size_t)top; i++)
		esc_printf(f, "%-32s %-24s %s\n", v[i].name, how_text(v[i].how[DM_BASE]),
			   how_text(v[i].how[DM_HARD]));
	if (!n)
		fputs(same_build ? "(none: both recordings ran the same kernel build)\n"
				 : "(none)\n",
		      f);
}

void tables_inlining_json(const struct metrics_inlining *v, size_t n, int top, struct json *j)
{
	size_t i;

	json_open(j, "inlining_changes", '[');
	for (i = 0; i < n && i < (size_t)top; i++) {
		json_open(j, NULL, '{');
		json_str(j, "name", v[i].name);
		json_str(j, "base", how_text(v[i].how[DM_BASE]));
		json_str(j, "hardened", how_text(v[i].how[DM_HARD]));
		json_close(j, '}');
	}
	json_close(j, ']');
}
