// SPDX-License-Identifier: GPL-2.0-only
/*
 * folded --model: the machine model's counts as flame-graph lines, one per
 * function ("[kernel];NAME COUNT", "BINARY;NAME COUNT"), weighted by
 * instructions or by one cache's misses: the model counts per PC, not per
 * stack, so the graph is two levels deep.
 */
#include "model/model_folded.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/rows.h"
#include "util/esc.h"

static const char *const weight_names[] = {"insns", "i1", "d1", "ll", "est", "itlb", "dtlb"};

int model_folded_weight(const char *arg)
{
	size_t i;

	for (i = 0; i < sizeof(weight_names) / sizeof(weight_names[0]); i++)
		if (!strcmp(arg, weight_names[i]))
			return i;
	return -EINVAL;
}

static __u64 weight(const struct model_counts *c, const struct model_func *f, enum model_weight w)
{
	switch (w) {
	case MW_EST:
		return llround(model_func_est(c, f));
	case MW_ITLB:
		return f->x[MODEL_ITLB_MISSES];
	case MW_DTLB:
		return f->x[MODEL_DTLB_MISSES];
	case MW_I1:
		return f->v[MODEL_I1_MISSES];
	case MW_D1:
		return f->v[MODEL_D1_READ_MISSES] + f->v[MODEL_D1_WRITE_MISSES];
	case MW_LL:
		return f->v[MODEL_LL_MISSES];
	default:
		return f->insns;
	}
}

/* Whether c has what weight w counts; why not in why. */
static int can_weigh(const struct model_counts *c, enum model_weight w, char *why, size_t len)
{
	/* model_costs_pick() said why in its line */
	if (w == MW_EST && !model_has_est(c))
		return MODEL_SAID;
	if ((w == MW_ITLB || w == MW_DTLB) && !c->tlb) {
		snprintf(why, len, "made without a TLB: no TLB misses");
		return -ENODATA;
	}
	if (w != MW_INSNS && w != MW_EST && !c->cache) {
		snprintf(why, len, "the model counted instructions only (mode insns): no misses");
		return -ENODATA;
	}
	if (w == MW_EST && c->timing)
		esc_printf(stderr,
			   "kprotperf folded: est_cycles is the timing model's cycles (core %s)\n",
			   c->core);
	else if (w == MW_EST)
		esc_printf(stderr, "kprotperf folded: est_cycles is an estimate (costs: %s, %s)\n",
			   c->costs->name, c->costs->path);
	return 0;
}

int model_folded(struct datafile *df, enum model_weight w, unsigned int geom, const char *costs,
		 bool kernel, bool user, FILE *f, char *why, size_t len)
{
	struct model_counts c;
	bool k;
	size_t i;
	int err = model_counts_read(df, geom, &c, why, len);

	if (!err && w == MW_EST)
		err = model_counts_costs(df, costs, &c);
	err = err ?: can_weigh(&c, w, why, len);
	for (i = 0; !err && i < c.nfuncs; i++) {
		const struct model_func *r = &c.funcs[i];

		/* a user binary's path starts with '/'; the kernel and its modules do not */
		k = r->module[0] != '/' && strcmp(r->module, "[unknown]");
		if (!weight(&c, r, w) || (k ? !kernel : !user))
			continue;
		esc_fputs(f, r->module, ESC_FRAME);
		fputc(';', f);
		esc_fputs(f, r->name, ESC_FRAME);
		fprintf(f, " %llu\n", (unsigned long long)weight(&c, r, w));
	}
	model_counts_free(&c);
	return err;
}
