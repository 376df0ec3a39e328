// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate --model per basic block of a kernel function (model_annotate_int.h):
 * its graph built from the vmlinux file as linked (analysis/file_cfg.h), as
 * record --blocks builds it from the running text, and the model's exact
 * counts laid on it.  A block's count is that of its first instruction; its
 * instructions and misses are summed over the PCs in it.  Edge counts
 * follow from the block counts by flow conservation (cfg_edge_counts()),
 * and from them a conditional branch's taken ratio and each loop's entries
 * and trips.
 */
#include "model/model_annotate_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/file_cfg.h"
#include "features/sites.h"
#include "model/model_report.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/symbolize.h"
#include "util/esc.h"
#include "util/json.h"

struct model_blocks {
	struct file_cfg *fc;
	struct cfg_text text; /* link-time */
	struct cfg *g;
	__u64 slide;		   /* runtime - link-time */
	__u64 *counts;		   /* per block: its first instruction's count */
	__u64 *edges;		   /* per edge: derived, or CFG_UNKNOWN */
	struct model_func *sum;	   /* per block: over its PCs */
	struct model_func outside; /* counted at PCs of no block */
	size_t noutside;
	int flow;      /* cfg_edge_counts()'s answer: edges left open, or -EDOM */
	char why[256]; /* no graph: why */
};

void model_blocks_free(struct model_ann *a)
{
	struct model_blocks *b = a->blk;

	if (!b)
		return;
	cfg_free(b->g);
	file_cfg_close(b->fc);
	free(b->counts);
	free(b->edges);
	free(b->sum);
	free(b);
	a->blk = NULL;
}

/* A call or jump to name, as record --blocks sees it: any return thunk the boot may pick. */
static enum cfg_callee by_name(const char *name)
{
	switch (sites_target_kind(name, false)) {
	case SITES_RETURN_THUNK:
		return CFG_CALLEE_RETURN;
	case SITES_RETPOLINE:
		return CFG_CALLEE_INDIRECT;
	default:
		return cfg_noreturn_name(name) ? CFG_CALLEE_NORETURN : CFG_CALLEE_FUNC;
	}
}

/* The function's text and graph, or why not in b->why (-ENOENT etc.); -ENOMEM. */
static int graph(struct model_ann *a, struct model_blocks *b)
{
	struct cfg_env env;
	char w[200] = "";
	int err = file_cfg_open(&b->fc, kernel_dwarf_debuginfo(a->kd), by_name);

	if (err) {
		snprintf(b->why, sizeof(b->why), "cannot read the text of %s: %s",
			 kernel_dwarf_path(a->kd), strerror(-err));
		return err;
	}
	err = file_cfg_text(b->fc, a->fn->name, &b->text);
	if (err) {
		snprintf(b->why, sizeof(b->why), "%s has no function symbol %s with its text",
			 kernel_dwarf_path(a->kd), a->fn->name);
		return err;
	}
	env = file_cfg_env(b->fc);
	err = cfg_build(&b->text, 1, &env, &b->g, w, sizeof(w));
	if (err)
		snprintf(b->why, sizeof(b->why), "cannot disassemble %s: %s", a->fn->name,
			 *w ? w : strerror(-err));
	return err;
}

/* Each counted PC onto its block; a block's count is its first instruction's. */
static void lay_counts(struct model_ann *a, struct model_blocks *b)
{
	const struct cfg *g = b->g;
	size_t i;
	int k;

	for (i = 0; i < a->npcs; i++) {
		__u64 link = a->pcs[i].pc - b->slide;

		k = cfg_block_at(g, link);
		if (k < 0) {
			model_func_add(&b->outside, &a->pcs[i].c);
			b->noutside++;
			continue;
		}
		model_func_add(&b->sum[k], &a->pcs[i].c);
		if (link == g->b[k].start)
			b->counts[k] = a->pcs[i].c.insns;
	}
}

int model_blocks_build(struct model_ann *a)
{
	struct model_blocks *b = calloc(1, sizeof(*b));
	size_t i;
	int err;

	if (!b)
		return -ENOMEM;
	a->blk = b;
	b->slide = kernel_dwarf_runtime(a->kd, 0);
	err = graph(a, b);
	if (err)
		return err == -ENOMEM ? err : 0;
	b->counts = calloc(b->g->nb, sizeof(*b->counts));
	b->sum = calloc(b->g->nb, sizeof(*b->sum));
	b->edges = malloc(b->g->ne * sizeof(*b->edges));
	if (!b->counts || !b->sum || !b->edges)
		return -ENOMEM;
	lay_counts(a, b);
	for (i = 0; i < b->g->ne; i++)
		b->edges[i] = CFG_UNKNOWN;
	b->flow = cfg_edge_counts(b->g, b->counts, b->edges);
	if (b->flow == -ENOMEM)
		return -ENOMEM;
	for (i = 0; b->flow == -EDOM && i < b->g->ne; i++)
		b->edges[i] = CFG_UNKNOWN;
	return 0;
}

/* The share of block k's executions that took its conditional branch; < 0 unknown or none. */
static double taken(const struct model_blocks *b, int k)
{
	const struct cfg_block *bl = &b->g->b[k];
	__u64 e;

	if (!bl->cond || bl->nsucc < 2 || !b->counts[k])
		return -1;
	e = b->edges[bl->edge[1]];
	return e == CFG_UNKNOWN ? -1 : (double)e / b->counts[k];
}

/* The source place of link-time addr (file NULL when unknown) and its inline chain. */
struct place {
	const char *file;
	int line;
	char *inl; /* NULL: none, or no memory */
};

static struct place place(struct model_ann *a, __u64 link)
{
	const struct sym_result *r;

	if (kernel_dwarf_symbolize(a->kd, kernel_dwarf_runtime(a->kd, link), &r) ||
	    !r->frames[0].file || r->frames[0].line <= 0)
		return (struct place){};
	return (struct place){r->frames[0].file, r->frames[0].line, model_inlined_chain(r)};
}

static void where(const struct place *p, char *buf, size_t len)
{
	if (p->file)
		snprintf(buf, len, "%s:%d", p->file, p->line);
	else
		snprintf(buf, len, "?");
}

static void block_text(struct model_ann *a, int k)
{
	struct model_blocks *b = a->blk;
	const struct cfg_block *bl = &b->g->b[k];
	struct place p = place(a, bl->start);
	double t = taken(b, k);
	char at[300], ratio[16] = "-", off[24];

	if (t >= 0)
		snprintf(ratio, sizeof(ratio), "%.2f%%", 100 * t);
	else if (bl->cond && b->counts[k])
		snprintf(ratio, sizeof(ratio), "?");
	where(&p, at, sizeof(at));
	snprintf(off, sizeof(off), "+0x%llx", (unsigned long long)(bl->start - b->text.addr));
	printf("%5d %8s %14llu", k, off, (unsigned long long)b->counts[k]);
	b->sum[k].name = b->sum[k].module = NULL;
	model_cols_text(stdout, &a->mc, &b->sum[k], a->fn->insns);
	if (p.inl && *p.inl)
		esc_printf(stdout, " %8s  %-28s %s\n", ratio, at, p.inl);
	else
		esc_printf(stdout, " %8s  %s\n", ratio, at);
	free(p.inl);
}

static void loop_text(struct model_ann *a, int l)
{
	struct model_blocks *b = a->blk;
	const struct cfg_loop *lp = &b->g->loops[l];
	struct place p = place(a, b->g->b[lp->head].start);
	__u64 entries, iters;
	char at[300];
	int err = cfg_loop_trips(b->g, l, b->counts, b->edges, &entries, &iters);

	free(p.inl);
	where(&p, at, sizeof(at));
	esc_printf(stdout, "loop %d: head block %d at %s, depth %d, %zu blocks: ", l, lp->head, at,
		   lp->depth, lp->nbody);
	if (err == -EDOM)
		printf("irreducible, no trip count\n");
	else if (err)
		printf("iterations %llu, entries unknown\n", (unsigned long long)iters);
	else
		printf("entries %llu, iterations %llu, %.2f trips per entry\n",
		       (unsigned long long)entries, (unsigned long long)iters,
		       entries ? (double)iters / entries : 0.0);
}

static void notes_text(const struct model_blocks *b)
{
	if (b->noutside)
		printf("# %llu instructions at %zu PCs in no block of the graph (code patched at "
		       "boot, or reached by an indirect jump)\n",
		       (unsigned long long)b->outside.insns, b->noutside);
	if (b->flow == -EDOM)
		printf("# the counts contradict the graph (an exception fix-up, or code patched at "
		       "boot): no edge count derived\n");
	else if (b->flow > 0)
		printf("# %d edge counts left open by flow conservation (TAKEN ?)\n", b->flow);
}

static void blocks_text(struct model_ann *a)
{
	struct model_blocks *b = a->blk;
	size_t k;

	if (!b->g) {
		esc_printf(stdout, "\n# no basic blocks: %s\n", b->why);
		return;
	}
	printf("\nPer basic block: %zu blocks, %zu loops, from the file's text as linked (COUNT: "
	       "executions\nof its first instruction; insns and misses summed over its "
	       "instructions; TAKEN: share of\nits executions that took its conditional "
	       "branch, from the counts)\n",
	       b->g->nb, b->g->nloops);
	notes_text(b);
	printf("BLOCK   OFFSET          COUNT");
	model_heads_text(stdout, &a->mc);
	printf(" %8s  %-28s %s\n", "TAKEN", "LINE", "INLINED");
	for (k = 0; k < b->g->nb; k++)
		block_text(a, k);
	if (b->g->nloops)
		printf("\nLoops (iterations: its head's count; entries: the counts of the edges "
		       "into it from outside):\n");
	for (k = 0; k < b->g->nloops; k++)
		loop_text(a, k);
}

static const char *const edge_kinds[] = {
	"entry",  "fall", "jump",     "taken",	  "not_taken",
	"return", "tail", "indirect", "noreturn", "trap",
};

static void succ_json(struct model_ann *a, const struct cfg_block *bl)
{
	struct model_blocks *b = a->blk;
	int i;

	json_open(a->j, "successors", '[');
	for (i = 0; i < bl->nsucc; i++) {
		const struct cfg_edge *e = &b->g->e[bl->edge[i]];

		json_open(a->j, NULL, '{');
		json_i64(a->j, "block", e->to >= 0 ? e->to : -1);
		json_str(a->j, "kind", edge_kinds[e->kind]);
		if (b->edges[bl->edge[i]] != CFG_UNKNOWN)
			json_u64(a->j, "count", b->edges[bl->edge[i]]);
		json_close(a->j, '}');
	}
	json_close(a->j, ']');
}

static void block_json(struct model_ann *a, int k)
{
	struct model_blocks *b = a->blk;
	const struct cfg_block *bl = &b->g->b[k];
	struct place p = place(a, bl->start);
	double t = taken(b, k);

	json_open(a->j, NULL, '{');
	b->sum[k].name = a->fn->name;
	b->sum[k].module = a->fn->module;
	model_func_json(a->j, &a->mc, &b->sum[k]);
	json_u64(a->j, "block", k);
	json_u64(a->j, "offset", bl->start - b->text.addr);
	json_u64(a->j, "addr", kernel_dwarf_runtime(a->kd, bl->start));
	json_u64(a->j, "bytes", bl->end - bl->start);
	json_u64(a->j, "count", b->counts[k]);
	if (t >= 0)
		json_double(a->j, "taken", t);
	json_str(a->j, "file", p.file ?: "");
	json_u64(a->j, "line", p.file ? p.line : 0);
	json_str(a->j, "inlined", p.inl ?: "");
	free(p.inl);
	succ_json(a, bl);
	json_close(a->j, '}');
}

static void loop_json(struct model_ann *a, int l)
{
	struct model_blocks *b = a->blk;
	const struct cfg_loop *lp = &b->g->loops[l];
	__u64 entries, iters;
	int err = cfg_loop_trips(b->g, l, b->counts, b->edges, &entries, &iters);
	struct place p = place(a, b->g->b[lp->head].start);

	free(p.inl);
	json_open(a->j, NULL, '{');
	json_u64(a->j, "loop", l);
	json_u64(a->j, "head", lp->head);
	json_str(a->j, "file", p.file ?: "");
	json_u64(a->j, "line", p.file ? p.line : 0);
	json_u64(a->j, "depth", lp->depth);
	json_u64(a->j, "blocks", lp->nbody);
	json_bool(a->j, "irreducible", lp->irreducible);
	if (err != -EDOM)
		json_u64(a->j, "iterations", iters);
	if (!err)
		json_u64(a->j, "entries", entries);
	if (!err && entries)
		json_double(a->j, "trips_per_entry", (double)iters / entries);
	json_close(a->j, '}');
}

static void blocks_json(struct model_ann *a)
{
	struct model_blocks *b = a->blk;
	size_t k;

	if (!b->g) {
		json_str(a->j, "no_blocks", b->why);
		return;
	}
	json_u64(a->j, "outside_blocks_insns", b->outside.insns);
	json_bool(a->j, "counts_contradict_graph", b->flow == -EDOM);
	json_open(a->j, "blocks", '[');
	for (k = 0; k < b->g->nb; k++)
		block_json(a, k);
	json_close(a->j, ']');
	json_open(a->j, "loops", '[');
	for (k = 0; k < b->g->nloops; k++)
		loop_json(a, k);
	json_close(a->j, ']');
}

void model_blocks_print(struct model_ann *a)
{
	if (a->j)
		blocks_json(a);
	else
		blocks_text(a);
}
