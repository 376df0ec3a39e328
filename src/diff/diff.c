// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff's tables: loads every measure of both recordings
 * (load.c), estimates the changes (metrics.c, stats.c) and prints them
 * (out.c) after the provenance and the notes (prov.c).
 */
#include "diff/diff.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/meta.h"
#include "data/runs.h"
#include "data/samples.h"
#include "diff/diff_counters.h"
#include "diff/oneside.h"
#include "diff/prov.h"
#include "diff/tables.h"
#include "features/feature_costs.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"
#include "util/esc.h"
#include "util/json.h"
#include "util/kv.h"

enum {
	T_WALL,
	T_FEATURES,
	T_SYSCALLS,
	T_ONCPU,
	T_OFFCPU,
	T_FUNCS,
	T_KSELF,
	T_KTOTAL,
	T_ISELF,
	T_ITOTAL,
	T_N
};

static const struct {
	const char *key, *title, *col;
	const char *kind, *clock, *column; /* latency measures; kind NULL: a value per run */
	bool samples;
	int share;		 /* the table whose total change SHARE divides by */
	const char *calls_title; /* latencies: the calls per run table's title, NULL: none */
} defs[T_N] = {
	[T_WALL] = {"workload", "Workload: wall time per run", "MEASURE", .share = T_WALL},
	[T_FEATURES] = {"features",
			"Hardening features: CPU time per run (a kernel sample on a"
			" compiler-inserted site counts for its feature, any other for the"
			" innermost frame a feature names)",
			"FEATURE", .samples = true, .share = T_FEATURES},
	[T_SYSCALLS] = {"syscalls", "Syscalls: latency per call (entry to return)", "SYSCALL",
			"syscall", "total", "total_ns", false, T_SYSCALLS,
			"Syscalls: calls per run, where they changed (of the rows above)"},
	[T_ONCPU] = {"syscalls_oncpu", "Syscalls: on-CPU time per call", "SYSCALL", "syscall",
		     "oncpu", "oncpu_ns", false, T_ONCPU},
	[T_OFFCPU] = {"syscalls_offcpu", "Syscalls: off-CPU time per call", "SYSCALL", "syscall",
		      NULL, "offcpu_ns", false, T_OFFCPU},
	[T_FUNCS] = {"functions", "Probed functions (record --func): latency per call", "FUNCTION",
		     "func", "total", "total_ns", false, T_SYSCALLS,
		     "Probed functions: calls per run, where they changed (of the rows above)"},
	[T_KSELF] = {"kernel_functions_self",
		     "Kernel functions: self CPU time per run (the sample's innermost frame)",
		     "FUNCTION", .samples = true, .share = T_FEATURES},
	[T_KTOTAL] = {"kernel_functions_total",
		      "Kernel functions: total CPU time per run (anywhere on the stack)",
		      "FUNCTION", .samples = true, .share = T_FEATURES},
	[T_ISELF] = {"inline_self", "Inline instances: self CPU time per run (pc in their ranges)",
		     "INLINED in PARENT", .samples = true, .share = T_FEATURES},
	[T_ITOTAL] = {"inline_total",
		      "Inline instances: total CPU time per run (also in what they call)",
		      "INLINED in PARENT", .samples = true, .share = T_FEATURES},
};

struct diff_ctx {
	const struct diff_opts *o;
	struct datafile *const *df;
	struct kernel_dwarf *const *kd;
	const char (*nodebug)[1024];
	size_t runs[2];
	double period[2];
	const struct features *feat;
	struct diff_notes notes;
	struct diff_table t[T_N];
	struct metrics_inlining *inl;
	size_t ninl;
	struct oneside only;
	struct diff_counters cnt;
	struct kv_list config[2]; /* CONFIG_ cut, for the feature table */
};

/*
 * Whether the features table is left out, as report leaves it out (the
 * sites of a side unknown): 0, or 1 + that side.
 */
static int features_hidden(const struct diff_ctx *c)
{
	int side;

	for (side = 0; side < 2; side++)
		if (feature_costs_sites_unknown(c->df[side]))
			return side + 1;
	return 0;
}

/* A side sampled on an event that is no clock (record -e): its samples are no CPU time. */
static int untimed_side(const struct diff_ctx *c)
{
	return isnan(c->period[DM_BASE])   ? DM_BASE + 1
	       : isnan(c->period[DM_HARD]) ? DM_HARD + 1
					   : 0;
}

/* A table left out: the features' as report leaves it out, the samples' without time. */
static bool hidden(const struct diff_ctx *c, int i)
{
	return (i == T_FEATURES && features_hidden(c)) || (defs[i].samples && untimed_side(c));
}

/* Before the warnings: an older schema, a side without DWARF, no sites known. */
static void input_notes(struct diff_ctx *c)
{
	long long b = datafile_schema(c->df[DM_BASE]), h = datafile_schema(c->df[DM_HARD]);
	char none[128];
	int side;

	if (b != h)
		prov_note(&c->notes,
			  "note: base is schema %lld and hardened schema %lld: what the older one"
			  " lacks reads as empty",
			  b, h);
	for (side = 0; side < 2; side++) {
		if (!c->kd[side])
			prov_note(&c->notes,
				  "note: %s: no inline frames, inline instances from record --func"
				  " only: %.900s",
				  prov_side_name[side], c->nodebug[side]);
		/* its sample tables are all "new" or "gone": say why once */
		if (samples_none(c->df[side], none, sizeof(none)))
			prov_note(&c->notes, "note: %s: %s", prov_side_name[side], none);
	}
	if (features_hidden(c))
		prov_note(
			&c->notes,
			"note: hardening features not shown: no compiler-inserted site is known"
			" on the %s, so the table would miss the samples on them (record: %.800s)",
			prov_side_name[features_hidden(c) - 1],
			feature_costs_sites_unknown(c->df[features_hidden(c) - 1]));
}

static void init_tables(struct diff_ctx *c)
{
	int i;

	for (i = 0; i < T_N; i++) {
		c->t[i] = (struct diff_table){
			.key = defs[i].key,
			.title = defs[i].title,
			.col = defs[i].col,
			.share = &c->t[defs[i].share].set,
			.share_of = defs[i].share == i ? NULL : defs[defs[i].share].key,
			.calls_title = defs[i].calls_title,
			.feat = i == T_FEATURES ? c->feat : NULL,
			.config = i == T_FEATURES ? c->config : NULL};
		metrics_init(&c->t[i].set, defs[i].kind, defs[i].clock, c->runs,
			     defs[i].samples ? c->period : NULL);
	}
}

static int config_pair(const struct meta_pair *p, void *l)
{
	return kv_add(l, p->key, "%s", p->value);
}

static int load_side(struct diff_ctx *c, int side)
{
	struct datafile *df = c->df[side];
	struct diff_table *t = c->t;
	int i, err = stacks_name_frames(df, c->kd[side], NULL);

	err = err ?: meta_each(df, META_CONFIG_SHORT, config_pair, &c->config[side]);
	for (i = 0; i < T_N && !err; i++)
		if (defs[i].kind)
			err = metrics_load_latency(&t[i].set, side, df, defs[i].column);
	return err ?: metrics_load_wall(&t[T_WALL].set, side, df)
		?: metrics_load_kernel_functions(&t[T_KSELF].set, &t[T_KTOTAL].set, side, df)
		?: metrics_load_inlines(&t[T_ISELF].set, &t[T_ITOTAL].set, side, df, c->kd[side])
		?: metrics_load_features(&t[T_FEATURES].set, side, df, c->feat);
}

static bool same_build(struct datafile *const df[2])
{
	const char *a = datafile_meta(df[0], "kernel.build_id"),
		   *b = datafile_meta(df[1], "kernel.build_id");

	return a && b && *a && !strcmp(a, b);
}

static int load_all(struct diff_ctx *c)
{
	int side, i, err = 0;

	for (side = 0; side < 2 && !err; side++) {
		err = runs_prepare(c->df[side], &c->runs[side]);
		c->period[side] = datafile_sample_period_ns(c->df[side]);
	}
	if (err)
		return err;
	prov_warnings(c->df, c->runs, "from histograms and sample counts, not over runs",
		      &c->notes);
	if (untimed_side(c))
		prov_note(&c->notes,
			  "note: CPU time not compared: the %s sampled on %.200s (record -e), whose"
			  " samples stand for no time (kprotperf folded weighs them)",
			  prov_side_name[untimed_side(c) - 1],
			  datafile_meta(c->df[untimed_side(c) - 1], "sampling.event"));
	init_tables(c);
	for (side = 0; side < 2 && !err; side++)
		err = load_side(c, side);
	for (i = 0; i < T_N && !err; i++)
		err = metrics_finish(&c->t[i].set, c->df, c->o->top);
	err = err ?: oneside_load(&c->only, c->df, &c->t[T_FUNCS].set)
		?: diff_counters_load(&c->cnt, c->df, c->runs, c->o->top);
	if (!err)
		diff_counters_notes(&c->cnt, &c->notes);
	/* one build inlines alike on both sides: only the samples would differ */
	if (err || same_build(c->df))
		return err;
	return metrics_load_inlining_changes(c->df, &c->inl, &c->ninl);
}

static int print_text(struct diff_ctx *c, FILE *f)
{
	static const int order[] = {T_WALL,  T_FEATURES, T_SYSCALLS, T_ONCPU, T_OFFCPU,
				    T_FUNCS, T_KSELF,	 T_KTOTAL,   T_ISELF, T_ITOTAL};
	size_t i;
	int n, err;

	fputs("# kprotperf diff\n", f);
	prov_side_text(DM_BASE, c->o->path[DM_BASE], c->df[DM_BASE], c->runs[DM_BASE], f);
	prov_side_text(DM_HARD, c->o->path[DM_HARD], c->df[DM_HARD], c->runs[DM_HARD], f);
	diff_counters_header(&c->cnt, f);
	err = prov_print(c->df, c->feat, f, NULL);
	for (n = 0; n < c->notes.n; n++)
		esc_printf(f, "# %s\n", c->notes.v[n]);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		/* no probed functions on either side: no table to show */
		/* the counters follow the latencies they were counted over */
		if (order[i] == T_KSELF)
			diff_counters_text(&c->cnt, f);
		if ((order[i] == T_FUNCS && !c->t[T_FUNCS].set.n) || hidden(c, order[i]))
			continue;
		tables_text(&c->t[order[i]], f);
	}
	oneside_text(&c->only, f);
	tables_inlining_text(c->inl, c->ninl, c->o->top, same_build(c->df), f);
	return err;
}

static void json_side(struct diff_ctx *c, int side, struct json *j)
{
	prov_side_json(side, c->o->path[side], c->df[side], c->runs[side],
		       c->kd[side] ? kernel_dwarf_path(c->kd[side]) : NULL, c->nodebug[side], j);
}

static int print_json(struct diff_ctx *c, FILE *f)
{
	struct json j;
	int i, err;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_side(c, DM_BASE, &j);
	json_side(c, DM_HARD, &j);
	err = prov_print(c->df, c->feat, f, &j);
	json_open(&j, "notes", '[');
	for (i = 0; i < c->notes.n; i++)
		json_str(&j, NULL, c->notes.v[i]);
	json_close(&j, ']');
	for (i = 0; i < T_N; i++)
		if (hidden(c, i))
			json_str(&j, defs[i].key, NULL);
		else
			tables_json(&c->t[i], &j);
	diff_counters_json(&c->cnt, &j);
	oneside_json(&c->only, &j);
	tables_inlining_json(c->inl, c->ninl, c->o->top, &j);
	json_close(&j, '}');
	json_end(&j);
	return err;
}

static void cleanup(struct diff_ctx *c)
{
	int i;

	for (i = 0; i < T_N; i++)
		metrics_free(&c->t[i].set);
	free(c->inl);
	oneside_free(&c->only);
	diff_counters_free(&c->cnt);
	kv_list_free(&c->config[0]);
	kv_list_free(&c->config[1]);
}

int diff_tables(const struct diff_opts *o, const struct diff_inputs *in, FILE *f)
{
	struct diff_ctx c = {
		.o = o, .df = in->df, .kd = in->kd, .nodebug = in->nodebug, .feat = in->feat};
	int err;

	input_notes(&c);
	err = load_all(&c);
	if (!err)
		err = o->json ? print_json(&c, f) : print_text(&c, f);
	cleanup(&c);
	return err;
}
