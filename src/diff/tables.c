// SPDX-License-Identifier: GPL-2.0-only
/* kprotperf diff's tables and its inlining section printed, as text or as JSON. */
#include "diff/tables.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "features/features.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"
#include "util/kv.h"

static void fmt_signed(char *buf, size_t len, double ns)
{
	char b[24];

	fmt_ns(b, sizeof(b), ns);
	snprintf(buf, len, "%s%s", ns >= 0 ? "+" : "", b);
}

/* The side's recording has a row of the measure, and its kernel the function. */
static bool has(const struct metric *m, int side)
{
	return m->seen[side] && !m->absent[side];
}

/* A value per call (per run) to show: a row with calls (runs) on the side. */
static bool has_value(const struct metric *m, int side)
{
	return has(m, side) && (side == DM_BASE ? m->r.base_den : m->r.hard_den) > 0;
}

enum tables_presence tables_presence(bool base, bool hard)
{
	return base == hard ? TABLES_BOTH : base ? TABLES_GONE : TABLES_NEW;
}

static enum tables_presence value_presence(const struct metric *m)
{
	return tables_presence(has_value(m, DM_BASE) && m->r.base > 0,
			       has_value(m, DM_HARD) && m->r.hard > 0);
}

static enum tables_presence calls_presence(const struct metric *m)
{
	return tables_presence(has(m, DM_BASE) && m->calls.base > 0,
			       has(m, DM_HARD) && m->calls.hard > 0);
}

const char *const tables_presence_name[] = {"both", "new", "gone"};

static void fmt_value(char *buf, size_t len, const struct metric *m, int side)
{
	/* a probed function that side's kernel does not have, not one never called */
	if (m->absent[side])
		snprintf(buf, len, "absent");
	else if (!has_value(m, side))
		snprintf(buf, len, "-");
	else
		fmt_ns(buf, len, side == DM_BASE ? m->r.base : m->r.hard);
}

static int fmt_pct(char *buf, size_t len, double ratio)
{
	return isinf(ratio) ? snprintf(buf, len, "+inf")
			    : snprintf(buf, len, "%+.1f%%", 100 * (ratio - 1));
}

void tables_fmt_ratio(char *buf, size_t len, const struct stats_result *r, enum tables_presence p)
{
	if (p != TABLES_BOTH)
		snprintf(buf, len, "%s", tables_presence_name[p]);
	else
		snprintf(buf, len, "%.2fx", r->ratio);
}

void tables_fmt_change(char *buf, size_t len, const struct stats_result *r, enum tables_presence p)
{
	int n;

	if (p != TABLES_BOTH) {
		snprintf(buf, len, "%s", tables_presence_name[p]);
		return;
	}
	n = fmt_pct(buf, len, r->ratio);
	if (isnan(r->lo) || isnan(r->hi))
		return;
	n += snprintf(buf + n, len - n, " [");
	n += fmt_pct(buf + n, len - n, r->lo);
	n += snprintf(buf + n, len - n, ", ");
	n += fmt_pct(buf + n, len - n, r->hi);
	snprintf(buf + n, len - n, "]");
}

const char *tables_sig_text(const struct stats_result *r)
{
	return r->method == DS_NONE ? "-" : r->sig ? "yes" : "no";
}

/*
 * The method the table's rows got (all get the same but where there is
 * nothing to estimate); calls: their calls per run's.
 */
static enum stats_method table_method(const struct metric_set *s, bool calls)
{
	enum stats_method m;
	size_t i;

	for (i = 0; i < s->shown; i++) {
		m = calls ? s->v[i]->calls.method : s->v[i]->r.method;
		if (m != DS_NONE)
			return m;
	}
	return DS_NONE;
}

void tables_method(enum stats_method m, const size_t runs[2], const char *poisson, FILE *f)
{
	switch (m) {
	case DS_BOOTSTRAP:
		fprintf(f, "bootstrap over %zu + %zu runs, %d resamples", runs[DM_BASE],
			runs[DM_HARD], DS_RESAMPLES);
		break;
	case DS_HISTOGRAM:
		fputs("delta method on the latency histograms (JSON p_value: a Mann-Whitney U"
		      " test)",
		      f);
		break;
	case DS_POISSON:
		fputs(poisson, f);
		break;
	default:
		fputs("none (one run on a side, and no histogram)", f);
	}
}

static void print_method(const struct metric_set *s, bool calls, FILE *f)
{
	tables_method(table_method(s, calls), s->runs,
		      calls ? "call counts as Poisson (one run on a side)"
			    : "sample counts as Poisson",
		      f);
}

/*
 * SHARE, a row's part of the total change of its share set, is shown only
 * when that total is one of changes going one way: those against it add up
 * to at most SHARE_AGAINST of those with it (shares then stay within about
 * -11% and 111%), over all the share set's rows and over the rows this
 * table shows (the features' (unmapped) row sums functions whose changes
 * may cancel; the noise of hundreds of functions too small to show does
 * not count).  Where changes cancel out, a share of their small remainder
 * would read as a large part of a change that is not there.
 */
#define SHARE_AGAINST 0.1

struct share {
	double total;	 /* the share set's change per run */
	double up, down; /* where shares are not shown: the increases and decreases that cancel */
	bool shown;
	bool elsewhere; /* they cancel in the share set, not in this table */
};

/* The increases and decreases per run of s's first n rows, summed; whether they cancel out. */
static bool cancels(const struct metric_set *s, size_t n, double *up, double *down)
{
	double d;
	size_t i;

	*up = *down = 0;
	for (i = 0; i < n; i++) {
		d = s->v[i]->r.delta_run;
		if (d > 0)
			*up += d;
		else
			*down -= d;
	}
	return fmin(*up, *down) > SHARE_AGAINST * fmax(*up, *down);
}

static struct share table_share(const struct diff_table *t)
{
	struct share sh = {.elsewhere = t->share != &t->set};
	bool away = cancels(t->share, t->share->n, &sh.up, &sh.down);

	sh.total = sh.up - sh.down;
	/* below a ns per run there is no change to take shares of */
	sh.shown = !away && fabs(sh.total) >= 1;
	if (sh.shown && sh.elsewhere && cancels(&t->set, t->set.shown, &sh.up, &sh.down)) {
		sh.shown = false;
		sh.elsewhere = false;
	}
	return sh;
}

static double share_pct(const struct share *sh, const struct metric *m)
{
	/* + 0.0: a row without change has a share of 0, not -0 */
	return sh->shown ? 100 * m->r.delta_run / sh->total + 0.0 : NAN;
}

/* A feature's one-line description; NULL for (unmapped) and outside the feature table. */
static const char *about(const struct features *feat, const char *name)
{
	long i = features_index(feat, name);

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

static void text_row(const struct metric *m, const struct share *sh, FILE *f)
{
	char b[32], h[32], ratio[32], change[96], d[40], share[32], lo[40], hi[40];
	enum tables_presence p = value_presence(m);

	fmt_value(b, sizeof(b), m, DM_BASE);
	fmt_value(h, sizeof(h), m, DM_HARD);
	tables_fmt_ratio(ratio, sizeof(ratio), &m->r, p);
	tables_fmt_change(change, sizeof(change), &m->r, p);
	/* nothing to be relative to: the change's own interval, per run */
	if (p != TABLES_BOTH && !isnan(m->r.delta_lo) && !isnan(m->r.delta_hi)) {
		fmt_signed(lo, sizeof(lo), m->r.delta_lo);
		fmt_signed(hi, sizeof(hi), m->r.delta_hi);
		snprintf(change, sizeof(change), "%s [%s, %s]", tables_presence_name[p], lo, hi);
	}
	fmt_signed(d, sizeof(d), m->r.delta_run);
	if (sh->shown)
		snprintf(share, sizeof(share), "%.1f%%", share_pct(sh, m));
	else
		snprintf(share, sizeof(share), "-");
	esc_printf(f, "%-32s %10s %10s %7s %-30s %4s %10s %7s\n", m->name, b, h, ratio, change,
		   tables_sig_text(&m->r), d, share);
}

/* Said once under the table: why SHARE is "-" where there were changes. */
static void share_note(const struct diff_table *t, const struct share *sh, FILE *f)
{
	char up[40], down[40];

	if (sh->shown || fmax(sh->up, sh->down) < 1 || !t->set.shown)
		return;
	fmt_signed(up, sizeof(up), sh->up);
	fmt_signed(down, sizeof(down), -sh->down);
	fprintf(f, "  shares not shown: the changes cancel out%s%s%s (%s and %s per run)\n",
		sh->elsewhere ? " in the " : "", sh->elsewhere ? t->share_of : "",
		sh->elsewhere ? " table" : "", up, down);
}

/* Under the feature table: what each feature shown is, and its config on each side. */
static void legend(const struct diff_table *t, FILE *f)
{
	const char *name;
	size_t i;
	long k;

	for (i = 0; i < t->set.shown; i++) {
		name = t->set.v[i]->name;
		k = features_index(t->feat, name);
		if (k < 0 || (!*features_about(t->feat, k) && !features_nconfig(t->feat, k)))
			continue;
		esc_printf(f, "  %s: %s", name, features_about(t->feat, k));
		config_state(t, k, f);
		fputc('\n', f);
	}
}

static void fmt_calls(char *buf, size_t len, const struct metric *m, int side)
{
	double v = side == DM_BASE ? m->calls.base : m->calls.hard;

	if (m->absent[side])
		snprintf(buf, len, "absent");
	else if (!has(m, side))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, v == floor(v) ? "%.0f" : "%.1f", v);
}

/*
 * Under a latency table: the rows above whose calls per run changed
 * significantly, in their order; the others made as many calls.
 */
static void calls_text(const struct diff_table *t, FILE *f)
{
	char b[32], h[32], ratio[32], change[96];
	const struct metric *m;
	enum tables_presence p;
	size_t i, n = 0;

	if (!t->calls_title || !t->set.shown)
		return;
	fprintf(f, "\n%s; 95%% CI: ", t->calls_title);
	print_method(&t->set, true, f);
	fprintf(f, "\n%-32s %10s %10s %7s %s\n", t->col, "BASE", "HARDENED", "RATIO",
		"CHANGE [95% CI]");
	for (i = 0; i < t->set.shown; i++) {
		m = t->set.v[i];
		if (m->calls.method == DS_NONE || !m->calls.sig)
			continue;
		p = calls_presence(m);
		fmt_calls(b, sizeof(b), m, DM_BASE);
		fmt_calls(h, sizeof(h), m, DM_HARD);
		tables_fmt_ratio(ratio, sizeof(ratio), &m->calls, p);
		tables_fmt_change(change, sizeof(change), &m->calls, p);
		esc_printf(f, "%-32s %10s %10s %7s %s\n", m->name, b, h, ratio, change);
		n++;
	}
	if (!n)
		fprintf(f,
			"(none: the %zu rows above make as many calls per run on both sides,"
			" within their intervals)\n",
			t->set.shown);
}

void tables_text(const struct diff_table *t, FILE *f)
{
	struct share sh = table_share(t);
	size_t i;

	fprintf(f, "\n%s; 95%% CI: ", t->title);
	print_method(&t->set, false, f);
	fprintf(f, "\n%-32s %10s %10s %7s %-30s %4s %10s %7s\n", t->col, "BASE", "HARDENED",
		"RATIO", "CHANGE [95% CI]", "SIG", "DELTA/RUN", "SHARE");
	for (i = 0; i < t->set.shown; i++)
		text_row(t->set.v[i], &sh, f);
	if (!t->set.shown)
		fputs("(none)\n", f);
	share_note(t, &sh, f);
	legend(t, f);
	calls_text(t, f);
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

/* NAN (null) for what the side has no row of */
static double side_value(const struct metric *m, int side, double v, bool per_call)
{
	return (per_call ? has_value(m, side) : has(m, side)) ? v : NAN;
}

void tables_json_change(struct json *j, const char *prefix, const struct stats_result *r,
			enum tables_presence p)
{
	static const char *const keys[] = {"ratio", "change_pct", "ci_low_pct", "ci_high_pct"};
	double v[] = {r->ratio, 100 * (r->ratio - 1), 100 * (r->lo - 1), 100 * (r->hi - 1)};
	char key[32];
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(key, sizeof(key), "%s%s", prefix, keys[i]);
		json_double(j, key, p == TABLES_BOTH ? v[i] : NAN);
	}
}

void tables_json_sig(struct json *j, const char *key, const struct stats_result *r)
{
	if (r->method == DS_NONE)
		json_str(j, key, NULL);
	else
		json_bool(j, key, r->sig);
}

static void json_calls(struct json *j, const struct metric *m)
{
	json_double(j, "calls_per_run_base", side_value(m, DM_BASE, m->calls.base, false));
	json_double(j, "calls_per_run_hardened", side_value(m, DM_HARD, m->calls.hard, false));
	json_double(j, "calls_ratio", calls_presence(m) == TABLES_BOTH ? m->calls.ratio : NAN);
	json_double(j, "calls_ci_low_pct",
		    calls_presence(m) == TABLES_BOTH ? 100 * (m->calls.lo - 1) : NAN);
	json_double(j, "calls_ci_high_pct",
		    calls_presence(m) == TABLES_BOTH ? 100 * (m->calls.hi - 1) : NAN);
	tables_json_sig(j, "calls_significant", &m->calls);
}

static void json_row(struct json *j, const struct diff_table *t, const struct metric *m,
		     const struct share *sh)
{
	const struct stats_result *r = &m->r;
	enum tables_presence p = value_presence(m);

	json_open(j, NULL, '{');
	json_str(j, "name", m->name);
	if (t->feat) {
		json_str(j, "about", about(t->feat, m->name));
		json_config(j, t, features_index(t->feat, m->name));
	}
	if (t->set.kind && !strcmp(t->set.kind, "func"))
		json_str(j, "only",
			 m->absent[DM_BASE]   ? "hardened"
			 : m->absent[DM_HARD] ? "base"
					      : NULL);
	json_str(j, "status", tables_presence_name[p]);
	json_double(j, "base", side_value(m, DM_BASE, r->base, true));
	json_double(j, "hardened", side_value(m, DM_HARD, r->hard, true));
	tables_json_change(j, "", r, p);
	tables_json_sig(j, "significant", r);
	json_str(j, "method", stats_method_name(r->method));
	json_double(j, "p_value", r->p);
	json_double(j, "base_per_run_ns", side_value(m, DM_BASE, r->base_run, false));
	json_double(j, "hardened_per_run_ns", side_value(m, DM_HARD, r->hard_run, false));
	json_double(j, "delta_per_run_ns", r->delta_run);
	json_double(j, "delta_ci_low_ns", r->delta_lo);
	json_double(j, "delta_ci_high_ns", r->delta_hi);
	json_double(j, "share_pct", share_pct(sh, m));
	if (t->set.kind)
		json_calls(j, m);
	json_close(j, '}');
}

void tables_json(const struct diff_table *t, struct json *j)
{
	struct share sh = table_share(t);
	size_t i;

	json_open(j, t->key, '[');
	for (i = 0; i < t->set.shown; i++)
		json_row(j, t, t->set.v[i], &sh);
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
