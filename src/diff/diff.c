// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprotperf diff: opens and checks the two recordings, loads every measure
 * of both (diff_load.c), estimates the changes (diff_stats.c) and prints
 * them (diff_out.c), or hands both to diff_folded() for --folded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cli.h"
#include "data/datafile.h"
#include "diff/diff.h"
#include "diff/diff_folded.h"
#include "diff/out.h"
#include "diff/prov.h"
#include "data/features.h"
#include "util/json.h"
#include "symbols/kernel_dwarf.h"
#include "symbols/stacks.h"

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
	int share; /* the table whose total change SHARE divides by */
} defs[T_N] = {
	[T_WALL] = {"workload", "Workload: wall time per run", "MEASURE", .share = T_WALL},
	[T_FEATURES] = {"features",
			"Hardening features: CPU time per run (each kernel sample counts for the"
			" innermost frame a feature names)",
			"FEATURE", .samples = true, .share = T_FEATURES},
	[T_SYSCALLS] = {"syscalls", "Syscalls: latency per call (entry to return)", "SYSCALL",
			"syscall", "total", "total_ns", false, T_SYSCALLS},
	[T_ONCPU] = {"syscalls_oncpu", "Syscalls: on-CPU time per call", "SYSCALL", "syscall",
		     "oncpu", "oncpu_ns", false, T_ONCPU},
	[T_OFFCPU] = {"syscalls_offcpu", "Syscalls: off-CPU time per call", "SYSCALL", "syscall",
		      NULL, "offcpu_ns", false, T_OFFCPU},
	[T_FUNCS] = {"functions", "Probed functions (record --func): latency per call", "FUNCTION",
		     "func", "total", "total_ns", false, T_SYSCALLS},
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
	struct diff_opts o;
	struct df *df[2];
	struct kernel_dwarf *kd[2];
	char nodebug[2][1024]; /* why a side has no DWARF, "" when it has */
	size_t runs[2];
	double period[2];
	struct features *feat;
	struct diff_notes notes;
	struct diff_table t[T_N];
	struct metrics_inlining *inl;
	size_t ninl;
};

/* 1 when the two files hold the same bytes, 0 when not, -errno. */
static int same_bytes(const char *a, const char *b, off_t size)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	char ba[65536], bb[65536];
	size_t na, nb;
	int same = 1;

	if (!fa || !fb)
		same = -errno;
	while (same == 1 && size > 0) {
		na = fread(ba, 1, sizeof(ba), fa);
		nb = fread(bb, 1, sizeof(bb), fb);
		if (na != nb || !na || memcmp(ba, bb, na))
			same = 0;
		size -= na;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static int check_same(const struct diff_opts *o)
{
	struct stat a, b;
	int same;

	if (stat(o->path[0], &a) || stat(o->path[1], &b))
		return -errno;
	same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (!same && a.st_size == b.st_size)
		same = same_bytes(o->path[0], o->path[1], a.st_size);
	if (same < 0)
		fprintf(stderr, "kprotperf diff: cannot read %s or %s: %s\n", o->path[0],
			o->path[1], strerror(-same));
	else if (same)
		fprintf(stderr,
			"kprotperf diff: BASE and HARDENED are the same recording (%s and %s):"
			" give a baseline recording and a hardened one\n",
			o->path[0], o->path[1]);
	return same ? -EINVAL : 0;
}

static int check_arch(struct diff_ctx *c)
{
	const char *a = df_meta(c->df[DM_BASE], "arch"), *b = df_meta(c->df[DM_HARD], "arch");

	if (!a || !b || !strcmp(a, b))
		return 0;
	fprintf(stderr,
		"kprotperf diff: BASE was recorded on %s and HARDENED on %s: recordings of"
		" different architectures cannot be compared\n",
		a, b);
	return -EINVAL;
}

static long long schema(struct df *df)
{
	return df_scalar(df, "PRAGMA user_version", NULL);
}

static int open_inputs(struct diff_ctx *c)
{
	int err = cli_open("diff", c->o.path[0], &c->df[DM_BASE])
			  ?: cli_open("diff", c->o.path[1], &c->df[DM_HARD])
			  ?: check_same(&c->o) ?: check_arch(c);

	if (!err && schema(c->df[DM_BASE]) != schema(c->df[DM_HARD]))
		diff_note(&c->notes,
			  "note: base is schema %lld and hardened schema %lld: what the older one"
			  " lacks reads as empty",
			  schema(c->df[DM_BASE]), schema(c->df[DM_HARD]));
	return err;
}

/* Each side's DWARF; one missing is a note, one unusable an error. */
static int open_debug(struct diff_ctx *c)
{
	char cmd[32];
	int side, err;

	for (side = 0; side < 2; side++) {
		/* an unusable file is said as "kprotperf diff: SIDE: why" */
		snprintf(cmd, sizeof(cmd), "diff: %s", diff_side_name[side]);
		err = cli_kdebug(cmd, c->df[side], c->o.vmlinux[side], NULL, &c->kd[side],
				 c->nodebug[side], sizeof(c->nodebug[side]));
		if (err)
			return err;
		if (!c->kd[side] && !c->o.folded)
			diff_note(&c->notes,
				  "note: %s: no inline frames, inline instances from record --func"
				  " only: %.900s",
				  diff_side_name[side], c->nodebug[side]);
	}
	return 0;
}

static int open_features(struct diff_ctx *c)
{
	char why[512] = "";
	int err = features_load(&c->feat, c->o.features, why, sizeof(why));

	/* why names the file, and the line when it is one */
	if (err)
		fprintf(stderr, "kprotperf diff: %s\n", why);
	return err;
}

static int run_folded(struct diff_ctx *c)
{
	int err = diff_folded(c->df[DM_BASE], c->kd[DM_BASE], c->df[DM_HARD], c->kd[DM_HARD],
			      c->o.normalize, stdout);

	if (err)
		fprintf(stderr, "kprotperf diff: folding %s and %s: %s\n", c->o.path[0],
			c->o.path[1], strerror(-err));
	return err;
}

static void init_tables(struct diff_ctx *c)
{
	int i;

	for (i = 0; i < T_N; i++) {
		c->t[i] = (struct diff_table){.key = defs[i].key,
					      .title = defs[i].title,
					      .col = defs[i].col,
					      .share = &c->t[defs[i].share].set,
					      .feat = i == T_FEATURES ? c->feat : NULL};
		metrics_init(&c->t[i].set, defs[i].kind, defs[i].clock, c->runs,
			defs[i].samples ? c->period : NULL);
	}
}

static int load_side(struct diff_ctx *c, int side)
{
	struct df *df = c->df[side];
	struct diff_table *t = c->t;
	int i, err = stacks_name_frames(df, c->kd[side]);

	for (i = 0; i < T_N && !err; i++)
		if (defs[i].kind)
			err = metrics_load_latency(&t[i].set, side, df, defs[i].column);
	return err ?: metrics_load_wall(&t[T_WALL].set, side, df)
		?: metrics_load_kernel_functions(&t[T_KSELF].set, &t[T_KTOTAL].set, side, df)
		?: metrics_load_inlines(&t[T_ISELF].set, &t[T_ITOTAL].set, side, df, c->kd[side])
		?: metrics_load_features(&t[T_FEATURES].set, side, df, c->feat);
}

static bool same_build(struct df *const df[2])
{
	const char *a = df_meta(df[0], "kernel.build_id"), *b = df_meta(df[1], "kernel.build_id");

	return a && b && *a && !strcmp(a, b);
}

static int load_all(struct diff_ctx *c)
{
	int side, i, err = 0;

	for (side = 0; side < 2 && !err; side++) {
		err = metrics_prepare(c->df[side], &c->runs[side]);
		c->period[side] = df_sample_period_ns(c->df[side]);
	}
	if (err)
		return err;
	diff_warnings(c->df, c->runs, &c->notes);
	init_tables(c);
	for (side = 0; side < 2 && !err; side++)
		err = load_side(c, side);
	for (i = 0; i < T_N && !err; i++)
		err = metrics_finish(&c->t[i].set, c->df, c->o.top);
	/* one build inlines alike on both sides: only the samples would differ */
	if (err || same_build(c->df))
		return err;
	return metrics_inlining_changes(c->df, &c->inl, &c->ninl);
}

static void print_side(struct diff_ctx *c, int side, FILE *f)
{
	struct df *df = c->df[side];

	fprintf(f, "# %-9s %s: kernel %s (build-id %s), %zu run%s of '%s', %s Hz, schema %lld\n",
		side ? "hardened:" : "base:", c->o.path[side],
		df_meta(df, "kernel.release") ?: "?", df_meta(df, "kernel.build_id") ?: "?",
		c->runs[side], c->runs[side] == 1 ? "" : "s",
		df_meta(df, "record.command") ?: df_meta(df, "record.mode") ?: "?",
		df_meta(df, "sampling.freq_hz") ?: "?", schema(df));
}

static int print_text(struct diff_ctx *c, FILE *f)
{
	static const int order[] = {T_WALL,  T_FEATURES, T_SYSCALLS, T_ONCPU, T_OFFCPU,
				    T_FUNCS, T_KSELF,	 T_KTOTAL,   T_ISELF, T_ITOTAL};
	size_t i;
	int n, err;

	fputs("# kprotperf diff\n", f);
	print_side(c, DM_BASE, f);
	print_side(c, DM_HARD, f);
	err = diff_provenance(c->df, f, NULL);
	for (n = 0; n < c->notes.n; n++)
		fprintf(f, "# %s\n", c->notes.v[n]);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		/* no probed functions on either side: no table to show */
		if (order[i] == T_FUNCS && !c->t[T_FUNCS].set.n)
			continue;
		diff_table_text(&c->t[order[i]], f);
	}
	diff_inlining_text(c->inl, c->ninl, c->o.top, same_build(c->df), f);
	return err;
}

static void json_side(struct diff_ctx *c, int side, struct json *j)
{
	struct df *df = c->df[side];

	json_open(j, diff_side_name[side], '{');
	json_str(j, "path", c->o.path[side]);
	json_str(j, "kernel_release", df_meta(df, "kernel.release"));
	json_str(j, "build_id", df_meta(df, "kernel.build_id"));
	json_str(j, "arch", df_meta(df, "arch"));
	json_str(j, "command", df_meta(df, "record.command"));
	json_u64(j, "schema", schema(df));
	json_u64(j, "runs", c->runs[side]);
	json_double(j, "sample_period_ns", c->period[side]);
	json_open(j, "debuginfo", '{');
	if (c->kd[side])
		json_str(j, "vmlinux", kernel_dwarf_path(c->kd[side]));
	else
		json_str(j, "missing", c->nodebug[side]);
	json_close(j, '}');
	json_close(j, '}');
}

static int print_json(struct diff_ctx *c, FILE *f)
{
	struct json j;
	int i, err;

	json_begin(&j, f);
	json_open(&j, NULL, '{');
	json_side(c, DM_BASE, &j);
	json_side(c, DM_HARD, &j);
	err = diff_provenance(c->df, f, &j);
	json_open(&j, "notes", '[');
	for (i = 0; i < c->notes.n; i++)
		json_str(&j, NULL, c->notes.v[i]);
	json_close(&j, ']');
	for (i = 0; i < T_N; i++)
		diff_table_json(&c->t[i], &j);
	diff_inlining_json(c->inl, c->ninl, c->o.top, &j);
	json_close(&j, '}');
	json_end(&j);
	return err;
}

static int run_tables(struct diff_ctx *c)
{
	int err = load_all(c);
	if (!err)
		err = c->o.json ? print_json(c, stdout) : print_text(c, stdout);
	if (err)
		fprintf(stderr, "kprotperf diff: reading %s and %s: %s\n", c->o.path[0],
			c->o.path[1], strerror(-err));
	return err;
}

static void cleanup(struct diff_ctx *c)
{
	int i;

	for (i = 0; i < T_N; i++)
		metrics_free(&c->t[i].set);
	free(c->inl);
	if (c->feat)
		features_free(c->feat);
	for (i = 0; i < 2; i++) {
		kernel_dwarf_close(c->kd[i]);
		if (c->df[i])
			df_close(c->df[i]);
	}
}

int diff_run(const struct diff_opts *o)
{
	struct diff_ctx *c = calloc(1, sizeof(*c));
	int err;

	if (!c) {
		fprintf(stderr, "kprotperf diff: %s\n", strerror(ENOMEM));
		return 1;
	}
	c->o = *o;
	/* a bad --features file fails before the slow part, reading the DWARF */
	err = c->o.folded ? 0 : open_features(c);
	err = err ?: open_inputs(c) ?: open_debug(c);
	if (!err)
		err = c->o.folded ? run_folded(c) : run_tables(c);
	cleanup(c);
	free(c);
	return err ? 1 : 0;
}
