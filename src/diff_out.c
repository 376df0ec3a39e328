// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff_out.h"
#include "json.h"
#include "report.h"

static void fmt_signed(char *buf, size_t len, double ns)
{
	char b[24];

	fmt_ns(b, sizeof(b), (unsigned long long)llround(fabs(ns)));
	snprintf(buf, len, "%c%s", ns < 0 ? '-' : '+', b);
}

/* A per-call value of 0 means no calls on that side. */
static void fmt_value(char *buf, size_t len, double ns, bool per_call)
{
	if (per_call && ns <= 0)
		snprintf(buf, len, "-");
	else
		fmt_ns(buf, len, (unsigned long long)llround(ns));
}

static int fmt_pct(char *buf, size_t len, double ratio)
{
	return isinf(ratio) ? snprintf(buf, len, "new")
			    : snprintf(buf, len, "%+.1f%%", 100 * (ratio - 1));
}

/* "+95.2% [+88.1%, +102.0%]": the relative change and its interval, when there is one. */
static void fmt_change(char *buf, size_t len, const struct ds_result *r)
{
	int n = fmt_pct(buf, len, r->ratio);

	/* nothing to be relative to: "new" says it all */
	if (isinf(r->ratio) || isnan(r->lo) || isnan(r->hi))
		return;
	n += snprintf(buf + n, len - n, " [");
	n += fmt_pct(buf + n, len - n, r->lo);
	n += snprintf(buf + n, len - n, ", ");
	n += fmt_pct(buf + n, len - n, r->hi);
	snprintf(buf + n, len - n, "]");
}

static bool shown(const struct dm_metric *m)
{
	return m->r.base || m->r.hard || m->r.base_run || m->r.hard_run;
}

static const char *sig_text(const struct ds_result *r)
{
	return r->method == DS_NONE ? "-" : r->sig ? "yes" : "no";
}

/* The method the table's rows got (all get the same but where there is nothing to estimate). */
static enum ds_method table_method(const struct dm_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i]->r.method != DS_NONE)
			return s->v[i]->r.method;
	return DS_NONE;
}

static void print_method(const struct dm_set *s, FILE *f)
{
	switch (table_method(s)) {
	case DS_BOOTSTRAP:
		fprintf(f, "bootstrap over %zu + %zu runs, %d resamples", s->runs[DM_BASE],
			s->runs[DM_HARD], DS_RESAMPLES);
		break;
	case DS_HISTOGRAM:
		fputs("delta method on the latency histograms; SIG: Mann-Whitney U test", f);
		break;
	case DS_POISSON:
		fputs("sample counts as Poisson", f);
		break;
	default:
		fputs("none (one run on a side, and no histogram)", f);
	}
}

static double share_total(const struct diff_table *t)
{
	return dm_total_delta(t->share ?: &t->set);
}

static void text_row(const struct diff_table *t, const struct dm_metric *m, double total, FILE *f)
{
	char b[32], h[32], ratio[32], change[96], d[40], share[32];

	fmt_value(b, sizeof(b), m->r.base, t->per_call);
	fmt_value(h, sizeof(h), m->r.hard, t->per_call);
	if (isinf(m->r.ratio))
		snprintf(ratio, sizeof(ratio), "new");
	else
		snprintf(ratio, sizeof(ratio), "%.2fx", m->r.ratio);
	fmt_change(change, sizeof(change), &m->r);
	fmt_signed(d, sizeof(d), m->r.delta_run);
	if (fabs(total) > 1e-9)
		snprintf(share, sizeof(share), "%.1f%%", 100 * m->r.delta_run / total);
	else
		snprintf(share, sizeof(share), "-");
	fprintf(f, "%-32s %10s %10s %7s %-30s %4s %10s %7s\n", m->name, b, h, ratio, change,
		sig_text(&m->r), d, share);
}

void diff_table_text(const struct diff_table *t, int top, FILE *f)
{
	double total = share_total(t);
	size_t i;
	int rows = 0;

	fprintf(f, "\n%s; 95%% CI: ", t->title);
	print_method(&t->set, f);
	fprintf(f, "\n%-32s %10s %10s %7s %-30s %4s %10s %7s\n", t->col, "BASE", "HARDENED",
		"RATIO", "CHANGE [95% CI]", "SIG", "DELTA/RUN", "SHARE");
	for (i = 0; i < t->set.n && rows < top; i++) {
		if (!shown(t->set.v[i]))
			continue;
		text_row(t, t->set.v[i], total, f);
		rows++;
	}
	if (!rows)
		fputs("(none)\n", f);
}

/* NAN and infinities have no JSON number: null. */
static void json_num(struct json *j, const char *key, double v)
{
	if (isfinite(v))
		json_double(j, key, v);
	else
		json_str(j, key, NULL);
}

static void json_row(struct json *j, const struct dm_metric *m, double total)
{
	const struct ds_result *r = &m->r;

	json_open(j, NULL, '{');
	json_str(j, "name", m->name);
	json_num(j, "base", r->base);
	json_num(j, "hardened", r->hard);
	json_num(j, "ratio", r->ratio);
	json_num(j, "change_pct", 100 * (r->ratio - 1));
	json_num(j, "ci_low_pct", 100 * (r->lo - 1));
	json_num(j, "ci_high_pct", 100 * (r->hi - 1));
	if (r->method == DS_NONE)
		json_str(j, "significant", NULL);
	else
		json_bool(j, "significant", r->sig);
	json_str(j, "method", ds_method_name(r->method));
	json_num(j, "p_value", r->p);
	json_num(j, "base_per_run_ns", r->base_run);
	json_num(j, "hardened_per_run_ns", r->hard_run);
	json_num(j, "delta_per_run_ns", r->delta_run);
	json_num(j, "delta_ci_low_ns", r->delta_lo);
	json_num(j, "delta_ci_high_ns", r->delta_hi);
	json_num(j, "share_pct", fabs(total) > 1e-9 ? 100 * r->delta_run / total : NAN);
	json_close(j, '}');
}

void diff_table_json(const struct diff_table *t, int top, struct json *j)
{
	double total = share_total(t);
	size_t i;
	int rows = 0;

	json_open(j, t->key, '[');
	for (i = 0; i < t->set.n && rows < top; i++) {
		if (!shown(t->set.v[i]))
			continue;
		json_row(j, t->set.v[i], total);
		rows++;
	}
	json_close(j, ']');
}

static const char *how_text(unsigned int how)
{
	static const char *const text[] = {"not seen", "inlined", "out of line",
					   "inlined and out of line"};

	return text[how & 3];
}

void diff_inlining_text(const struct dm_inlining *v, size_t n, int top, bool same_build, FILE *f)
{
	size_t i;

	fputs("\nFunctions inlined in one kernel, not in the other (their samples count for\n"
	      "them either way: as inline frames with the kernel's DWARF)\n",
	      f);
	fprintf(f, "%-32s %-24s %s\n", "FUNCTION", "BASE", "HARDENED");
	for (i = 0; i < n && i < (size_t)top; i++)
		fprintf(f, "%-32s %-24s %s\n", v[i].name, how_text(v[i].how[DM_BASE]),
			how_text(v[i].how[DM_HARD]));
	if (!n)
		fputs(same_build ? "(none: both recordings ran the same kernel build)\n"
				 : "(none)\n",
		      f);
}

void diff_inlining_json(const struct dm_inlining *v, size_t n, int top, struct json *j)
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
