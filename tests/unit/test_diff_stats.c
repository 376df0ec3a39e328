// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff's statistics on data whose truth is known: the Mann-Whitney U test
 * against values computed by hand, the bootstrap's reproducibility and its
 * coverage of a known ratio, and the verdicts on no change and on a clear 2x.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "diff/stats.h"
#include "util/hist.h"

/* The test's own data generator, independent of the bootstrap's. */
static __u64 seed;

static double uniform(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((seed >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(double mean, double sd)
{
	return mean + sd * sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* n runs of 1000 calls each, whose latency per call is normal(mean, sd) per run. */
static void runs(struct stats_run *v, size_t n, double mean, double sd)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (struct stats_run){1000 * normal(mean, sd), 1000};
}

static void compare(const struct stats_run *b, size_t nb, const struct stats_run *h, size_t nh,
		    struct stats_result *r)
{
	stats_point(b, nb, h, nh, r);
	assert_int_equal(stats_bootstrap(b, nb, h, nh, r), 0);
}

/*
 * Values below 8 ns have a bucket each.  base {1, 2, 3}, hardened {2, 4, 5}:
 * U = 1.5 + 3 + 3 = 7.5 against a mean of 4.5; the tie at 2 makes the
 * variance 9/12 * (7 - 6/30) = 5.1: z = 3 / sqrt(5.1) = 1.3284, p = 0.18404.
 */
static void test_mann_whitney_by_hand(void **unused)
{
	__u64 b[8] = {0, 1, 1, 1}, h[8] = {0, 0, 1, 0, 1, 1};
	__u64 b2[8] = {0, 1, 1}, h2[8] = {0, 0, 0, 1, 1};
	double z;

	assert_float_equal(stats_mann_whitney(b, h, 8, &z), 0.1840386, 1e-6);
	assert_float_equal(z, 1.3284223, 1e-6);
	/* no ties: {1, 2} against {3, 4}, U = 4, var = 4/12 * 5, p = 0.12134 */
	assert_float_equal(stats_mann_whitney(b2, h2, 8, &z), 0.1213353, 1e-6);
	assert_float_equal(z, 1.5491933, 1e-6);
	/* the other way round: the same p, z negative */
	assert_float_equal(stats_mann_whitney(h2, b2, 8, &z), 0.1213353, 1e-6);
	assert_float_equal(z, -1.5491933, 1e-6);
}

static void fill_hist(__u64 *hist, double mean, double sd, int n)
{
	int i;

	memset(hist, 0, KP_HIST_BUCKETS * sizeof(*hist));
	for (i = 0; i < n; i++)
		hist[kp_hist_bucket((__u64)normal(mean, sd))]++;
}

/* One run a side: the histograms decide, identical ones are no change. */
static void test_histogram_identical_and_doubled(void **unused)
{
	__u64 b[KP_HIST_BUCKETS], h[KP_HIST_BUCKETS];
	struct stats_run rb = {1000 * 10000.0, 1000}, rh = {1000 * 20000.0, 1000};
	struct stats_result r;

	seed = 1;
	fill_hist(b, 10000, 1000, 1000);
	stats_point(&rb, 1, &rb, 1, &r);
	stats_histogram(b, b, &r);
	assert_int_equal(r.method, DS_HISTOGRAM);
	assert_float_equal(r.p, 1.0, 1e-9);
	assert_false(r.sig);
	assert_true(r.lo < 1 && r.hi > 1);
	fill_hist(h, 20000, 2000, 1000);
	stats_point(&rb, 1, &rh, 1, &r);
	stats_histogram(b, h, &r);
	assert_true(r.sig);
	assert_true(r.p < 1e-6);
	assert_float_equal(r.ratio, 2.0, 1e-9);
	assert_true(r.lo < 2 && r.hi > 2);
	assert_true(r.lo > 1.9 && r.hi < 2.1);
}

static void test_bootstrap_reproducible(void **unused)
{
	struct stats_run b[5], h[5];
	struct stats_result r1, r2;

	seed = 7;
	runs(b, 5, 100, 10);
	runs(h, 5, 130, 10);
	compare(b, 5, h, 5, &r1);
	compare(b, 5, h, 5, &r2);
	assert_int_equal(r1.method, DS_BOOTSTRAP);
	assert_memory_equal(&r1, &r2, sizeof(r1));
	assert_true(r1.lo < r1.ratio && r1.ratio < r1.hi);
	assert_true(r1.delta_lo < r1.delta_run && r1.delta_run < r1.delta_hi);
}

/*
 * 300 experiments of 10 runs a side, the true ratio 1.5: the 95% interval
 * should hold it about 95% of the time; a percentile bootstrap on 10 runs is
 * known to fall a little short, so at least 88%.
 */
static void test_bootstrap_coverage(void **unused)
{
	struct stats_run b[10], h[10];
	struct stats_result r;
	int i, covered = 0;

	seed = 42;
	for (i = 0; i < 300; i++) {
		runs(b, 10, 100, 10);
		runs(h, 10, 150, 15);
		compare(b, 10, h, 10, &r);
		covered += r.lo <= 1.5 && 1.5 <= r.hi;
	}
	assert_true(covered >= 264);
	assert_true(covered < 300);
}

/*
 * With 5 runs a side, as record --repeat 5 gives, the plain percentile
 * interval covers the truth in well under 95% of the trials; the expanded
 * one must hold its level.
 */
static void test_bootstrap_coverage_five_runs(void **unused)
{
	struct stats_run b[5], h[5];
	struct stats_result r;
	int i, covered = 0;

	seed = 7;
	for (i = 0; i < 400; i++) {
		runs(b, 5, 100, 10);
		runs(h, 5, 150, 15);
		compare(b, 5, h, 5, &r);
		covered += r.lo <= 1.5 && 1.5 <= r.hi;
	}
	print_message("5 + 5 runs: the interval covered the true ratio in %d of 400 trials\n",
		      covered);
	assert_true(covered >= 372);
}

/* Per-call latencies of 5 runs (mean 100), and the same runs twice as slow. */
static void test_bootstrap_no_change_and_2x(void **unused)
{
	static const double lat[5] = {95, 100, 105, 98, 102};
	struct stats_run b[5], h[5];
	struct stats_result r;
	int i;

	for (i = 0; i < 5; i++) {
		b[i] = (struct stats_run){1000 * lat[i], 1000};
		h[i] = (struct stats_run){2000 * lat[i], 1000};
	}
	compare(b, 5, b, 5, &r);
	assert_false(r.sig);
	assert_float_equal(r.ratio, 1.0, 1e-12);
	assert_true(r.lo < 1 && r.hi > 1);
	compare(b, 5, h, 5, &r);
	assert_true(r.sig);
	assert_float_equal(r.ratio, 2.0, 1e-12);
	assert_true(r.lo < 2 && r.hi > 2);
	assert_true(r.lo > 1.85 && r.hi < 2.15);
}

/* A measure seen on one side only: a ratio of infinity, and still a verdict. */
static void test_bootstrap_new(void **unused)
{
	struct stats_run b[3] = {{0, 1}, {0, 1}, {0, 1}}, h[3] = {{5, 1}, {6, 1}, {7, 1}};
	struct stats_result r;

	compare(b, 3, h, 3, &r);
	assert_true(isinf(r.ratio));
	assert_true(r.sig);
	assert_float_equal(r.delta_run, 6, 1e-12);
}

/* 1000 against 1000 samples in one run: nothing; 1000 against 2000: twice the CPU time. */
static void test_poisson(void **unused)
{
	struct stats_run b = {1000 * 1e7, 1}, same = b, twice = {2000 * 1e7, 1};
	struct stats_result r;

	stats_point(&b, 1, &same, 1, &r);
	stats_poisson(1, 1e7, 1, 1e7, &r);
	assert_int_equal(r.method, DS_POISSON);
	assert_false(r.sig);
	assert_true(r.lo < 1 && r.hi > 1);
	stats_point(&b, 1, &twice, 1, &r);
	stats_poisson(1, 1e7, 1, 1e7, &r);
	assert_true(r.sig);
	assert_true(r.lo < 2 && r.hi > 2 && r.lo > 1.8 && r.hi < 2.2);
	/* sd of the difference: sqrt(1000 + 2000) samples of 10 ms */
	assert_float_equal(r.delta_hi - r.delta_run, 1.959964 * sqrt(3000) * 1e7, 1e4);
}

/*
 * Welch's t test against closed forms: two runs a side of equal spread have
 * 2 degrees of freedom, P(|T| > t) = 1 - t / sqrt(2 + t^2); five a side 8,
 * whose 2.5% and 0.5% quantiles are tabled: 2.306004 and 3.355387.
 */
static void test_welch_p(void **unused)
{
	const double b2[2] = {0, 2}, h2[2] = {2, 4}, h10[2] = {10, 12};
	const double b5[5] = {1, 2, 3, 4, 5}, three[2] = {3, 3}, five[2] = {5, 5};
	double h5[5];
	int i;

	assert_float_equal(stats_welch_p(b2, 2, h2, 2), 1 - sqrt(2) / 2, 1e-9);
	assert_float_equal(stats_welch_p(b2, 2, h10, 2), 1 - sqrt(50) / sqrt(52), 1e-9);
	for (i = 0; i < 5; i++)
		h5[i] = b5[i] + 2.306004;
	assert_float_equal(stats_welch_p(b5, 5, h5, 5), 0.05, 1e-6);
	for (i = 0; i < 5; i++)
		h5[i] = b5[i] - 3.355387;
	assert_float_equal(stats_welch_p(b5, 5, h5, 5), 0.01, 1e-6);
	assert_float_equal(stats_welch_p(b5, 5, b5, 5), 1, 1e-12);
	/* neither side varies: certain either way; one run: no test */
	assert_float_equal(stats_welch_p(three, 2, five, 2), 0, 0);
	assert_float_equal(stats_welch_p(three, 2, three, 2), 1, 0);
	assert_true(isnan(stats_welch_p(b5, 1, h5, 5)));
}

/* Holm's steps: 0.005 <= 0.05/4 and 0.01 <= 0.05/3 go, 0.03 > 0.05/2 stops them. */
static void test_holm(void **unused)
{
	const double p[5] = {0.01, 0.04, 0.03, NAN, 0.005};
	bool sig[5], one;

	assert_int_equal(stats_holm(p, 5, 0.05, sig), 0);
	assert_true(sig[0] && !sig[1] && !sig[2] && !sig[3] && sig[4]);
	assert_int_equal(stats_holm(&p[1], 1, 0.05, &one), 0);
	assert_true(one);
	assert_int_equal(stats_holm(p, 0, 0.05, sig), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mann_whitney_by_hand),
		cmocka_unit_test(test_histogram_identical_and_doubled),
		cmocka_unit_test(test_bootstrap_reproducible),
		cmocka_unit_test(test_bootstrap_coverage),
		cmocka_unit_test(test_bootstrap_coverage_five_runs),
		cmocka_unit_test(test_bootstrap_no_change_and_2x),
		cmocka_unit_test(test_bootstrap_new),
		cmocka_unit_test(test_poisson),
		cmocka_unit_test(test_welch_p),
		cmocka_unit_test(test_holm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
