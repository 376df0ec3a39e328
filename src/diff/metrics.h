/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kprotperf diff compares: named measures (a syscall's latency per
 * call, a kernel function's CPU time per run, ...) with one value per run on
 * each side (runs of data/runs.h), matched across the two recordings by name.
 */
#ifndef KP_DIFF_METRICS_H
#define KP_DIFF_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/stats.h"
#include "util/hist.h"

struct datafile;
struct features;
struct kernel_dwarf;
struct runs_value;

enum { DM_BASE, DM_HARD };

struct metric {
	char *name;
	struct stats_run *run[2]; /* per side, one per run */
	struct stats_result r;
	__u64 (*hist)[KP_HIST_BUCKETS]; /* per side; only where an interval needs them */
	bool absent[2]; /* a probed function absent on the side's kernel (oneside.h) */
	bool seen[2];	/* the side's recording has a row of it */
	/*
	 * Latencies: the calls made per run on each side, and their change
	 * (calls.base: calls per run), with an interval for the rows shown.
	 */
	double *ncalls[2];
	struct stats_result calls;
};

struct metric_set {
	const char *kind;  /* latency.kind: "syscall", "func"; NULL: a value per run (den 1) */
	const char *clock; /* latency_hist.clock, NULL: none (off-CPU) */
	bool samples;	   /* CPU samples: num is samples x period */
	size_t runs[2];
	double period[2]; /* ns per CPU sample */
	void *index;	  /* tsearch() tree of the metrics by name */
	struct metric **v;
	size_t n, cap;
	size_t shown; /* after metrics_finish(): v[0..shown) are the rows to print */
};

/* An empty set; period (ns per sample, per side) makes it a sample set, kind NULL. */
void metrics_init(struct metric_set *s, const char *kind, const char *clock, const size_t runs[2],
		  const double *period);
/* Where the rows of a data/runs.h reader go: side's values of s. */
struct metrics_sink {
	struct metric_set *s;
	int side;
};
/* A runs_value_fn: adds the row to the sink's values; -errno. */
int metrics_add(const struct runs_value *v, void *sink);
/*
 * Sorts by |delta_run|, the metrics with no time on either side last, and
 * gives the first top others (the rows printed) their intervals and
 * verdicts (the method by the runs, see diff/stats.h); latencies' calls per
 * run get theirs, by bootstrap or, with one run on a side, as Poisson counts.
 */
int metrics_finish(struct metric_set *s, struct datafile *const df[2], int top);
void metrics_free(struct metric_set *s);
/* The metric of that name; NULL: none. */
struct metric *metrics_find(const struct metric_set *s, const char *name);

/* Loaders, each for one side. */
int metrics_load_latency(struct metric_set *s, int side, struct datafile *df, const char *column);
int metrics_load_kernel_functions(struct metric_set *self, struct metric_set *total, int side,
				  struct datafile *df);
int metrics_load_inlines(struct metric_set *self, struct metric_set *total, int side,
			 struct datafile *df, struct kernel_dwarf *kd);
int metrics_load_features(struct metric_set *s, int side, struct datafile *df,
			  const struct features *f);
int metrics_load_wall(struct metric_set *s, int side, struct datafile *df);

/* A name seen inlined in one kernel and out of line in the other. */
struct metrics_inlining {
	char name[128];
	unsigned int how[2]; /* DM_INLINED | DM_OUT_OF_LINE */
};
#define DM_INLINED     1u
#define DM_OUT_OF_LINE 2u

int metrics_load_inlining_changes(struct datafile *const df[2], struct metrics_inlining **out,
				  size_t *n);

#endif
