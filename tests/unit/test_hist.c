// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/hist.h"

static void test_log2_matches_clz(void **state)
{
	__u64 v;
	int shift;

	for (shift = 0; shift < 64; shift++) {
		v = 1ULL << shift;
		assert_int_equal(kp_log2(v), shift);
		assert_int_equal(kp_log2(v | (v >> 1)), shift);
		assert_int_equal(kp_log2(v | 1), shift);
		assert_int_equal(kp_log2(v + (v - 1)), 63 - __builtin_clzll(v + (v - 1)));
	}
}

/* Every value lands in the bucket whose [lo, hi) holds it, buckets are contiguous. */
static void test_buckets_cover_values(void **state)
{
	__u64 v;
	__u32 b;

	for (v = 0; v < 100000; v++) {
		b = kp_hist_bucket(v);
		assert_true(hist_lo(b) <= v);
		assert_true(v < hist_hi(b));
	}
	for (b = 0; b + 1 < KP_HIST_BUCKETS; b++)
		assert_int_equal(hist_hi(b), hist_lo(b + 1));
	assert_int_equal(kp_hist_bucket(~0ULL), KP_HIST_BUCKETS - 1);
	assert_int_equal(kp_hist_bucket(1ULL << 41), KP_HIST_BUCKETS - 1);
	/* the top power of two keeps its 8 sub-buckets; the last one also takes the overflow */
	assert_int_equal(kp_hist_bucket(1ULL << 40), KP_HIST_BUCKETS - KP_HIST_SUB);
}

/* Bucket width is at most 1/8 of its lower bound: the resolution docs/method.md promises. */
static void test_relative_width(void **state)
{
	__u32 b;

	for (b = KP_HIST_SUB; b + 1 < KP_HIST_BUCKETS; b++)
		assert_true((hist_hi(b) - hist_lo(b)) * 8 <= hist_lo(b));
}

static void test_quantiles_within_resolution(void **state)
{
	__u64 hist[KP_HIST_BUCKETS] = {}, v, q;
	int i;

	/* 1000 values 1us..1000us: p50 = 500us, p90 = 900us, p99 = 990us */
	for (i = 1; i <= 1000; i++)
		hist[kp_hist_bucket(i * 1000ULL)]++;
	assert_int_equal(hist_total(hist), 1000);
	q = hist_quantile(hist, 0.5, 1000000);
	assert_true(q > 500000 * 0.93 && q < 500000 * 1.07);
	q = hist_quantile(hist, 0.9, 1000000);
	assert_true(q > 900000 * 0.93 && q < 900000 * 1.07);
	q = hist_quantile(hist, 0.99, 1000000);
	assert_true(q > 990000 * 0.93 && q < 990000 * 1.07);
	/* never above the exact maximum */
	v = hist_quantile(hist, 1.0, 1000000);
	assert_true(v <= 1000000);
}

static void test_quantile_small_exact_and_empty(void **state)
{
	__u64 hist[KP_HIST_BUCKETS] = {};

	assert_int_equal(hist_quantile(hist, 0.5, 0), 0);
	hist[3] = 10;
	assert_int_equal(hist_quantile(hist, 0.5, 3), 3);
	assert_int_equal(hist_quantile(hist, 0.99, 3), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2_matches_clz),
		cmocka_unit_test(test_buckets_cover_values),
		cmocka_unit_test(test_relative_width),
		cmocka_unit_test(test_quantiles_within_resolution),
		cmocka_unit_test(test_quantile_small_exact_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
