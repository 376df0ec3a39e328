// SPDX-License-Identifier: GPL-2.0-only
/* A recording's machine-model counts, read for the views (rows.h). */
#include "model/rows.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/symbolize.h"
#include "util/array.h"

static __u64 sat_add(__u64 a, __u64 b)
{
	return a + b < a ? (__u64)-1 : a + b;
}

void model_func_add(struct model_func *a, const struct model_func *b)
{
	int i;

	a->insns = sat_add(a->insns, b->insns);
	for (i = 0; i < MODEL_STATS; i++)
		a->v[i] = sat_add(a->v[i], b->v[i]);
	for (i = 0; i < MODEL_XSTATS; i++)
		a->x[i] = sat_add(a->x[i], b->x[i]);
}

static int add(struct model_func *sum, const struct model_row *r)
{
	int i;

	sum->insns += r->insns;
	for (i = 0; i < MODEL_STATS; i++)
		sum->v[i] += r->v[i];
	for (i = 0; i < MODEL_XSTATS; i++)
		sum->x[i] += r->x[i];
	return 0;
}

const char *const model_field_names[MODEL_FIELDS] = {
	"itlb_misses",	     "dtlb_misses", "cr3_writes", "tlb_flushes",   "serializing",
	"indirect_branches", "returns",	    "retpolines", "return_thunks",
};

/* The executions of kind k. */
static __u64 kind(const struct model_func *f, enum model_kind k)
{
	return f->x[MODEL_XKINDS + k];
}

__u64 model_field(const struct model_func *f, enum model_field k)
{
	__u64 n = 0;
	int i;

	switch (k) {
	case MF_ITLB_MISSES:
		return f->x[MODEL_ITLB_MISSES];
	case MF_DTLB_MISSES:
		return f->x[MODEL_DTLB_MISSES];
	case MF_CR3_WRITES:
		return kind(f, MK_mov_cr3);
	case MF_TLB_FLUSHES:
		return f->x[MODEL_TLB_FLUSHES];
	case MF_SERIALIZING:
		for (i = 0; i < MODEL_KINDS; i++)
			n = model_kind_serializing(i) ? sat_add(n, kind(f, i)) : n;
		return n;
	case MF_INDIRECT_BRANCHES:
		return sat_add(sat_add(kind(f, MK_call_ind), kind(f, MK_jmp_ind)),
			       f->x[MODEL_RETPOLINES]);
	case MF_RETURNS:
		return kind(f, MK_ret);
	case MF_RETPOLINES:
		return f->x[MODEL_RETPOLINES];
	case MF_RETURN_THUNKS:
		return f->x[MODEL_RETURN_THUNKS];
	default:
		return 0;
	}
}

bool model_field_known(const struct model_counts *c, enum model_field k)
{
	return k == MF_ITLB_MISSES || k == MF_DTLB_MISSES ? c->tlb : c->events;
}

double model_est_cycles(const struct model_costs *costs, const struct model_func *f)
{
	const double *c = costs->c;
	double e =
		f->insns * costs->cpi + f->v[MODEL_I1_MISSES] * c[MC_I1_MISS] +
		((double)f->v[MODEL_D1_READ_MISSES] + f->v[MODEL_D1_WRITE_MISSES]) * c[MC_D1_MISS] +
		f->v[MODEL_LL_MISSES] * c[MC_LL_MISS] + f->x[MODEL_ITLB_MISSES] * c[MC_ITLB_MISS] +
		f->x[MODEL_DTLB_MISSES] * c[MC_DTLB_MISS] + kind(f, MK_mov_cr3) * c[MC_CR3_WRITE] +
		f->x[MODEL_TLB_FLUSHES] * c[MC_TLB_FLUSH] +
		f->x[MODEL_RETPOLINES] * c[MC_RETPOLINE] +
		f->x[MODEL_RETURN_THUNKS] * c[MC_RETURN_THUNK];
	int k, key;

	/* each kind's own cost; those charged per CR3 write, flush or thunk above are not */
	for (k = 0; k < MODEL_KINDS; k++) {
		key = model_cost_of_kind(model_kind_names[k]);
		if (key >= 0 && key < MC_KEYS && key != MC_CR3_WRITE && key != MC_TLB_FLUSH &&
		    key != MC_RETPOLINE && key != MC_RETURN_THUNK)
			e += kind(f, k) * c[key];
	}
	return e;
}

bool model_has_est(const struct model_counts *c)
{
	return c->timing || c->costs;
}

double model_func_est(const struct model_counts *c, const struct model_func *f)
{
	if (c->timing)
		return f->x[MODEL_CYCLES];
	return c->costs ? model_est_cycles(c->costs, f) : NAN;
}

int model_counts_costs(struct datafile *df, const char *given, struct model_counts *c)
{
	if (model_costs_est(c->timing, given, datafile_meta(df, "cpu.model"), &c->costs_buf,
			    &c->costs))
		return MODEL_SAID;
	return 0;
}

static int by_insns(const void *a, const void *b)
{
	const struct model_func *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns > y->insns ? -1 : 1;
	return strcmp(x->name, y->name) ?: strcmp(x->module, y->module);
}

static int func_row(const struct model_row *r, void *ctx)
{
	struct model_counts *c = ctx;
	struct model_func *f;

	if (array_reserve((void **)&c->funcs, &c->cap, c->nfuncs + 1, sizeof(*c->funcs)))
		return -ENOMEM;
	f = &c->funcs[c->nfuncs];
	*f = (struct model_func){.name = strdup(r->name), .module = strdup(r->module)};
	if (!f->name || !f->module) {
		free(f->name);
		free(f->module);
		return -ENOMEM;
	}
	c->nfuncs++;
	add(f, r);
	return model_counts_add(c, r);
}

/* The core model's meta (inject wrote it, data/check.c checked its numbers). */
static void timing_read(struct datafile *df, struct model_counts *c)
{
	static const char *const keys[4] = {"model.timing_insns", "model.timing_unknown",
					    "model.timing_prefetches", "model.timing_cycles"};
	int i;

	if (!c->timing)
		return;
	c->core = datafile_meta(df, "model.core") ?: "?";
	c->params = datafile_meta(df, "model.timing") ?: "";
	for (i = 0; i < 4; i++)
		c->totals[i] = datafile_meta(df, keys[i]) ?: "0";
}

int model_counts_add(struct model_counts *c, const struct model_row *r)
{
	add(&c->total, r);
	return add(r->addr >= MODEL_KERNEL_START ? &c->kernel : &c->user, r);
}

int model_counts_head(struct datafile *df, unsigned int geom, struct model_counts *c, char *why,
		      size_t len)
{
	const char *state = datafile_meta(df, "model.state");
	int err;

	*c = (struct model_counts){.geom = geom,
				   .total = {.name = (char *)"total", .module = (char *)""}};
	if (!state || strcmp(state, "counted")) {
		snprintf(why, len, "%s",
			 state ? "the model's counts were never merged into it: run it under "
				 "scripts/vm-run.sh --model, or kprotperf inject --model TABLE"
			       : "no counts of the machine model: record it with record --model "
				 "under scripts/vm-run.sh --model");
		return -ENODATA;
	}
	c->mode = datafile_meta(df, "model.mode") ?: "?";
	c->window = datafile_meta(df, "model.window") ?: "?";
	c->qemu = datafile_meta(df, "model.qemu") ?: "?";
	c->timing = !strcmp(c->mode, "timing");
	/* the timing model runs the caches and TLBs of one geometry as cache does */
	c->cache = !strcmp(c->mode, "cache") || c->timing;
	c->format = strcmp(datafile_meta(df, "model.format") ?: "1", "2") ? 1 : 2;
	c->events = c->format >= 2;
	c->guest_pti = datafile_meta(df, "model.guest_pti") ?: "unknown";
	c->guest_pcid = datafile_meta(df, "model.guest_pcid") ?: "unknown";
	timing_read(df, c);
	err = model_geoms(df, c->geoms, MODEL_GEOMS_MAX, &c->ngeom);
	c->tlb = !err && c->events && c->cache && geom < c->ngeom && c->geoms[geom].tlb[0][0];
	if (!err && c->cache && geom >= c->ngeom) {
		snprintf(why, len, "no cache geometry %u: the recording has %u (0 to %u)", geom,
			 c->ngeom, c->ngeom - 1);
		return -ERANGE;
	}
	return err;
}

int model_counts_read(struct datafile *df, unsigned int geom, struct model_counts *c, char *why,
		      size_t len)
{
	return model_counts_head(df, geom, c, why, len) ?: model_functions(df, geom, func_row, c);
}

int model_counts_stack(struct model_counts *c, bool stack, char *why, size_t len)
{
	if (stack && !c->timing) {
		snprintf(why, len,
			 "--stack needs a recording of the timing model, this one is of mode %s:"
			 " record it under scripts/vm-run.sh --model timing",
			 c->mode);
		return -EINVAL;
	}
	c->stack = stack;
	return 0;
}

/*
 * A timing recording's est_cycles are a core model's cycles, another's
 * counts x costs, and its caches see the core model's prefetches: a
 * difference would be of the two methods, not of the two builds.
 */
int model_counts_same_kind(const struct model_counts *b, const struct model_counts *h, char *why,
			   size_t len)
{
	if (b->timing == h->timing)
		return 0;
	snprintf(why, len,
		 "the base recording was modelled with %s, the hardened one with %s: compare"
		 " recordings of one mode",
		 b->mode, h->mode);
	return -EINVAL;
}

static void funcs_free(struct model_func *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].module);
	}
	free(f);
}

void model_counts_free(struct model_counts *c)
{
	funcs_free(c->funcs, c->nfuncs);
	funcs_free(c->inlines, c->ninlines);
	c->funcs = c->inlines = NULL;
	c->nfuncs = c->ninlines = 0;
}

const struct model_func *model_counts_find(const struct model_func *f, size_t n, const char *name,
					   const char *module)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].name, name) && !strcmp(f[i].module, module))
			return &f[i];
	return NULL;
}

/* One kernel PC's share of an inline instance, before they are merged. */
struct inl_part {
	const char *name, *parent; /* the symbolizer's: valid while kd is open */
	struct model_row r;
};

struct inl_walk {
	struct kernel_dwarf *kd;
	struct inl_part *p;
	size_t n, cap;
};

/* Each distinct inlined function of the PC's chain gets the PC's counts once. */
static int inl_pc(const struct model_row *r, void *ctx)
{
	struct inl_walk *w = ctx;
	const struct sym_result *res;
	unsigned int i, j;

	if (r->addr < MODEL_KERNEL_START || kernel_dwarf_symbolize(w->kd, r->addr, &res) ||
	    res->n < 2)
		return 0;
	for (i = 0; i + 1 < res->n; i++) {
		const char *name = res->frames[i].func;

		for (j = 0; j < i && name; j++)
			if (res->frames[j].func && !strcmp(res->frames[j].func, name))
				name = NULL;
		if (!name || !res->frames[i].inlined || !res->frames[res->n - 1].func)
			continue;
		if (array_reserve((void **)&w->p, &w->cap, w->n + 1, sizeof(*w->p)))
			return -ENOMEM;
		w->p[w->n++] = (struct inl_part){name, res->frames[res->n - 1].func, *r};
	}
	return 0;
}

static int inl_cmp(const void *a, const void *b)
{
	const struct inl_part *x = a, *y = b;

	return strcmp(x->name, y->name) ?: strcmp(x->parent, y->parent);
}

/* The parts merged by name and parent into c->inlines, by instructions. */
static int inl_merge(struct model_counts *c, struct inl_part *p, size_t n)
{
	struct model_func *f;
	size_t i, cap = 0;

	qsort(p, n, sizeof(*p), inl_cmp);
	for (i = 0; i < n; i++) {
		if (!i || inl_cmp(&p[i - 1], &p[i])) {
			if (array_reserve((void **)&c->inlines, &cap, c->ninlines + 1,
					  sizeof(*c->inlines)))
				return -ENOMEM;
			f = &c->inlines[c->ninlines++];
			*f = (struct model_func){.name = strdup(p[i].name),
						 .module = strdup(p[i].parent)};
			if (!f->name || !f->module)
				return -ENOMEM;
		}
		add(&c->inlines[c->ninlines - 1], &p[i].r);
	}
	qsort(c->inlines, c->ninlines, sizeof(*c->inlines), by_insns);
	return 0;
}

int model_counts_inlines(struct datafile *df, struct kernel_dwarf *kd, struct model_counts *c)
{
	struct inl_walk w = {kd};
	int err;

	if (!kd)
		return 0;
	err = model_each_pc(df, c->geom, inl_pc, &w) ?: inl_merge(c, w.p, w.n);
	free(w.p);
	c->have_inlines = !err;
	return err;
}
