// SPDX-License-Identifier: GPL-2.0-only
/*
 * Naming the frames of a recording (stacks.h): kernel frames by the recorded
 * kallsyms and, when there is DWARF, with the functions inlined there.
 */
#include <stdbool.h>
#include <stdio.h>

#include "data/samples.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/ksyms.h"
#include "symbols/stacks.h"
#include "symbols/symbolize.h"

static int add_ksym(__u64 addr, const char *name, const char *module, void *ks)
{
	return ksyms_add(ks, addr, name, module);
}

struct namer {
	struct datafile *df;
	const struct ksyms *ks;
	struct kernel_dwarf *kd;
};

/* One frame's place: what every row of its depth shares. */
struct kframe {
	long long stack;
	int depth;
	__u64 pc;
	__u64 func_die; /* 0 when unknown */
};

static int put_frame(struct namer *n, const struct kframe *k, int sub, bool leaf, const char *name,
		     const struct sym_frame *f)
{
	struct samples_frame row = {
		.stack = k->stack,
		.depth = k->depth,
		.sub = sub,
		.name = name,
		.file = f ? f->file : NULL,
		.line = f ? f->line : 0,
		.die = f && f->inlined ? f->die : 0,
		.leaf = leaf,
		.pc = k->pc,
		.func_die = k->func_die,
	};

	return samples_add_frame(n->df, &row);
}

/* The function at a kernel frame, then what was inlined there, outermost first. */
static int name_kernel_frame(long long stack, int depth, __u64 addr, void *ctx)
{
	struct namer *n = ctx;
	struct kframe k = {stack, depth, addr};
	const struct sym_result *r = NULL;
	const struct sym_frame *fn;
	const struct ksym *sym;
	char hex[24];
	int i, err;

	/* return addresses above the leaf are looked up one byte back, in the call */
	if (k.depth)
		k.pc--;
	sym = ksyms_lookup(n->ks, k.pc);
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
	if (n->kd) {
		err = kernel_dwarf_symbolize(n->kd, k.pc, &r);
		if (err)
			return err;
	}
	if (!r || !r->n)
		return put_frame(n, &k, 0, true, sym ? sym->name : hex, NULL);
	fn = &r->frames[r->n - 1];
	k.func_die = fn->inlined ? 0 : fn->die;
	err = put_frame(n, &k, 0, r->n == 1, sym ? sym->name : fn->func ?: hex, fn);
	for (i = (int)r->n - 2; i >= 0 && !err; i--)
		err = put_frame(n, &k, (int)r->n - 1 - i, i == 0, r->frames[i].func ?: "??",
				&r->frames[i]);
	return err;
}

int stacks_name_frames(struct datafile *df, struct kernel_dwarf *kd)
{
	struct ksyms *ks;
	int err;

	err = samples_frames_create(df);
	if (err)
		return err;
	err = ksyms_new(&ks);
	if (err)
		return err;
	err = samples_ksyms(df, add_ksym, ks);
	ksyms_sort(ks);
	err = err ?: samples_kframes(df, name_kernel_frame, &(struct namer){df, ks, kd});
	ksyms_free(ks);
	return err;
}
