/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A recording read run by run (record --repeat), for kprotperf diff: the
 * per-run views and each measure's value per run, by the names that match
 * across kernels.
 *
 * A recording's runs are the rows of its runs table, or the whole recording
 * as one run when that table is empty.  runs_prepare() makes the TEMP views
 * the readers below read:
 *   d_runs(run, idx)                 idx 0..runs-1; run NULL: the whole recording
 *   d_lat(run, kind, id, calls, done, total_ns, oncpu_ns, offcpu_ns)
 *   d_samples(run, kstack, count)    run is the idx
 */
#ifndef KP_DATA_RUNS_H
#define KP_DATA_RUNS_H

#include <stdbool.h>
#include <stddef.h>

struct datafile;

/* The views above; *runs: how many runs the recording holds. */
int runs_prepare(struct datafile *df, size_t *runs);

/* One value of a measure in one run: num over den (den 1 but for latencies: calls). */
struct runs_value {
	long long run;	  /* the run's idx */
	const char *name; /* NULL when the data file has none */
	double num, den;
	double calls; /* latencies: the calls made (den: those that returned); else 0 */
};

/* Gets each row; non-zero stops the walk and is returned. */
typedef int (*runs_value_fn)(const struct runs_value *v, void *ctx);

/*
 * For data/ readers: the rows (run idx, name, num, den[, calls]) of sql as
 * runs_values to fn.
 */
int runs_values(struct datafile *df, const char *sql, runs_value_fn fn, void *ctx);

/*
 * Per run, the latency column ("total_ns", "oncpu_ns", "offcpu_ns") of kind
 * "syscall" by syscall or "func" by probed function's name, with its calls done.
 */
int runs_latency(struct datafile *df, const char *kind, const char *column, runs_value_fn fn,
		 void *ctx);
/* Per run, the wall time of the workload (meta record.wall_ns without runs). */
int runs_wall(struct datafile *df, runs_value_fn fn, void *ctx);
/*
 * Per run, the kernel samples by function (clone suffix stripped): self at
 * the innermost frame of the leaf, inline or not; total anywhere on the stack.
 */
int runs_kernel_self(struct datafile *df, runs_value_fn fn, void *ctx);
int runs_kernel_total(struct datafile *df, runs_value_fn fn, void *ctx);

/*
 * Names the n inline instances of the TEMP table inline_stacks: inst i is
 * key(i), for runs_inline_samples(); once per df.
 */
int runs_inline_keys(struct datafile *df, size_t n, const char *(*key)(size_t i, void *ctx),
		     void *ctx);
/* Per run, the kernel samples by key: self with a pc in the instance, else anywhere. */
int runs_inline_samples(struct datafile *df, bool self, runs_value_fn fn, void *ctx);

/* How samples map to features (features/features.h): by frame name, by site kind; NULL: none. */
struct runs_feature_map {
	const char *(*of_frame)(const char *name, void *ctx);
	const char *(*of_site)(const char *kind, void *ctx);
	void *ctx;
};
/*
 * Per run, the kernel samples by feature: a stack whose sampled pc is on a
 * compiler-inserted site (data/protect.h) is the site's feature's; else the
 * first that of_frame() gives its frames, innermost first; "(unmapped)"
 * when none does.  A lost kernel stack is unmapped, a user-mode sample not
 * counted.  Once per df.
 */
int runs_features(struct datafile *df, const struct runs_feature_map *m, runs_value_fn fn,
		  void *ctx);
/*
 * The same over the whole recording: each feature's kernel samples and
 * the distinct sites they were on, most samples first.  Once per df, not
 * with runs_features().
 */
int runs_feature_totals(struct datafile *df, const struct runs_feature_map *m,
			int (*fn)(const char *feature, long long samples, long long sites,
				  void *ctx),
			void *ctx);

/*
 * After runs_feature_totals(): each feature's kernel samples by the function
 * they were spent for: the function holding the site a sample was on, else
 * the one above the sample's leaf frame (for a thunk: its caller, or for a
 * return thunk the function returned to); by feature, most samples first.
 */
int runs_feature_functions(struct datafile *df,
			   int (*fn)(const char *feature, const char *func, long long samples,
				     void *ctx),
			   void *ctx);

/* The latency histogram buckets of kind's names on one clock, each name's ids merged. */
struct runs_hist {
	const char *name; /* NULL when the data file has none */
	long long bucket;
	unsigned long long count;
};
int runs_latency_hists(struct datafile *df, const char *kind, const char *clock,
		       int (*fn)(const struct runs_hist *h, void *ctx), void *ctx);

/*
 * How the kernel has each function name (clone suffix stripped): inlined
 * (inline frames, recorded instances), out of line (frames, symbols record
 * --func probed), or both; in no order.
 */
int runs_inlining(struct datafile *df,
		  int (*fn)(const char *name, bool inlined, bool out_of_line, void *ctx),
		  void *ctx);

#endif
