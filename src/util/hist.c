// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the histograms the BPF programs fill (hist_layout.h): bucket
 * bounds and quantiles, which BPF has no need of and so are kept out of the
 * shared header.
 */
#include "util/hist.h"

__u64 hist_lo(__u32 b)
{
	__u32 msb;

	if (b < KP_HIST_SUB)
		return b;
	msb = b / KP_HIST_SUB + KP_HIST_SUB_BITS - 1;
	return (1ULL << msb) + (__u64)(b % KP_HIST_SUB) * (1ULL << (msb - KP_HIST_SUB_BITS));
}

__u64 hist_hi(__u32 b)
{
	if (b >= KP_HIST_BUCKETS - 1)
		return ~0ULL;
	return hist_lo(b + 1);
}

__u64 hist_total(const __u64 *hist)
{
	__u64 n = 0;
	__u32 b;

	for (b = 0; b < KP_HIST_BUCKETS; b++)
		n += hist[b];
	return n;
}

__u64 hist_quantile(const __u64 *hist, double q, __u64 max)
{
	__u64 n = hist_total(hist), seen = 0, rank, v;
	__u32 b;

	if (!n)
		return 0;
	/* nearest-rank: the smallest value with at least q of the population at or below it */
	rank = (__u64)(q * n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (b = 0; b < KP_HIST_BUCKETS; b++) {
		seen += hist[b];
		if (seen >= rank)
			break;
	}
	if (b >= KP_HIST_BUCKETS - 1)
		return max;
	v = hist_lo(b) + (hist_hi(b) - hist_lo(b)) / 2;
	return v > max ? max : v;
}
