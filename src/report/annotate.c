// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf annotate --func NAME: where inside one kernel function the CPU
 * samples fell, per source line (with what was inlined at that line) and per
 * address range of each inline instance in it.  Needs the kernel's DWARF.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/annotate.h"
#include "cmd/cli.h"
#include "data/datafile.h"
#include "symbols/inlines.h"
#include "util/json.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"

struct annotator {
	struct df *df;
	struct kernel_dwarf *kd;
	const char *func;
	bool json;
	struct json *j;
	long long self, total; /* the function's samples: in its code, anywhere on the stack */
	sqlite3_stmt *range;   /* range_sql */
};

/*
 * Stacks with the function, at its innermost depth (recursion counts once),
 * as a TEMP table hit(stack, depth, count).
 */
static const char hit_sql[] =
	"CREATE TEMP TABLE hit AS SELECT h.stack, h.depth, s.n AS count FROM"
	" (SELECT stack, MIN(depth) AS depth FROM frames WHERE space = 'k' AND sub = 0"
	"  AND (name = ?1 OR kp_func_base(name) = ?1) GROUP BY stack) h"
	" JOIN kstack_samples s ON s.stack = h.stack";

static const char lines_sql[] =
	"SELECT l.file, l.line, (SELECT group_concat(name, ';') FROM (SELECT name FROM frames c"
	"  WHERE c.space = 'k' AND c.stack = h.stack AND c.depth = h.depth AND c.sub > 0"
	"  ORDER BY c.sub)) AS chain,"
	" SUM(CASE WHEN h.depth = 0 THEN h.count ELSE 0 END), SUM(h.count)"
	" FROM hit h JOIN frames l ON l.space = 'k' AND l.stack = h.stack"
	" AND l.depth = h.depth AND l.leaf = 1"
	" GROUP BY l.file, l.line, chain ORDER BY l.file, l.line, chain";

/* Inline instances the function's samples were in, outermost ones included. */
static const char inst_sql[] =
	"SELECT f.die, SUM(CASE WHEN h.depth = 0 THEN h.count ELSE 0 END), SUM(h.count),"
	" MAX(f.func_die)"
	" FROM hit h JOIN frames f ON f.space = 'k' AND f.stack = h.stack"
	" AND f.depth = h.depth AND f.inl = 1 GROUP BY f.die ORDER BY 3 DESC";

static int exec_bound(struct df *df, const char *sql, const char *arg)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(df_db(df), sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return df_errno(rc);
	sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : df_errno(rc);
}

static int line_row(sqlite3_stmt *st, void *ctx)
{
	struct annotator *a = ctx;
	const char *file = (const char *)sqlite3_column_text(st, 0);
	const char *chain = (const char *)sqlite3_column_text(st, 2);
	long long self = sqlite3_column_int64(st, 3), total = sqlite3_column_int64(st, 4);
	char where[256];

	snprintf(where, sizeof(where), "%s:%d", file ?: "??", sqlite3_column_int(st, 1));
	if (!a->j) {
		printf("%8lld %6.2f%% %8lld  %-36s %s\n", self,
		       a->self ? 100.0 * self / a->self : 0.0, total, where, chain ?: "");
		return 0;
	}
	json_open(a->j, NULL, '{');
	json_str(a->j, "file", file ?: "??");
	json_u64(a->j, "line", sqlite3_column_int(st, 1));
	json_str(a->j, "inlined", chain ?: "");
	json_u64(a->j, "self_samples", self);
	json_u64(a->j, "total_samples", total);
	json_close(a->j, '}');
	return 0;
}

/* The samples whose pc (at the function's depth) lies in [?1, ?2): at the leaf, anywhere. */
static const char range_sql[] =
	"SELECT SUM(CASE WHEN h.depth = 0 THEN h.count ELSE 0 END), SUM(h.count) FROM hit h"
	" JOIN frames f ON f.space = 'k' AND f.stack = h.stack AND f.depth = h.depth AND"
	" f.sub = 0 WHERE f.pc >= ?1 AND f.pc < ?2";

static int print_range(struct annotator *a, __u64 lo, __u64 hi)
{
	long long self, total;
	int rc;

	sqlite3_bind_int64(a->range, 1, (long long)lo);
	sqlite3_bind_int64(a->range, 2, (long long)hi);
	rc = sqlite3_step(a->range);
	self = sqlite3_column_int64(a->range, 0);
	total = sqlite3_column_int64(a->range, 1);
	sqlite3_reset(a->range);
	if (rc != SQLITE_ROW)
		return df_errno(rc);
	if (!a->j) {
		printf("    0x%llx-0x%llx %6llu bytes %8lld %8lld\n", (unsigned long long)lo,
		       (unsigned long long)hi, (unsigned long long)(hi - lo), self, total);
		return 0;
	}
	json_open(a->j, NULL, '{');
	json_u64(a->j, "lo", lo);
	json_u64(a->j, "hi", hi);
	json_u64(a->j, "self_samples", self);
	json_u64(a->j, "total_samples", total);
	json_close(a->j, '}');
	return 0;
}

static int inst_row(sqlite3_stmt *st, void *ctx)
{
	struct annotator *a = ctx;
	struct inline_instance in;
	long long self = sqlite3_column_int64(st, 1), total = sqlite3_column_int64(st, 2);
	size_t i;
	int err = 0;

	/* a DIE the DWARF cannot take back is no instance to show */
	if (inlines_at(kernel_dwarf_debuginfo(a->kd), sqlite3_column_int64(st, 0),
		       sqlite3_column_int64(st, 3), &in))
		return 0;
	if (!a->j) {
		printf("  %s (called at %s:%d), %zu ranges, %llu bytes: self %lld, total %lld\n",
		       in.func, in.call_file ?: "?", in.call_line, in.nranges,
		       (unsigned long long)in.bytes, self, total);
	} else {
		json_open(a->j, NULL, '{');
		json_str(a->j, "inlined", in.func);
		json_str(a->j, "call_file", in.call_file ?: "");
		json_u64(a->j, "call_line", in.call_line);
		json_u64(a->j, "bytes", in.bytes);
		json_u64(a->j, "self_samples", self);
		json_u64(a->j, "total_samples", total);
		json_open(a->j, "ranges", '[');
	}
	for (i = 0; i < in.nranges && !err; i++)
		err = print_range(a, kernel_dwarf_runtime(a->kd, in.ranges[i].lo),
				  kernel_dwarf_runtime(a->kd, in.ranges[i].hi));
	if (a->j) {
		json_close(a->j, ']');
		json_close(a->j, '}');
	}
	inlines_free_one(&in);
	return err;
}

static int annotate_text(struct annotator *a)
{
	int err;

	printf("# annotate %s: %lld samples with it on the kernel stack, %lld in its own code\n"
	       "# kernel %s, DWARF from %s\n\n",
	       a->func, a->total, a->self, df_meta(a->df, "kernel.release") ?: "?",
	       kernel_dwarf_path(a->kd));
	printf("Per source line (SELF: the sampled pc is on the line; TOTAL: also in functions\n"
	       "called from it; INLINED: the functions inlined there, outermost first)\n");
	printf("%8s %7s %8s  %-36s %s\n", "SELF", "SELF%", "TOTAL", "LINE", "INLINED");
	err = df_each_row(a->df, lines_sql, line_row, a);
	if (err)
		return err;
	printf("\nPer inline range (samples with the pc in the range: SELF at the leaf, TOTAL "
	       "anywhere)\n");
	return df_each_row(a->df, inst_sql, inst_row, a);
}

static int annotate_json(struct annotator *a)
{
	struct json j;
	int err;

	a->j = &j;
	json_begin(&j, stdout);
	json_open(&j, NULL, '{');
	json_str(&j, "function", a->func);
	json_str(&j, "vmlinux", kernel_dwarf_path(a->kd));
	json_u64(&j, "self_samples", a->self);
	json_u64(&j, "total_samples", a->total);
	json_open(&j, "lines", '[');
	err = df_each_row(a->df, lines_sql, line_row, a);
	json_close(&j, ']');
	json_open(&j, "inline_instances", '[');
	err = err ?: df_each_row(a->df, inst_sql, inst_row, a);
	json_close(&j, ']');
	json_close(&j, '}');
	json_end(&j);
	return err;
}

static int annotate(struct annotator *a)
{
	int err = stacks_name_frames(a->df, a->kd) ?: exec_bound(a->df, hit_sql, a->func);

	if (err)
		return err;
	a->total = df_scalar(a->df, "SELECT SUM(count) FROM hit", NULL);
	a->self = df_scalar(a->df, "SELECT SUM(count) FROM hit WHERE depth = 0", NULL);
	if (!a->total)
		return -ENODATA;
	err = df_errno(sqlite3_prepare_v2(df_db(a->df), range_sql, -1, &a->range, NULL));
	err = err ?: (a->json ? annotate_json(a) : annotate_text(a));
	sqlite3_finalize(a->range);
	return err;
}

int annotate_show(struct df *df, struct kernel_dwarf *kd, const char *func, bool json)
{
	struct annotator a = {.df = df, .kd = kd, .func = func, .json = json};

	return annotate(&a);
}
