// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/bench/open.sh's timer: opens each recording named ROUNDS x N times
 * (datafile_open, then datafile_close: every check of opening, nothing
 * read) and prints, per recording, the fastest round's microseconds per
 * open.  Built once against this tree's libkp.a and once against the
 * reference commit's, whose datafile_open has the same signature.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "data/datafile.h"

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The mean of n opens of path, in microseconds; < 0 when one fails. */
static double time_opens(const char *path, int n)
{
	double start = now_us();
	struct datafile *df;
	char why[512];
	int i;

	for (i = 0; i < n; i++) {
		if (datafile_open(&df, path, why, sizeof(why))) {
			fprintf(stderr, "open_bench: %s: %s\n", path, why);
			return -1;
		}
		datafile_close(df);
	}
	return (now_us() - start) / n;
}

int main(int argc, char **argv)
{
	int rounds, n, r, i;
	double best, t;

	if (argc < 4 || (rounds = atoi(argv[1])) < 1 || (n = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: open_bench ROUNDS N FILE...\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		for (r = 0, best = -1; r < rounds; r++) {
			t = time_opens(argv[i], n);
			if (t < 0)
				return 1;
			best = best < 0 || t < best ? t : best;
		}
		printf("%s\t%.1f\n", argv[i], best);
	}
	return 0;
}
