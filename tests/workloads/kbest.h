/* SPDX-License-Identifier: GPL-2.0-only */
/* The workloads' clock and LEBench's K-best estimate of a latency. */
#ifndef KP_KBEST_H
#define KP_KBEST_H

#include <stdlib.h>
#include <time.h>

#define KBEST_K	  5
#define KBEST_TOL 0.05

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int kbest_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * LEBench's K-best with K = 5 and 5% tolerance: sort the latencies
 * ascending, take the K smallest (all of them when there are fewer than K),
 * report their mean, and call the estimate stable when they lie within 5% of
 * each other, i.e. (largest - smallest) <= 5% of the smallest of the K.
 * The smallest samples are the ones least disturbed by interrupts, other
 * tasks and cache misses, so they estimate the cost of the operation itself.
 * Sorts lat in place; returns the mean in ns and sets *spread to
 * (largest - smallest) / smallest of the K.
 */
static double kbest(long long *lat, long n, double *spread)
{
	long k = n < KBEST_K ? n : KBEST_K;
	double sum = 0;
	long i;

	qsort(lat, n, sizeof(*lat), kbest_cmp);
	for (i = 0; i < k; i++)
		sum += lat[i];
	*spread = lat[0] > 0 ? (double)(lat[k - 1] - lat[0]) / lat[0] : 0;
	return sum / k;
}

#endif
