// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "data/datafile.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/ksyms.h"
#include "symbols/stacks.h"
#include "symbols/symbolize.h"

static int add_ksym(sqlite3_stmt *st, void *ks)
{
	return ksyms_add(ks, (__u64)sqlite3_column_int64(st, 0),
			 (const char *)sqlite3_column_text(st, 1),
			 (const char *)sqlite3_column_text(st, 2));
}

struct namer {
	struct df *df;
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
	return df_insert(n->df, "INSERT INTO frames VALUES('k',?,?,?,?,?,?,?,?,?,?,?)",
			 "iiititiiiii", k->stack, (long long)k->depth, (long long)sub, name,
			 (long long)(sub > 0), f ? f->file : NULL, f ? (long long)f->line : 0LL,
			 f && f->inlined ? (long long)f->die : 0LL, (long long)leaf,
			 (long long)k->pc, (long long)k->func_die);
}

/* The function at a kernel frame, then what was inlined there, outermost first. */
static int name_kernel_frame(sqlite3_stmt *st, void *ctx)
{
	struct namer *n = ctx;
	__u64 addr = (__u64)sqlite3_column_int64(st, 2);
	struct kframe k = {sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1), addr};
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

int stacks_name_frames(struct df *df, struct kernel_dwarf *kd)
{
	struct ksyms *ks;
	int err;

	err = df_errno(sqlite3_exec(
		df_db(df),
		"CREATE TEMP TABLE frames(space TEXT, stack INTEGER, depth INTEGER,"
		" sub INTEGER, name TEXT, inl INTEGER, file TEXT, line INTEGER,"
		" die INTEGER, leaf INTEGER, pc INTEGER, func_die INTEGER,"
		" PRIMARY KEY(space, stack, depth, sub));"
		/* unresolved user frames are named by their module, like perf */
		"INSERT INTO frames SELECT 'u', stack, depth, 0, COALESCE(symbol,"
		" '[' || replace(module, rtrim(module, replace(module, '/', '')),"
		" '') || ']'), 0, NULL, 0, 0, 1, NULL, 0 FROM ustack_frames;"
		/* samples per kernel stack, indexed for joins with frames */
		"CREATE TEMP TABLE kstack_samples(stack INTEGER PRIMARY KEY, n INTEGER);"
		"INSERT INTO kstack_samples SELECT kstack, SUM(count) FROM samples"
		" WHERE kstack >= 0 GROUP BY kstack;",
		NULL, NULL, NULL));
	if (err)
		return err;
	err = ksyms_new(&ks);
	if (err)
		return err;
	err = df_each_row(df, "SELECT addr, name, COALESCE(module, '') FROM ksyms", add_ksym, ks);
	ksyms_sort(ks);
	err = err
		      ?: df_each_row(df, "SELECT stack, depth, addr FROM kstack_frames",
				     name_kernel_frame, &(struct namer){df, ks, kd});
	ksyms_free(ks);
	return err;
}
