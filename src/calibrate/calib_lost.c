// SPDX-License-Identifier: GPL-2.0-only
/*
 * The last level's lost lines (calibrate/calibrate.h, calib_lost): chases
 * through a set the last level holds, timed a round at a time, counting
 * the rounds one of whose loads came from DRAM.  A shared last level loses
 * lines to the host's other tenants (docs/model.md, "The last level under
 * load"): a mean latency hides them, a round's time shows them.
 */
#include "calibrate/calibrate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHAINS 16 /* loads in flight a round: the lines come back 16 times as often */
#define ROUNDS (1 << 16)
#define RUNS   5 /* the median run's share: one run may meet a burst of the neighbours' */

#if defined(__x86_64__)
#include <x86intrin.h>

static uint64_t ticks(void)
{
	unsigned int aux;

	return __rdtscp(&aux);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One run of ROUNDS rounds from the chains at p: each round's ticks into t; the chains go on. */
static void rounds(void **p, uint64_t *t)
{
	uint64_t last = ticks(), now;
	long r;
	int i;

	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < CHAINS; i++)
			p[i] = *(void **)p[i];
		now = ticks();
		t[r] = now - last;
		last = now;
	}
}

/* The share of the rounds t above their median by more than gap ticks; s: room to sort them. */
static double slow_share(const uint64_t *t, uint64_t *s, double gap)
{
	uint64_t median;
	long r, slow = 0;

	memcpy(s, t, ROUNDS * sizeof(*s));
	qsort(s, ROUNDS, sizeof(*s), by_value);
	median = s[ROUNDS / 2];
	for (r = 0; r < ROUNDS; r++)
		slow += t[r] > median + gap;
	return (double)slow / ROUNDS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The chains spaced evenly round the cycle from start: no two ever meet. */
static void spread(void *start, size_t lines, void **p)
{
	size_t i, step = lines / CHAINS;
	void *q = start;
	int c;

	for (c = 0; c < CHAINS; c++) {
		p[c] = q;
		for (i = 0; i < step; i++)
			q = *(void **)q;
	}
}

int calib_lost(size_t size, double ghz, double gap_cycles, double *share)
{
	size_t lines = size / 64;
	void *start, *p[CHAINS], *m = calib_chase_new(size, true, CALIB_LINES, &start);
	uint64_t *t = malloc(2 * ROUNDS * sizeof(*t)), t0;
	double runs[RUNS], ns, per_cycle;
	int i, err = m && t && lines >= 4 * CHAINS ? 0 : -ENOMEM;

	if (!err) {
		spread(start, lines, p);
		for (i = 0; i < RUNS; i++) {
			/* a warm-up round of the set, then the run, its ticks against the clock */
			rounds(p, t);
			ns = calib_now_ns();
			t0 = ticks();
			rounds(p, t);
			per_cycle = (ticks() - t0) / ((calib_now_ns() - ns) * ghz);
			runs[i] = slow_share(t, t + ROUNDS, gap_cycles * per_cycle) / CHAINS;
		}
		qsort(runs, RUNS, sizeof(*runs), cmp_double);
		*share = runs[RUNS / 2];
	}
	free(t);
	if (m)
		munmap(m, size);
	return err;
}
#else
int calib_lost(size_t size, double ghz, double gap_cycles, double *share)
{
	(void)size, (void)ghz, (void)gap_cycles, (void)share;
	return -EOPNOTSUPP;
}
#endif
