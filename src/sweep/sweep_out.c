// SPDX-License-Identifier: GPL-2.0-only
/* A sweep's matrix as text, JSON and CSV (sweep_out.h). */
#include "sweep/sweep_out.h"

#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "sweep/sweep_matrix.h"
#include "util/esc.h"
#include "util/fmt.h"
#include "util/json.h"

double sweep_pct(double ratio)
{
	return 100 * (ratio - 1);
}

static const char *const model_unit[3] = {"insns", "misses", "est"};

/* The kernel's instructions (0), misses (1) or est_cycles (2) per run, base and variant. */
static const double *model_v(const struct sweep_cell *c, size_t i)
{
	return i == 2 ? c->est : i ? c->misses : c->insns;
}

/* The change of model_v(c, i) in percent; NAN: none (no caches, no costs). */
static double model_pct(const struct sweep_cell *c, size_t i)
{
	const double *v = model_v(c, i);

	if ((i == 1 && !c->cache) || (i == 2 && !c->has_est))
		return NAN;
	return v[0] > 0 ? sweep_pct(v[1] / v[0]) : NAN;
}

/* How many of the model's changes a cell shows: insns, misses with caches, est with est_cycles. */
static size_t model_shown(const struct sweep_cell *c)
{
	return !c->model ? 0 : c->has_est ? 3 : c->cache ? 2 : 1;
}

/* Whether the matrix has est_cycles: a cost table's, or the timing model's cycles. */
static bool has_est(const struct sweep_matrix *m)
{
	return m->costed || m->timing;
}

/* A function's change per run: time, or with the model a count. */
static void fmt_delta(char *buf, size_t len, const struct sweep_cell *c, double v)
{
	if (c->model)
		snprintf(buf, len, "%+.0f", v);
	else if (v >= 0 && (buf[0] = '+'))
		fmt_ns(buf + 1, len - 1, v);
	else
		fmt_ns(buf, len, v);
}

/* "+0.81% *" or what stands for a cell that was not compared. */
static void short_cell(char *buf, size_t len, const struct sweep_row *r, size_t k)
{
	const struct sweep_cell *c = &r->cells[k];

	if (!r->ok)
		snprintf(buf, len, "-");
	else if (!c->ok)
		snprintf(buf, len, "(failed)");
	else
		snprintf(buf, len, "%+.2f%%%s", sweep_pct(c->op.ratio), c->sig ? " *" : "");
}

static void head_text(const struct sweep_matrix *m, FILE *f)
{
	esc_printf(
		f,
		"# kprotperf sweep of %s: %zu variants x %zu operations against base (line %u)\n",
		m->dir, m->nrows, m->nops, m->plan.v[m->plan.base].line);
	esc_printf(f, "# base: %s\n", m->base_ok ? m->base.setup : m->base_why);
	if (m->costed)
		esc_printf(f, "# est: est_cycles, an estimate (costs: %s)\n", m->costs.name);
	if (m->timing)
		esc_printf(f,
			   "# est: est_cycles (timing model, core %s): its cycles, not counts x"
			   " costs\n",
			   m->core);
	fputs("# a cell: the change of the operation's own time (core-ops' mean per operation) on"
	      " the variant, against base;\n",
	      f);
	fprintf(f,
		"# * significant: its 95%% interval excludes no change and Holm's procedure over the"
		" %zu cells\n#   compared keeps the chance of any false * in the matrix under"
		" %g%%\n",
		m->tests, 100 * SWEEP_ALPHA);
}

static void matrix_text(const struct sweep_matrix *m, FILE *f)
{
	int wn = 8, wc = 10, w;
	char buf[64];
	size_t i, k;

	for (i = 0; i < m->nrows; i++)
		wn = (w = strlen(m->rows[i].v->name)) > wn ? w : wn;
	for (k = 0; k < m->nops; k++)
		wc = (w = strlen(m->ops[k])) > wc ? w : wc;
	fprintf(f, "%-*s", wn, "VARIANT");
	for (k = 0; k < m->nops; k++)
		fprintf(f, "  %*s", wc, m->ops[k]);
	fputc('\n', f);
	for (i = 0; i < m->nrows; i++) {
		fprintf(f, "%-*s", wn, m->rows[i].v->name);
		for (k = 0; m->rows[i].ok && k < m->nops; k++) {
			short_cell(buf, sizeof(buf), &m->rows[i], k);
			fprintf(f, "  %*s", wc, buf);
		}
		if (!m->rows[i].ok)
			esc_printf(f, "  %s", m->rows[i].why);
		fputc('\n', f);
	}
}

static void cell_text(const struct sweep_cell *c, const char *op, FILE *f)
{
	char b[24], h[24], d[24];
	size_t i;

	if (!c->ok) {
		esc_printf(f, "  %-12s %s\n", op, c->why);
		return;
	}
	fmt_ns(b, sizeof(b), c->op.base);
	fmt_ns(h, sizeof(h), c->op.hard);
	fprintf(f, "  %-12s %10s %10s  %+7.2f%% [%+.2f%%, %+.2f%%]  p %-8.2g %-3s  run %+.2f%%", op,
		b, h, sweep_pct(c->op.ratio), sweep_pct(c->op.lo), sweep_pct(c->op.hi), c->p,
		c->sig ? "yes" : "no", sweep_pct(c->wall.ratio));
	for (i = 0; i < model_shown(c); i++)
		fprintf(f, "  %s %+.2f%%", model_unit[i], model_pct(c, i));
	for (i = 0; i < c->ntop; i++) {
		fmt_delta(d, sizeof(d), c, c->top[i].delta);
		esc_printf(f, "%s%s %s", i ? ", " : "  ", c->top[i].name, d);
	}
	if (c->funcs_why[0])
		esc_printf(f, "  (no functions: %s)", c->funcs_why);
	fputc('\n', f);
}

static void rows_text(const struct sweep_matrix *m, FILE *f)
{
	const struct sweep_row *r;
	size_t i, k;

	for (i = 0; i < m->nrows; i++) {
		r = &m->rows[i];
		esc_printf(f, "\n%s (line %u): %s\n", r->v->name, r->v->line,
			   *r->v->options ? r->v->options : "(base's options alone)");
		if (!r->ok) {
			esc_printf(f, "  not compared: %s\n", r->why);
			continue;
		}
		for (k = 0; k < r->ndiffers; k++)
			esc_printf(f, "  differs: %s\n", r->differs[k]);
		for (k = 0; k < m->nops; k++)
			cell_text(&r->cells[k], m->ops[k], f);
	}
}

void sweep_out_text(const struct sweep_matrix *m, FILE *f)
{
	head_text(m, f);
	matrix_text(m, f);
	fprintf(f,
		"\nPer variant: OPERATION BASE VARIANT (time per operation) CHANGE [95%% CI] P SIG,"
		" RUN (the change of the runs' wall time)%s and the kernel functions whose %s"
		" changed most\n",
		!m->model    ? ""
		: has_est(m) ? " INSNS MISSES EST (the kernel's per run)"
			     : " INSNS MISSES (the kernel's per run)",
		!m->model    ? "CPU time per run"
		: has_est(m) ? "est_cycles"
			     : "misses (instructions)");
	rows_text(m, f);
}

static void cell_json(const struct sweep_cell *c, const char *op, struct json *j)
{
	static const char *const delta_key[4] = {"delta_ns", "delta_insns", "delta_misses",
						 "delta_est_cycles"};
	static const char *const per_run[3] = {"insns_per_run", "misses_per_run",
					       "est_cycles_per_run"};
	static const char *const change[3] = {"insns_change_pct", "misses_change_pct",
					      "est_cycles_change_pct"};
	size_t i;

	json_open(j, NULL, '{');
	json_str(j, "operation", op);
	json_bool(j, "ok", c->ok);
	json_str(j, "why", c->ok ? NULL : c->why);
	if (c->ok) {
		json_double(j, "base_ns", c->op.base);
		json_double(j, "variant_ns", c->op.hard);
		json_double(j, "ratio", c->op.ratio);
		json_double(j, "change_pct", sweep_pct(c->op.ratio));
		json_double(j, "ci_low_pct", sweep_pct(c->op.lo));
		json_double(j, "ci_high_pct", sweep_pct(c->op.hi));
		json_bool(j, "interval_excludes_no_change", c->op.sig);
		json_double(j, "p", c->p);
		json_bool(j, "significant", c->sig);
		json_double(j, "run_base_ns", c->wall.base);
		json_double(j, "run_variant_ns", c->wall.hard);
		json_double(j, "run_change_pct", sweep_pct(c->wall.ratio));
		json_double(j, "run_ci_low_pct", sweep_pct(c->wall.lo));
		json_double(j, "run_ci_high_pct", sweep_pct(c->wall.hi));
		json_open(j, "runs", '[');
		json_u64(j, NULL, c->runs[0]);
		json_u64(j, NULL, c->runs[1]);
		json_close(j, ']');
		for (i = 0; c->model && i < 3; i++) {
			json_open(j, per_run[i], '[');
			json_double(j, NULL, model_v(c, i)[0]);
			json_double(j, NULL, model_v(c, i)[1]);
			json_close(j, ']');
			json_double(j, change[i], model_pct(c, i));
		}
		json_open(j, "functions", '[');
		for (i = 0; i < c->ntop; i++) {
			json_open(j, NULL, '{');
			json_str(j, "name", c->top[i].name);
			json_double(j,
				    delta_key[!c->model	   ? 0
					      : c->has_est ? 3
							   : 1 + c->cache],
				    c->top[i].delta);
			json_bool(j, "diff_significant", c->top[i].sig);
			json_close(j, '}');
		}
		json_close(j, ']');
		json_str(j, "functions_why", c->funcs_why[0] ? c->funcs_why : NULL);
	}
	json_close(j, '}');
}

static void variant_json(const struct sweep_variant *v, const struct sweep_jobfile *job, bool ok,
			 const char *why, struct json *j)
{
	json_str(j, "variant", v->name);
	json_u64(j, "line", v->line);
	json_str(j, "options", v->options);
	json_str(j, "setup", *job->setup ? job->setup : NULL);
	json_str(j, "kernel", *job->kernel ? job->kernel : NULL);
	json_bool(j, "ok", ok);
	json_str(j, "why", ok ? NULL : why);
}

static void row_json(const struct sweep_matrix *m, const struct sweep_row *r, struct json *j)
{
	size_t k;

	json_open(j, NULL, '{');
	variant_json(r->v, &r->job, r->ok, r->why, j);
	json_open(j, "differs", '[');
	for (k = 0; k < r->ndiffers; k++)
		json_str(j, NULL, r->differs[k]);
	json_close(j, ']');
	json_open(j, "cells", '[');
	for (k = 0; r->ok && k < m->nops; k++)
		cell_json(&r->cells[k], m->ops[k], j);
	json_close(j, ']');
	json_close(j, '}');
}

void sweep_out_json(const struct sweep_matrix *m, FILE *f)
{
	struct json j;
	size_t i;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "dir", m->dir);
	json_str(&j, "model", m->model ? m->base.model : NULL);
	json_str(&j, "costs", m->costed ? m->costs.name : NULL);
	json_str(&j, "core", m->timing ? m->core : NULL);
	json_double(&j, "alpha", SWEEP_ALPHA);
	json_str(&j, "correction", "holm");
	json_u64(&j, "tests", m->tests);
	json_open(&j, "base", '{');
	variant_json(&m->plan.v[m->plan.base], &m->base, m->base_ok, m->base_why, &j);
	json_close(&j, '}');
	json_open(&j, "operations", '[');
	for (i = 0; i < m->nops; i++)
		json_str(&j, NULL, m->ops[i]);
	json_close(&j, ']');
	json_open(&j, "rows", '[');
	for (i = 0; i < m->nrows; i++)
		row_json(m, &m->rows[i], &j);
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
}

/* s escaped and in double quotes, a quote doubled: one CSV field whatever s holds. */
static void csv_text(const char *s, FILE *f)
{
	char *e = NULL;
	size_t n;
	FILE *m = open_memstream(&e, &n);

	fputc('"', f);
	if (m) {
		esc_fputs(m, s, ESC_TEXT);
		fclose(m);
		for (s = e; s && *s; s++)
			fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, f);
	}
	free(e);
	fputc('"', f);
}

static void csv_num(double v, const char *fmt, FILE *f)
{
	fputc(',', f);
	if (!isnan(v) && !isinf(v))
		fprintf(f, fmt, v);
}

/* A cell's columns; one not compared has its reason in the functions' column. */
static void csv_cell(const struct sweep_row *r, size_t k, bool model, FILE *f)
{
	const struct sweep_cell *c = &r->cells[k];
	char d[32], *names = NULL;
	size_t n, i;
	FILE *m;

	if (!r->ok || !c->ok) {
		fputs(",,,,,,,", f);
		if (r->ok)
			csv_text(c->why, f);
		fputs(model ? ",,," : "", f);
		return;
	}
	csv_num(sweep_pct(c->op.ratio), "%.4f", f);
	csv_num(sweep_pct(c->op.lo), "%.4f", f);
	csv_num(sweep_pct(c->op.hi), "%.4f", f);
	csv_num(c->p, "%.4g", f);
	fprintf(f, ",%s", c->sig ? "yes" : "no");
	csv_num(sweep_pct(c->wall.ratio), "%.4f", f);
	fputc(',', f);
	m = open_memstream(&names, &n);
	for (i = 0; m && i < c->ntop; i++) {
		fmt_delta(d, sizeof(d), c, c->top[i].delta);
		fprintf(m, "%s%s %s", i ? "; " : "", c->top[i].name, d);
	}
	if (m && c->funcs_why[0])
		fprintf(m, "(no functions: %s)", c->funcs_why);
	if (m)
		fclose(m);
	csv_text(names ?: "", f);
	free(names);
	for (i = 0; c->model && i < 3; i++)
		csv_num(model_pct(c, i), "%.4f", f);
}

/* What differs from base, the lines joined by "; ". */
static void csv_differs(const struct sweep_row *r, FILE *f)
{
	char *all = NULL;
	size_t n, k;
	FILE *m = open_memstream(&all, &n);

	for (k = 0; m && k < r->ndiffers; k++)
		fprintf(m, "%s%s", k ? "; " : "", r->differs[k]);
	if (m)
		fclose(m);
	csv_text(all ?: "", f);
	free(all);
}

/* Column col of operation op; est_cycles' says the model that made it under the timing model. */
static void csv_head(const struct sweep_matrix *m, const char *op, const char *col, FILE *f)
{
	char *head = NULL;

	if (!m->timing || strcmp(col, "est %")) {
		fprintf(f, ",%s %s", op, col);
		return;
	}
	fputc(',', f);
	if (asprintf(&head, "%s est %% (timing model, core %s)", op, m->core) >= 0)
		csv_text(head, f);
	free(head);
}

void sweep_out_csv(const struct sweep_matrix *m, FILE *f)
{
	static const char *const cols[] = {
		"change %",	"low %",     "high %",	"p",	    "significant",
		"run change %", "functions", "insns %", "misses %", "est %",
	};
	const struct sweep_row *r;
	size_t i, k, c;

	fputs("variant,line,options,ok,why,differs", f);
	for (k = 0; k < m->nops; k++)
		for (c = 0; c < (m->model ? 10u : 7u); c++)
			csv_head(m, m->ops[k], cols[c], f);
	fputs("\r\n", f);
	for (i = 0; i < m->nrows; i++) {
		r = &m->rows[i];
		csv_text(r->v->name, f);
		fprintf(f, ",%u,", r->v->line);
		csv_text(r->v->options, f);
		fprintf(f, ",%s,", r->ok ? "yes" : "no");
		csv_text(r->ok ? "" : r->why, f);
		fputc(',', f);
		csv_differs(r, f);
		for (k = 0; k < m->nops; k++)
			csv_cell(r, k, m->model, f);
		fputs("\r\n", f);
	}
}
