/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The latency a recording measured, as the data file holds it: the latency
 * and latency_hist tables (per syscall, and per function record --func
 * probed), and the funcs, func_syscalls, func_contexts and func_stacks
 * tables of record --func.
 */
#ifndef KP_LATENCY_H
#define KP_LATENCY_H

#include <linux/types.h>

#include "data/samples.h"

struct datafile;

/*
 * The histogram of latency row (kind "syscall" or "func", id) and clock
 * "total" or "oncpu", KP_HIST_BUCKETS long: zero where nothing was counted.
 */
int latency_hist(struct datafile *df, const char *kind, long long id, const char *clock,
		 __u64 *hist);

/* One row of the latency table: a syscall, or a function probed by record --func. */
struct latency_row {
	long long id; /* syscall number or funcs.id */
	const char *name;
	const char *method, *symbol, *module; /* "" for syscalls and when unknown */
	long long calls, done, total_ns, oncpu_ns, offcpu_ns, max_ns;
};

/* Non-zero stops a walk and is returned. */
typedef int (*latency_row_fn)(const struct latency_row *r, void *ctx);
/* The syscalls' rows, in the table's order. */
int latency_syscalls(struct datafile *df, latency_row_fn fn, void *ctx);
/* The probed functions' rows, by funcs.id; one never called has zeros. */
int latency_funcs(struct datafile *df, latency_row_fn fn, void *ctx);

/*
 * The record --func patterns that matched nothing on the recorded kernel, by
 * name (none in files older than schema 5); non-zero from fn stops the walk.
 */
int latency_func_absent(struct datafile *df, int (*fn)(const char *pattern, void *ctx), void *ctx);

/* The id of syscall name, -1 when it has no latency row. */
long long latency_syscall_id(struct datafile *df, const char *name);
/* The funcs.id of the function named so (or probed at that symbol), -1 when none is. */
long long latency_func_id(struct datafile *df, const char *name);

/* Time inside one probed function during one syscall. */
struct latency_func_syscall {
	const char *func;
	const char *syscall; /* NULL: outside any syscall */
	long long nr, calls, total_ns;
	long long oncpu_ns; /* the syscall's on-CPU time, 0 when unknown */
};

typedef int (*latency_func_syscall_fn)(const struct latency_func_syscall *r, void *ctx);
/* The limit (func, syscall) pairs with calls, most time first. */
int latency_func_syscalls(struct datafile *df, int limit, latency_func_syscall_fn fn, void *ctx);

/* Time inside one probed function per slab cache. */
struct latency_func_context {
	const char *func, *context;
	long long calls, total_ns;
};

typedef int (*latency_func_context_fn)(const struct latency_func_context *r, void *ctx);
/* The limit (func, context) pairs, most time first. */
int latency_func_contexts(struct datafile *df, int limit, latency_func_context_fn fn, void *ctx);

/* How many functions record --func probed that func names (all if NULL), or -errno. */
long long latency_count_funcs(struct datafile *df, const char *func);
/*
 * The kernel stacks the probed functions were entered from (only func's,
 * by name or symbol probed, unless NULL): head is the function's name,
 * n the ns spent in it from that stack; no user stack.
 */
int latency_func_stacks(struct datafile *df, const char *func, samples_stack_fn fn, void *ctx);

#endif
