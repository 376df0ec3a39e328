// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "datafile.h"
#include "ksyms.h"
#include "stacks.h"

static int add_ksym(sqlite3_stmt *st, void *ks)
{
	return ksyms_add(ks, (__u64)sqlite3_column_int64(st, 0),
			 (const char *)sqlite3_column_text(st, 1),
			 (const char *)sqlite3_column_text(st, 2));
}

struct namer {
	struct df *df;
	const struct ksyms *ks;
};

/* Kernel frames: return addresses above the leaf are looked up one byte back. */
static int name_kernel_frame(sqlite3_stmt *st, void *ctx)
{
	struct namer *n = ctx;
	int depth = sqlite3_column_int(st, 1);
	__u64 addr = (__u64)sqlite3_column_int64(st, 2);
	const struct ksym *sym = ksyms_lookup(n->ks, depth ? addr - 1 : addr);
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
	return df_insert(n->df, "INSERT INTO frames VALUES('k',?,?,?)", "iit",
			 sqlite3_column_int64(st, 0), (long long)depth, sym ? sym->name : hex);
}

int stacks_name_frames(struct df *df)
{
	struct ksyms *ks;
	int err;

	err = df_errno(
		sqlite3_exec(df_db(df),
			     "CREATE TEMP TABLE frames(space TEXT, stack INTEGER,"
			     " depth INTEGER, name TEXT, PRIMARY KEY(space, stack, depth));"
			     /* unresolved user frames are named by their module, like perf */
			     "INSERT INTO frames SELECT 'u', stack, depth, COALESCE(symbol,"
			     " '[' || replace(module, rtrim(module, replace(module, '/', '')),"
			     " '') || ']') FROM ustack_frames;",
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
				     name_kernel_frame, &(struct namer){df, ks});
	ksyms_free(ks);
	return err;
}
