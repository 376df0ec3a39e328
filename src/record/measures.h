/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one run of a recording added to the --func and --blocks measures,
 * for a runs provider (record.h's struct record_runs: kprotperf explore),
 * which decides from it what to run next.  Each call of measures_take()
 * gives the difference from the previous one.
 */
#ifndef KP_MEASURES_H
#define KP_MEASURES_H

#include <stddef.h>
#include <linux/types.h>

#include "kprotperf.h"

struct blocks;
struct funcs;
struct measures;

/* Complete calls of the --blocks functions in one context. */
struct run_context {
	char ctx[KP_CTX_LEN + 1]; /* the slab cache, "" none */
	int nr;			  /* the syscall, -1 none */
	__u64 calls, insns;	  /* this run's, and the instructions they executed */
	__u64 trips;		  /* the most trips of a loop in one of them */
};

struct run_measures {
	__u64 func_calls, func_ns;     /* --func: returns in this run and their time */
	__u64 calls;		       /* --blocks: complete calls in this run */
	const struct run_context *ctx; /* by context; valid until the next measures_take() */
	size_t nctx;
	const __u64 *blocks; /* this run's executions of each block, function after function */
	size_t nblocks;
	const __u64 *trips; /* each counted loop's most trips in one call so far, likewise */
	size_t nloops;
};

int measures_new(struct measures **out);
void measures_free(struct measures *m);
/* What has come since the last call (the whole recording at the first), into *out. */
int measures_take(struct measures *m, const struct funcs *f, struct blocks *b,
		  struct run_measures *out);

#endif
