// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --inline.  The instances are those the samples fell into (known
 * from the kernel's DWARF, by their DIE) and those record --func probed
 * (known from the data file, even without DWARF).  An instance's samples are
 * those with an address inside its ranges: at the leaf (self) or anywhere on
 * the stack (total, which adds the functions it called).  For an instance
 * with a DIE the frames table says which stacks those are; for one without
 * (no DWARF, or none that matches what was recorded) that test is made on
 * the recorded ranges.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fmt.h"
#include "data/datafile.h"
#include "util/hist.h"
#include "symbols/inlines.h"
#include "util/json.h"
#include "symbols/kernel_dwarf.h"
#include "report/report.h"
#include "report/report_inline.h"
#include "symbols/symbolize.h"

static struct inl_inst *new_inst(struct inl_insts *s)
{
	struct inl_inst *v = reallocarray(s->v, s->n + 1, sizeof(*v));

	if (!v)
		return NULL;
	s->v = v;
	v = &s->v[s->n++];
	memset(v, 0, sizeof(*v));
	v->id = -1;
	v->est_ns = -1;
	return v;
}

static struct inl_inst *by_die(struct inl_insts *s, __u64 die)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].die == die)
			return &s->v[i];
	return NULL;
}

/*
 * A new instance as the DWARF describes it, its ranges moved to where the
 * kernel ran, and its DIE in inline_dies for its stacks to be found by.
 */
static int from_dwarf(struct inl_insts *s, __u64 die, __u64 func_die, struct inl_inst **out)
{
	struct inline_instance ii;
	struct inl_inst *v;
	size_t i;
	int err;

	err = inlines_at(kernel_dwarf_debuginfo(s->kd), die, func_die, &ii);
	if (err)
		return err;
	v = new_inst(s);
	if (v)
		v->r = calloc(ii.nranges ? ii.nranges : 1, sizeof(*v->r));
	if (!v || !v->r) {
		inlines_free_one(&ii);
		return -ENOMEM;
	}
	snprintf(v->func, sizeof(v->func), "%s", ii.func);
	snprintf(v->parent, sizeof(v->parent), "%s", ii.parent);
	snprintf(v->site, sizeof(v->site), "%s:%d", ii.call_file ?: "?", ii.call_line);
	for (i = 0; i < ii.nranges; i++)
		v->r[i] = (struct inline_range){kernel_dwarf_runtime(s->kd, ii.ranges[i].lo),
						kernel_dwarf_runtime(s->kd, ii.ranges[i].hi)};
	v->nr = ii.nranges;
	v->bytes = ii.bytes;
	v->die = die;
	inlines_free_one(&ii);
	*out = v;
	return df_insert(s->df, "INSERT INTO inline_dies VALUES(?,?)", "ii", (long long)die,
			 (long long)(v - s->v));
}

static int sampled_row(sqlite3_stmt *st, void *ctx)
{
	struct inl_inst *v;
	int err = from_dwarf(ctx, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), &v);

	/* a DIE the DWARF cannot take back is no instance to show */
	return err == -ENOMEM ? err : 0;
}

/* Each instance DIE samples fell into, with its function's. */
static const char sampled_sql[] =
	"SELECT die, MAX(func_die) FROM frames WHERE inl = 1 GROUP BY die";

/* The stacks through each instance with a DIE, and whether at the leaf. */
static const char die_stacks_sql[] =
	"INSERT INTO inline_stacks SELECT d.inst, f.stack, MAX(f.depth = 0) FROM frames f"
	" JOIN inline_dies d ON d.die = f.die WHERE f.inl = 1 GROUP BY f.stack, f.die";

/* The stacks with a pc in the recorded ranges of an instance without DIE. */
static const char range_stacks_sql[] =
	"INSERT INTO inline_stacks SELECT r.inst, f.stack, MAX(f.depth = 0) FROM inline_ranges r"
	" JOIN frames f ON f.space = 'k' AND f.sub = 0 AND f.pc >= r.lo AND f.pc < r.hi"
	" GROUP BY r.inst, f.stack";

/* "0xlo-0xhi ..." as recorded, also into inline_ranges as v's. */
static int parse_ranges(struct inl_insts *s, struct inl_inst *v, const char *text)
{
	unsigned long long lo, hi;
	const char *p = text;
	int used, err = 0;

	v->r = calloc(strlen(text) / 8 + 1, sizeof(*v->r));
	if (!v->r)
		return -ENOMEM;
	while (!err && sscanf(p, " %llx-%llx%n", &lo, &hi, &used) == 2) {
		v->r[v->nr++] = (struct inline_range){lo, hi};
		p += used;
		err = df_insert(s->df, "INSERT INTO inline_ranges VALUES(?,?,?)", "iii",
				(long long)(v - s->v), (long long)lo, (long long)hi);
	}
	return err;
}

/* With DWARF, the instance at the recorded one's entry: by its DIE, NULL when none is. */
static int dwarf_match(struct inl_insts *s, const char *name, __u64 entry, struct inl_inst **out)
{
	const struct sym_result *r;
	const struct sym_frame *fn;
	unsigned int i;
	int err;

	*out = NULL;
	err = kernel_dwarf_symbolize(s->kd, entry, &r);
	if (err || !r->n)
		return err;
	fn = &r->frames[r->n - 1];
	for (i = 0; i < r->n; i++) {
		if (!r->frames[i].inlined || !r->frames[i].func || strcmp(r->frames[i].func, name))
			continue;
		*out = by_die(s, r->frames[i].die);
		if (*out)
			return 0;
		err = from_dwarf(s, r->frames[i].die, fn->inlined ? 0 : fn->die, out);
		/* what the DWARF cannot take back is shown as recorded */
		return err == -ENOMEM ? err : 0;
	}
	return 0;
}

/* The instance a recorded one is: from the DWARF when it can tell, else as recorded. */
static int match_recorded(struct inl_insts *s, sqlite3_stmt *st, struct inl_inst **out)
{
	const char *name = (const char *)sqlite3_column_text(st, 1);
	struct inl_inst *v;
	int err;

	err = s->kd ? dwarf_match(s, name, sqlite3_column_int64(st, 5), out) : 0;
	if (err || (s->kd && *out))
		return err;
	v = new_inst(s);
	if (!v)
		return -ENOMEM;
	snprintf(v->func, sizeof(v->func), "%s", name);
	snprintf(v->parent, sizeof(v->parent), "%s", sqlite3_column_text(st, 2));
	snprintf(v->site, sizeof(v->site), "%s:%d",
		 sqlite3_column_text(st, 3) ?: (const unsigned char *)"?",
		 sqlite3_column_int(st, 4));
	v->bytes = sqlite3_column_int64(st, 7);
	*out = v;
	return parse_ranges(s, v, (const char *)sqlite3_column_text(st, 6) ?: "");
}

static int recorded_row(sqlite3_stmt *st, void *ctx)
{
	struct inl_insts *s = ctx;
	__u64 hist[KP_HIST_BUCKETS];
	unsigned long long total;
	struct inl_inst *v;
	int err = match_recorded(s, st, &v);

	if (err)
		return err;
	v->id = sqlite3_column_int64(st, 0);
	snprintf(v->method, sizeof(v->method), "%s", sqlite3_column_text(st, 8));
	v->calls = sqlite3_column_int64(st, 9);
	total = sqlite3_column_int64(st, 10);
	v->avg = v->calls ? total / v->calls : 0;
	err = report_load_hist(s->df, "func", v->id, "total", hist);
	v->p99 = kp_hist_quantile(hist, 0.99, sqlite3_column_int64(st, 11));
	return err;
}

/* The instances record --func probed, with how long they took. */
static const char recorded_sql[] =
	"SELECT i.func, i.name, i.parent, i.call_file, i.call_line, i.entry, i.ranges, i.bytes,"
	" f.method, l.done, l.total_ns, l.max_ns FROM inlines i JOIN funcs f ON f.id = i.func"
	" LEFT JOIN latency l ON l.kind = 'func' AND l.id = i.func ORDER BY i.func";

static int count_row(sqlite3_stmt *st, void *ctx)
{
	struct inl_insts *s = ctx;
	struct inl_inst *v = &s->v[sqlite3_column_int64(st, 0)];

	v->self = sqlite3_column_int64(st, 1);
	v->total = sqlite3_column_int64(st, 2);
	return 0;
}

static const char count_sql[] =
	"SELECT h.inst, SUM(CASE WHEN h.self THEN s.n ELSE 0 END), SUM(s.n) FROM (SELECT inst,"
	" stack, MAX(self) AS self FROM inline_stacks GROUP BY inst, stack) h"
	" JOIN kstack_samples s ON s.stack = h.stack GROUP BY h.inst";

/* inline_dies and inline_ranges: how instances with and without a DIE find their stacks. */
static const char tables_sql[] =
	"CREATE TEMP TABLE inline_stacks(inst INTEGER, stack INTEGER, self INTEGER);"
	"CREATE TEMP TABLE inline_dies(die INTEGER PRIMARY KEY, inst INTEGER);"
	"CREATE TEMP TABLE inline_ranges(inst INTEGER, lo INTEGER, hi INTEGER);";

int inl_insts_load(struct inl_insts *s, struct df *df, struct kernel_dwarf *kd)
{
	sqlite3 *db = df_db(df);
	int err;

	*s = (struct inl_insts){.df = df, .kd = kd};
	err = df_errno(sqlite3_exec(db, tables_sql, NULL, NULL, NULL));
	err = err ?: (kd ? df_each_row(df, sampled_sql, sampled_row, s) : 0);
	err = err ?: df_each_row(df, recorded_sql, recorded_row, s);
	err = err ?: df_errno(sqlite3_exec(db, die_stacks_sql, NULL, NULL, NULL));
	err = err ?: df_errno(sqlite3_exec(db, range_stacks_sql, NULL, NULL, NULL));
	return err ?: df_each_row(df, count_sql, count_row, s);
}

void inl_insts_free(struct inl_insts *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].r);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* Samples per kernel function on the stack, clones (name.isra.0, name.cold) counted as name. */
static const char parent_samples_sql[] =
	"CREATE TEMP TABLE parent_samples(name TEXT PRIMARY KEY, n INTEGER);"
	"INSERT INTO parent_samples SELECT f.base, SUM(s.n) FROM (SELECT DISTINCT stack,"
	" kp_func_base(name) AS base FROM frames WHERE space = 'k' AND sub = 0) f"
	" JOIN kstack_samples s ON s.stack = f.stack GROUP BY f.base";

/* A parent's samples, and its calls when record --func timed it as a function. */
static const char parent_sql[] =
	"SELECT (SELECT n FROM parent_samples WHERE name = ?1), (SELECT l.done FROM latency l"
	" JOIN funcs f ON l.kind = 'func' AND l.id = f.id WHERE f.name = ?1 AND f.method NOT IN"
	" ('inline-kprobe', 'samples'))";

/* Each instance's parent's samples, and its time per parent call when the parent was probed. */
static int per_parent(struct inl_insts *s, double period_ns)
{
	struct inl_inst *v;
	sqlite3_stmt *st;
	long long calls;
	size_t i;
	int rc = sqlite3_prepare_v2(df_db(s->df), parent_sql, -1, &st, NULL);

	for (i = 0; rc == SQLITE_OK && i < s->n; i++) {
		v = &s->v[i];
		sqlite3_bind_text(st, 1, v->parent, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		v->parent_total = sqlite3_column_int64(st, 0);
		calls = sqlite3_column_int64(st, 1);
		if (calls > 0 && period_ns > 0)
			v->est_ns = v->total * period_ns / calls;
		rc = sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK || rc == SQLITE_DONE ? 0 : df_errno(rc);
}

static int cmp_inst(const void *a, const void *b)
{
	const struct inl_inst *x = a, *y = b;

	/* what record --func was asked to measure comes first */
	if ((x->id >= 0) != (y->id >= 0))
		return x->id >= 0 ? -1 : 1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->func, y->func);
}

static void print_text(const struct inl_insts *s, int top, FILE *f)
{
	char est[32], avg[32], p99[32];
	const struct inl_inst *v;
	size_t i, k;

	fputs("Inline instances, those probed by record --func first. SELF: samples in the\n"
	      "instance's ranges; TOTAL: also in the functions called from them; %PARENT: of\n"
	      "the samples with the parent on the stack; EST/CALL: TOTAL x sample period /\n"
	      "the parent's calls (when record --func timed the parent); CALLS, AVG, P99:\n"
	      "timed per invocation (METHOD)\n",
	      f);
	fprintf(f, "%-20s %-20s %-22s %6s %6s %6s %7s %9s %-13s %7s %9s %9s\n", "INLINED", "PARENT",
		"CALL SITE", "BYTES", "SELF", "TOTAL", "%PARENT", "EST/CALL", "METHOD", "CALLS",
		"AVG", "P99");
	for (i = 0; i < s->n && i < (size_t)top; i++) {
		v = &s->v[i];
		strcpy(est, "-");
		strcpy(avg, "-");
		strcpy(p99, "-");
		if (v->est_ns >= 0)
			fmt_ns(est, sizeof(est), (unsigned long long)v->est_ns);
		if (v->calls) {
			fmt_ns(avg, sizeof(avg), v->avg);
			fmt_ns(p99, sizeof(p99), v->p99);
		}
		fprintf(f, "%-20s %-20s %-22s %6llu %6lld %6lld %6.1f%% %9s %-13s %7llu %9s %9s\n",
			v->func, v->parent, v->site, (unsigned long long)v->bytes, v->self,
			v->total, v->parent_total ? 100.0 * v->total / v->parent_total : 0.0, est,
			*v->method ? v->method : "samples", v->calls, avg, p99);
		fputs("    ranges:", f);
		for (k = 0; k < v->nr; k++)
			fprintf(f, " 0x%llx-0x%llx", (unsigned long long)v->r[k].lo,
				(unsigned long long)v->r[k].hi);
		fputc('\n', f);
	}
	if (!s->n)
		fputs("(no inline instance with samples or probes)\n", f);
}

static void print_json(const struct inl_insts *s, int top, struct json *j)
{
	const struct inl_inst *v;
	char buf[64];
	size_t i, k;

	json_open(j, "inline_instances", '[');
	for (i = 0; i < s->n && i < (size_t)top; i++) {
		v = &s->v[i];
		json_open(j, NULL, '{');
		json_str(j, "inlined", v->func);
		json_str(j, "parent", v->parent);
		json_str(j, "call_site", v->site);
		json_u64(j, "bytes", v->bytes);
		json_open(j, "ranges", '[');
		for (k = 0; k < v->nr; k++) {
			snprintf(buf, sizeof(buf), "0x%llx-0x%llx", (unsigned long long)v->r[k].lo,
				 (unsigned long long)v->r[k].hi);
			json_str(j, NULL, buf);
		}
		json_close(j, ']');
		json_u64(j, "self_samples", v->self);
		json_u64(j, "total_samples", v->total);
		json_u64(j, "parent_samples", v->parent_total);
		if (v->est_ns >= 0)
			json_double(j, "est_ns_per_parent_call", v->est_ns);
		json_str(j, "method", *v->method ? v->method : "samples");
		if (v->calls) {
			json_u64(j, "calls", v->calls);
			json_u64(j, "avg_ns", v->avg);
			json_u64(j, "p99_ns", v->p99);
		}
		json_close(j, '}');
	}
	json_close(j, ']');
}

int report_inline(struct df *df, struct kernel_dwarf *kd, int top, FILE *f, struct json *j)
{
	struct inl_insts s = {};
	int err;

	err = df_errno(sqlite3_exec(df_db(df), parent_samples_sql, NULL, NULL, NULL));
	err = err ?: inl_insts_load(&s, df, kd);
	err = err ?: per_parent(&s, df_sample_period_ns(df));
	if (!err) {
		qsort(s.v, s.n, sizeof(*s.v), cmp_inst);
		if (j)
			print_json(&s, top, j);
		else
			print_text(&s, top, f);
	}
	inl_insts_free(&s);
	return err;
}
