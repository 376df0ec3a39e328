/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The readers of a boot recording's tables (boot.h, schema 10): whether a
 * file is one, and its runs, initcalls, functions and their misses, row by
 * row, for the views of src/boot/.  Every run a row names is checked to be
 * one of the recording's (meta boot.runs); a bad one is -EBADMSG with the
 * problem kept for cli_read_error().
 */
#ifndef KP_DATA_BOOT_READ_H
#define KP_DATA_BOOT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "data/model.h"

struct datafile;

/* the most boots one recording may hold: the views keep every function's value per boot */
#define BOOT_RUNS_MAX 100

/* Whether df is a boot recording (its meta has boot.runs). */
bool boot_present(struct datafile *df);
/* meta boot.runs into *runs: 1 to BOOT_RUNS_MAX, else -EBADMSG (said as query_bad). */
int boot_nruns(struct datafile *df, size_t *runs);

/* One boot: its times (ns) and instruction counts; -1 where the recording has none. */
struct boot_run_row {
	size_t run;
	long long clock_offset_ns, initcalls_end_ns, first_user_ns;
	long long entry_insns, first_user_insns;
	long long initcalls;
};
typedef int (*boot_run_fn)(const struct boot_run_row *r, void *ctx);
/* Each row of boot_runs, by run; non-zero from fn stops the walk and is returned. */
int boot_runs_each(struct datafile *df, boot_run_fn fn, void *ctx);

struct boot_initcall_row {
	size_t run;
	const char *name;
	long long start_ns, ns, ret;
};
typedef int (*boot_initcall_fn)(const struct boot_initcall_row *r, void *ctx);
/* Each initcall of each run, by run and sequence. */
int boot_initcalls_each(struct datafile *df, boot_initcall_fn fn, void *ctx);

struct boot_func_row {
	size_t run;
	const char *name, *module;
	__u64 insns;
};
typedef int (*boot_func_fn)(const struct boot_func_row *r, void *ctx);
/* Each function of each run, by name, module and run. */
int boot_funcs_each(struct datafile *df, boot_func_fn fn, void *ctx);

struct boot_miss_row {
	const char *name, *module;
	__u64 v[MODEL_STATS]; /* summed over the runs */
};
typedef int (*boot_miss_fn)(const struct boot_miss_row *r, void *ctx);
/* Per function, its misses in geometry geom summed over the runs, by name and module. */
int boot_misses_each(struct datafile *df, unsigned int geom, boot_miss_fn fn, void *ctx);

/* One row of a function's model counts in one run (schema 12 for the TLBs and the events). */
enum boot_model_what {
	BOOT_ROW_MISSES, /* v: MODEL_STATS counts of geometry geom */
	BOOT_ROW_TLB,	 /* v[0], v[1]: I-TLB and D-TLB misses in geometry geom */
	BOOT_ROW_EVENT,	 /* kind (-1: "-"); v[0] executions, v[1] TLB flushes */
	BOOT_ROW_THUNKS, /* v[0], v[1]: entries of a retpoline, of a return thunk */
	BOOT_ROW_CYCLES, /* v: the timing model's cycles, then their stack (1 + MODEL_CYCS) */
};
struct boot_model_row {
	size_t run;
	const char *name, *module;
	enum boot_model_what what;
	int kind;
	__u64 v[1 + MODEL_CYCS]; /* the most a row has: its cycles and their stack */
};
typedef int (*boot_model_fn)(const struct boot_model_row *r, void *ctx);
/*
 * Each function's counts per run: its misses and TLB misses in geometry
 * geom (none when geom is not the recording's), then its events and its
 * thunks' entries, and with the timing model (meta model.mode timing) its
 * cycles.  A recording older than schema 12 has none of the events, TLBs and thunks.
 */
int boot_model_each(struct datafile *df, unsigned int geom, boot_model_fn fn, void *ctx);

#endif
