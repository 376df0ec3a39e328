// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --model: the machine model's counts per function, kernel and user
 * (model_report.h), as text or JSON.  Like cg_annotate's function table: exact
 * instructions, and with simulated caches the I1, D1 and LL misses charged
 * to each function's instructions, reads and writes apart.
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
#include "util/fmt.h"
#include "util/json.h"

static void geom_text(FILE *f, unsigned int g, const struct model_geom *m)
{
	static const char *const names[] = {"I1", "D1", "LL"};
	int c;

	fprintf(f, "# geometry %u:", g);
	for (c = 0; c < 3; c++)
		fprintf(f, " %s %u,%u,%u", names[c], m->cache[c][0], m->cache[c][1],
			m->cache[c][2]);
	if (m->tlb[0][0])
		fprintf(f, " ITLB %u,%u DTLB %u,%u", m->tlb[0][0], m->tlb[0][1], m->tlb[1][0],
			m->tlb[1][1]);
	fputc('\n', f);
}

/* The core model that made a timing recording's cycles: its parameters, what it saw. */
static void timing_text(FILE *f, const struct model_counts *c)
{
	esc_printf(f, "# est_cycles (timing model, core %s): its cycles, not counts x costs\n",
		   c->core);
	esc_printf(f, "# timing core %s: %s\n", c->core, c->params);
	esc_printf(f,
		   "# the core model ran %s instructions (%s unknown to its decoder), issued %s"
		   " prefetches: %s cycles\n",
		   c->totals[0], c->totals[1], c->totals[2], c->totals[3]);
}

/* What the recording counted beyond instructions and caches, and est_cycles' table. */
static void extras_text(FILE *f, const struct model_counts *c)
{
	if (!c->events)
		fprintf(f,
			"# made without a TLB and without events (a table of format %u): no TLB"
			" misses, instruction kinds or flushes\n",
			c->format);
	else if (!c->tlb)
		fprintf(f, "# made without a TLB (mode %s): no TLB misses\n", c->mode);
	if (c->events)
		esc_printf(f, "# guest pti %s pcid %s%s\n", c->guest_pti, c->guest_pcid,
			   c->tlb ? "; TLBs of 4 KiB pages, LRU" : "");
	if (c->timing)
		timing_text(f, c);
	else if (c->costs)
		esc_printf(f, "# est_cycles (estimate, costs: %s, %s)%s\n", c->costs->name,
			   c->costs->path,
			   c->events ? "" : ": of instructions and cache misses alone");
	else
		fprintf(f, "# est_cycles: no cost table (kprotperf calibrate, or --costs FILE)\n");
}

void model_header_text(FILE *f, const struct model_counts *c)
{
	unsigned int g;
	double kshare = c->total.insns ? 100.0 * c->kernel.insns / c->total.insns : 0;

	esc_printf(f, "# machine model: %s, window %s, QEMU %s\n", c->mode, c->window, c->qemu);
	fprintf(f,
		"# counted machine-wide from CMD's exec to its end: %llu instructions, %.1f%% in "
		"the kernel\n",
		(unsigned long long)c->total.insns, kshare);
	for (g = 0; g < c->ngeom; g++)
		geom_text(f, g, &c->geoms[g]);
	if (c->cache)
		fprintf(f, "# misses of geometry %u\n", c->geom);
	extras_text(f, c);
}

/* the derived fields' column heads, at most 11 characters */
static const char *const field_heads[MODEL_FIELDS] = {
	"itlb_misses", "dtlb_misses", "cr3_writes", "tlb_flushes", "serializing",
	"indirect",    "returns",     "retpolines", "ret_thunks",
};

void model_heads_text(FILE *f, const struct model_counts *c)
{
	int k;

	fprintf(f, "%14s %7s", "insns", "share");
	if (c->cache)
		fprintf(f, " %11s %11s %11s %11s %11s %11s", "i1_misses", "d1_reads", "d1_rd_miss",
			"d1_writes", "d1_wr_miss", "ll_misses");
	if (model_has_est(c))
		fprintf(f, " %14s", "est_cycles");
	for (k = 0; c->stack && k < MODEL_CYCS; k++)
		fprintf(f, " %12s %6s", model_cyc_names[k], "%");
	for (k = 0; k < MODEL_FIELDS; k++)
		if (model_field_known(c, k))
			fprintf(f, " %11s", field_heads[k]);
}

/* A row's cycle stack: each part's cycles and its share of the row's cycles. */
static void stack_text(FILE *f, const struct model_func *r)
{
	__u64 all = r->x[MODEL_CYCLES];
	int k;

	for (k = 0; k < MODEL_CYCS; k++) {
		__u64 v = r->x[MODEL_CYCLES + 1 + k];

		fprintf(f, " %12llu %5.1f%%", (unsigned long long)v, all ? 100.0 * v / all : 0.0);
	}
}

void model_cols_text(FILE *f, const struct model_counts *c, const struct model_func *r, __u64 whole)
{
	double share = whole ? 100.0 * r->insns / whole : 0;
	int i;

	fprintf(f, "%14llu %6.2f%%", (unsigned long long)r->insns, share);
	for (i = 0; c->cache && i < MODEL_STATS; i++)
		fprintf(f, " %11llu", (unsigned long long)r->v[i]);
	if (model_has_est(c))
		fprintf(f, " %14.0f", round(model_func_est(c, r)));
	if (c->stack)
		stack_text(f, r);
	for (i = 0; i < MODEL_FIELDS; i++)
		if (model_field_known(c, i))
			fprintf(f, " %11llu", (unsigned long long)model_field(r, i));
}

/* A function row: its values, its name and module. */
static void row_text(FILE *f, const struct model_counts *c, const struct model_func *r)
{
	model_cols_text(f, c, r, c->total.insns);
	esc_printf(f, "  %s  %s\n", r->name, r->module);
}

static void table_text(FILE *f, const struct model_counts *c, const char *title, const char *what,
		       const struct model_func *r, size_t nr, size_t top)
{
	size_t i, n = nr < top ? nr : top;

	fprintf(f, "\n%s by instructions (%zu of %zu):\n", title, n, nr);
	model_heads_text(f, c);
	fprintf(f, "  %s\n", what);
	for (i = 0; i < n; i++)
		row_text(f, c, &r[i]);
}

/* A row's counts and what derives from them, without its name. */
static void counts_json(struct json *j, const struct model_counts *c, const struct model_func *r)
{
	int i;

	json_u64(j, "insns", r->insns);
	for (i = 0; c->cache && i < MODEL_STATS; i++)
		json_u64(j, model_stat_names[i], r->v[i]);
	for (i = 0; i < MODEL_FIELDS; i++)
		if (model_field_known(c, i))
			json_u64(j, model_field_names[i], model_field(r, i));
		else
			json_str(j, model_field_names[i], NULL);
	json_double(j, "est_cycles", round(model_func_est(c, r)));
	if (!c->timing)
		return;
	json_open(j, "stack", '{');
	for (i = 0; i < MODEL_CYCS; i++)
		json_u64(j, model_cyc_names[i], r->x[MODEL_CYCLES + 1 + i]);
	json_close(j, '}');
}

void model_func_json(struct json *j, const struct model_counts *c, const struct model_func *r)
{
	json_str(j, "name", r->name);
	json_str(j, "module", r->module);
	counts_json(j, c, r);
}

void model_costs_json(struct json *j, const struct model_counts *c)
{
	if (!c->costs) {
		json_str(j, "costs", NULL);
		return;
	}
	json_open(j, "costs", '{');
	json_str(j, "name", c->costs->name);
	json_str(j, "path", c->costs->path);
	json_str(j, "est_cycles",
		 "an estimate: instructions x cpi plus each miss and event x its cost");
	json_close(j, '}');
}

/* "KEY=VALUE ..." as an object: a value of digits a number, else a string */
static void params_json(struct json *j, const char *s)
{
	char key[256], val[256];
	size_t n, k;

	json_open(j, "parameters", '{');
	for (; *s; s += n + !!s[n]) {
		n = strcspn(s, " ");
		k = strcspn(s, "=");
		if (k >= n || k >= sizeof(key) || n - k - 1 >= sizeof(val))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)k, s);
		snprintf(val, sizeof(val), "%.*s", (int)(n - k - 1), s + k + 1);
		if (*val && strspn(val, "0123456789") == strlen(val) && strlen(val) < 20)
			json_u64(j, key, strtoull(val, NULL, 10));
		else
			json_str(j, key, val);
	}
	json_close(j, '}');
}

/* The core model of a timing recording, in the "model" header. */
static void timing_json(struct json *j, const struct model_counts *c)
{
	static const char *const keys[4] = {"core_insns", "unknown_insns", "prefetches", "cycles"};
	int i;

	json_str(j, "core", c->core);
	params_json(j, c->params);
	for (i = 0; i < 4; i++)
		json_u64(j, keys[i], strtoull(c->totals[i], NULL, 10));
	json_str(j, "est_cycles", "the timing model's cycles: an out-of-order core model's");
}

void model_header_json(struct json *j, const struct model_counts *c)
{
	static const char *const names[] = {"i1", "d1", "ll"};
	unsigned int g;
	int k;

	json_open(j, "model", '{');
	json_str(j, "mode", c->mode);
	json_str(j, "window", c->window);
	json_str(j, "qemu", c->qemu);
	json_u64(j, "insns", c->total.insns);
	json_u64(j, "kernel_insns", c->kernel.insns);
	json_u64(j, "format", c->format);
	json_bool(j, "tlb", c->tlb);
	json_bool(j, "events", c->events);
	json_str(j, "guest_pti", c->events ? c->guest_pti : NULL);
	json_str(j, "guest_pcid", c->events ? c->guest_pcid : NULL);
	json_open(j, "geometries", '[');
	for (g = 0; g < c->ngeom; g++) {
		json_open(j, NULL, '{');
		for (k = 0; k < 3; k++) {
			json_open(j, names[k], '{');
			json_u64(j, "size", c->geoms[g].cache[k][0]);
			json_u64(j, "assoc", c->geoms[g].cache[k][1]);
			json_u64(j, "line", c->geoms[g].cache[k][2]);
			json_close(j, '}');
		}
		for (k = 0; k < 2 && c->geoms[g].tlb[0][0]; k++) {
			json_open(j, k ? "dtlb" : "itlb", '{');
			json_u64(j, "entries", c->geoms[g].tlb[k][0]);
			json_u64(j, "assoc", c->geoms[g].tlb[k][1]);
			json_close(j, '}');
		}
		json_close(j, '}');
	}
	json_close(j, ']');
	if (c->cache)
		json_u64(j, "geometry", c->geom);
	if (c->timing)
		timing_json(j, c);
	json_close(j, '}');
}

static void rows_json(struct json *j, const char *key, const struct model_counts *c,
		      const struct model_func *r, size_t n, size_t top)
{
	size_t i;

	json_open(j, key, '[');
	for (i = 0; i < n && i < top; i++) {
		json_open(j, NULL, '{');
		model_func_json(j, c, &r[i]);
		json_close(j, '}');
	}
	json_close(j, ']');
}

static void report_json(FILE *f, const struct model_counts *c, const struct model_sweep *s,
			size_t top)
{
	struct json j;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	model_header_json(&j, c);
	model_costs_json(&j, c);
	json_bool(&j, "tlb", c->tlb);
	json_bool(&j, "events", c->events);
	json_open(&j, "totals", '{');
	json_open(&j, "kernel", '{');
	counts_json(&j, c, &c->kernel);
	json_close(&j, '}');
	json_open(&j, "user", '{');
	counts_json(&j, c, &c->user);
	json_close(&j, '}');
	json_close(&j, '}');
	if (s)
		model_sweep_report_json(&j, s);
	rows_json(&j, "functions", c, c->funcs, c->nfuncs, top);
	if (c->have_inlines)
		rows_json(&j, "inlines", c, c->inlines, c->ninlines, top);
	json_close(&j, '}');
	json_end(&j);
}

int model_report(struct datafile *df, struct kernel_dwarf *kd, const struct model_view_opts *o,
		 char *why, size_t len)
{
	struct model_counts c;
	struct model_sweep *s = NULL;
	int err = model_counts_read(df, o->geom, &c, why, len)
			  ?: model_counts_stack(&c, o->stack, why, len)
			  ?: model_counts_costs(df, o->costs, &c) ?: model_counts_inlines(df, kd, &c);

	/* the geometries side by side: with several, or in JSON with any */
	if (!err && c.cache && (c.ngeom > 1 || o->json))
		err = model_sweep_read(df, NULL, &s, why, len);
	if (!err && o->json) {
		report_json(stdout, &c, s, o->top);
	} else if (!err) {
		model_header_text(stdout, &c);
		if (s)
			model_sweep_report_text(stdout, s);
		table_text(stdout, &c, "Functions", "function  module", c.funcs, c.nfuncs, o->top);
		row_text(stdout, &c, &c.total);
		c.kernel.name = c.user.name = (char *)"total";
		c.kernel.module = (char *)"kernel";
		c.user.module = (char *)"user";
		row_text(stdout, &c, &c.kernel);
		row_text(stdout, &c, &c.user);
		if (c.have_inlines)
			table_text(stdout, &c, "Inlined kernel functions (inclusive)",
				   "function  inlined in", c.inlines, c.ninlines, o->top);
	}
	model_sweep_free(s);
	model_counts_free(&c);
	return err;
}
