// SPDX-License-Identifier: GPL-2.0-only
/*
 * The last level's lost lines (plugin/kp_timing.h, kp_ll_lost; lat.ll_lost
 * of kp_targs.c), apart from QEMU: how many of a million hits on lines at
 * random a rate draws (within five standard deviations of a binomial's
 * mean), the same draws again for the same hits, none at 0, all at a
 * million; a rate above a million refused.  Prints one line a check, FAIL
 * lines on a miss.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kp_timing.h"

#define HITS 1000000

static int failures;

static void expect(const char *what, long got, long lo, long hi)
{
	printf("%-44s %ld (want %ld..%ld)\n", what, got, lo, hi);
	if (got < lo || got > hi) {
		printf("FAIL %s\n", what);
		failures++;
	}
}

/* Hits n = 1..HITS on lines of a fixed xorshift sequence: how many ppm draws lose. */
static long lost(uint32_t ppm)
{
	uint64_t line = 88172645463325252ULL;
	long n, k = 0;

	for (n = 1; n <= HITS; n++) {
		line ^= line << 13, line ^= line >> 7, line ^= line << 17;
		k += kp_ll_lost(line >> 6, n, ppm);
	}
	return k;
}

static void rate(uint32_t ppm)
{
	double p = ppm / 1e6, sd = sqrt(HITS * p * (1 - p));
	char what[64];

	snprintf(what, sizeof(what), "lost of a million hits at %u per million", ppm);
	expect(what, lost(ppm), (long)floor(HITS * p - 5 * sd), (long)ceil(HITS * p + 5 * sd));
}

int main(void)
{
	struct kp_timing t;
	long first;

	rate(2000);
	rate(150000);
	first = lost(2000);
	expect("the same hits drawn again", lost(2000), first, first);
	expect("lost at 0 per million", lost(0), 0, 0);
	expect("lost at a million per million", lost(1000000), HITS, HITS);
	memset(&t, 0, sizeof(t));
	expect("lat.ll_lost=1000000 taken", kp_timing_arg(&t, "lat.ll_lost", 11, "1000000"), 1, 1);
	expect("lat.ll_lost=1000001 refused", kp_timing_arg(&t, "lat.ll_lost", 11, "1000001"), -1,
	       -1);
	return failures ? 1 : 0;
}
