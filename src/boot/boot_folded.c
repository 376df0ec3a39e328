// SPDX-License-Identifier: GPL-2.0-only
/*
 * folded of a boot recording (boot_folded.h).  The time lines add up to the
 * boot from reset to the first user process: before the kernel's entry
 * (with the model), up to the first initcall, the initcalls (each, and the time
 * between them), after them.  Means per boot, rounded to whole ns.
 */
#include "boot/boot_folded.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot_report.h"
#include "boot/load.h"
#include "data/boot_schema.h"
#include "model/model_folded.h"
#include "util/esc.h"

/* A line of the graph; nothing for a value unknown or below 1. */
static void line(FILE *f, const char *stack, const char *name, double v)
{
	if (isnan(v) || llround(v) < 1)
		return;
	fputs(stack, f);
	if (name)
		esc_fputs(f, name, ESC_FRAME);
	fprintf(f, " %lld\n", llround(v));
}

static void times(const struct boot_rec *b, FILE *f)
{
	double entry = boot_mean(b->phase[BOOT_KERNEL_ENTRY], b->runs);
	double first = boot_mean(b->first_initcall, b->runs);
	double end = boot_mean(b->phase[BOOT_INITCALLS_END], b->runs);
	double user = boot_mean(b->phase[BOOT_FIRST_USER], b->runs), calls = 0;
	size_t i;

	for (i = 0; i < b->ncalls; i++)
		calls += b->calls[i].mean;
	/* the entry is the model's: without it, the time before the initcalls is one bar */
	line(f, "boot;before_kernel_entry", NULL, entry);
	line(f, "boot;before_initcalls", NULL, first - (isnan(entry) ? 0 : entry));
	for (i = 0; i < b->ncalls; i++)
		line(f, "boot;initcalls;", b->calls[i].name, b->calls[i].mean);
	/* printk and the scheduling between them: the initcalls' span that none of them took */
	line(f, "boot;initcalls;[between initcalls]", NULL, end - first - calls);
	line(f, "boot;after_initcalls", NULL, user - end);
}

static double weight(const struct boot_rec *b, const struct boot_series *s, int w,
		     unsigned int geom)
{
	const __u64 *v = s->miss ? s->miss[geom] : NULL;

	switch (w) {
	case MW_I1:
		return v ? (double)v[MODEL_I1_MISSES] / b->runs : 0;
	case MW_D1:
		return v ? (double)(v[MODEL_D1_READ_MISSES] + v[MODEL_D1_WRITE_MISSES]) / b->runs
			 : 0;
	case MW_LL:
		return v ? (double)v[MODEL_LL_MISSES] / b->runs : 0;
	default:
		return s->mean;
	}
}

static int funcs(const struct boot_rec *b, int w, unsigned int geom, FILE *f)
{
	const struct boot_series **s = boot_by_mean(b->funcs, b->nfuncs);
	double v;
	size_t i;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < b->nfuncs; i++) {
		v = weight(b, s[i], w, geom);
		if (llround(v) < 1)
			continue;
		fputs("boot;", f);
		esc_fputs(f, s[i]->module, ESC_FRAME);
		line(f, ";", s[i]->name, v);
	}
	free(s);
	return 0;
}

int boot_folded(const struct boot_rec *b, int w, unsigned int geom, FILE *f, char *why, size_t len)
{
	if (w < 0) {
		times(b, f);
		return 0;
	}
	if (!b->model) {
		snprintf(why, len, "no per-function counts: boot it with --model insns (or cache)");
		return -ENODATA;
	}
	if (w == MW_EST || w == MW_ITLB || w == MW_DTLB) {
		snprintf(why, len, "a boot recording keeps no TLB misses or events: no %s",
			 w == MW_EST ? "est_cycles" : "TLB misses");
		return -ENODATA;
	}
	if (w != MW_INSNS && !b->cache) {
		snprintf(why, len, "the model counted instructions only (mode insns): no misses");
		return -ENODATA;
	}
	return boot_check_geom(b, geom, why, len) ?: funcs(b, w, geom, f);
}
