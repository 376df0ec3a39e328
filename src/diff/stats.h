/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The statistics of kprotperf diff: how a measure changed from the base to
 * the hardened recording, with a 95% confidence interval and a verdict.
 *
 * A measure is a ratio per side, sum(num) / sum(den) over the side's runs:
 * latency per call (num: ns, den: calls) or time per run (num: ns of CPU
 * samples, den: 1).  Which interval applies depends on what was recorded:
 *  - 2 or more runs on both sides: a percentile bootstrap over runs;
 *  - one run on a side, latency: the delta method on the two latency
 *    histograms (a Mann-Whitney U test's p value on them besides);
 *  - one run on a side, sample counts: the counts as Poisson variates.
 */
#ifndef KP_DIFF_STATS_H
#define KP_DIFF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define DS_RESAMPLES 2000
/* fixed, so that the same two recordings always give the same intervals */
#define DS_SEED 0x6b70726f74706572ULL

enum stats_method {
	DS_NONE,      /* no interval: nothing to resample, no histogram */
	DS_BOOTSTRAP, /* runs resampled with replacement, per side */
	DS_HISTOGRAM, /* delta-method interval on the latency histograms */
	DS_POISSON,   /* sample counts as Poisson variates */
};

/* One run of one side. */
struct stats_run {
	double num, den;
};

struct stats_result {
	double base, hard;	   /* the measure per side: sum(num) / sum(den); 0 when no den */
	double base_den, hard_den; /* sum(den) per side: calls, or runs; 0: none to measure */
	double ratio;		   /* hard / base; INFINITY when base is 0 */
	double lo, hi;		   /* 95% interval of the ratio (relative change: ratio - 1) */
	double base_run, hard_run; /* mean num per run: time per run */
	double delta_run;	   /* hard_run - base_run: the contribution to the change */
	double delta_lo, delta_hi; /* its 95% interval; NAN when unknown */
	double p;		   /* Mann-Whitney p value of the histograms, else NAN */
	bool sig;		   /* the interval excludes no change (ratio 1) */
	enum stats_method method;
};

/* The point estimates; no interval yet (method DS_NONE, sig false). */
void stats_point(const struct stats_run *b, size_t nb, const struct stats_run *h, size_t nh,
		 struct stats_result *r);
/* Needs nb, nh >= 2; resamples DS_RESAMPLES times from DS_SEED.  -ENOMEM or 0. */
int stats_bootstrap(const struct stats_run *b, size_t nb, const struct stats_run *h, size_t nh,
		    struct stats_result *r);
/* Two-sided p value of the U test of h against b, over the same buckets; z if not NULL. */
double stats_mann_whitney(const __u64 *b, const __u64 *h, size_t nbuckets, double *z);
/* Interval and verdict of one-run latency from the KP_HIST_BUCKETS histograms. */
void stats_histogram(const __u64 *b, const __u64 *h, struct stats_result *r);
/*
 * Interval and verdict of sample counts with one run on a side: r holds
 * stats_point()'s time per run over nb and nh runs, period_* ns per sample.
 */
void stats_poisson(size_t nb, double period_b, size_t nh, double period_h, struct stats_result *r);
/*
 * The same for any rate with one run on a side: the measure of a side is
 * w x count / exposure, count (c*) a Poisson variate of events of weight w*
 * (ns per sample, instructions per execution) over exposure e* (runs,
 * calls).  Sets the interval of the ratio and of delta, the difference of
 * the measures (delta_lo, delta_hi), sig and method; nothing without
 * exposure.
 */
void stats_poisson_rate(double cb, double eb, double wb, double ch, double eh, double wh,
			double delta, struct stats_result *r);
/*
 * The mean of v[0..n) and its 95% interval (Student's t, the runs' spread):
 * the interval NAN with fewer than 2 values.  n 0: all NAN.
 */
void stats_mean_interval(const double *v, size_t n, double *mean, double *lo, double *hi);
/*
 * Welch's 95% interval of mean(h) - mean(b) (nb, nh >= 2; unequal
 * variances, Welch-Satterthwaite's degrees of freedom) into lo and hi: the
 * point itself when neither side varies.
 */
void stats_welch(const double *b, size_t nb, const double *h, size_t nh, double *lo, double *hi);
/*
 * The two-sided p value of Welch's t test of mean(h) = mean(b) (nb, nh >=
 * 2; NAN otherwise): 0 or 1 when neither side varies.
 */
double stats_welch_p(const double *b, size_t nb, const double *h, size_t nh);
/*
 * Holm's step-down procedure over n tests of p values p (NAN: no test):
 * sig[i] when test i is rejected with the family-wise error held at alpha.
 * -ENOMEM or 0.
 */
int stats_holm(const double *p, size_t n, double alpha, bool *sig);
const char *stats_method_name(enum stats_method m);

#endif
