// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checks, pseudo-random numbers and timing the plugin's stand-alone
 * unit programs share (model_harness.h says what each is for).
 */
#include "model_harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

int bad;

static uint64_t rng = 88172645463325252ull;

void check(const char *what, uint64_t got, uint64_t want)
{
	if (got != want) {
		printf("FAIL: %s: %" PRIu64 ", want %" PRIu64 "\n", what, got, want);
		bad = 1;
	}
}

uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* the best of the runs, not their mean: the host is shared, the best is the least disturbed */
void best(double *b, double t0, double t1, unsigned int n)
{
	if ((t1 - t0) / n < *b)
		*b = (t1 - t0) / n;
}
