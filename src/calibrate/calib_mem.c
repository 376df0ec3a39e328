// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the microbenchmarks run over (calibrate/calibrate.h): random
 * pointer chases through memory, random chains of jumps through generated
 * code, and the clock.
 */
#include "calibrate/calibrate.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Repeats of each measurement, the fastest kept: a busy machine only adds time. */
#define REPEATS 31

uint64_t calib_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* n slots from o on in a random order */
static void shuffle(size_t *o, size_t n, uint64_t *seed)
{
	size_t i, j, t;

	if (n < 2)
		return;
	for (i = n - 1; i > 0; i--) {
		j = calib_rand(seed) % (i + 1);
		t = o[i], o[i] = o[j], o[j] = t;
	}
}

/* The offsets of a region's slots (64 bytes each) in the order asked: malloc'd, *n set. */
static size_t *random_slots(size_t size, enum calib_order order, size_t *n)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t i, k, local = CALIB_LOCAL_BYTES / 64, *o, *r;

	*n = order == CALIB_PAGES ? size / 4096 : size / 64;
	o = malloc(*n * sizeof(*o));
	if (!o)
		return NULL;
	for (i = 0; i < *n; i++)
		o[i] = order == CALIB_PAGES ? i * 4096 + (i * 7 % 64) * 64 : i * 64;
	if (order != CALIB_LOCAL || *n < 2 * local) {
		shuffle(o, *n, &seed);
		return o;
	}
	/* the stretches in a random order, each one's lines shuffled */
	*n = *n / local * local;
	r = malloc(*n / local * sizeof(*r));
	if (!r) {
		free(o);
		return NULL;
	}
	for (k = 0; k < *n / local; k++)
		r[k] = k;
	shuffle(r, *n / local, &seed);
	for (i = 0; i < *n; i++)
		o[i] = (r[i / local] * local + i % local) * 64;
	for (i = 0; i < *n; i += local)
		shuffle(o + i, local, &seed);
	free(r);
	return o;
}

void *calib_region(size_t size, bool huge)
{
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	madvise(m, size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return m;
}

void *calib_chase_new(size_t size, bool huge, enum calib_order order, void **start)
{
	size_t n, i, *o = random_slots(size, order, &n);
	char *m = o ? calib_region(size, huge) : NULL;

	if (!m) {
		free(o);
		return NULL;
	}
	for (i = 0; i < n; i++)
		*(void **)(m + o[i]) = m + o[(i + 1) % n];
	*start = m + o[0];
	free(o);
	return m;
}

/* rel32 of a jump whose 4 bytes end at from + 4 to to. */
static void rel32(unsigned char *at, const unsigned char *to)
{
	int32_t r = (int32_t)(to - (at + 4));

	memcpy(at, &r, 4);
}

void *calib_jit_new(size_t size, enum calib_order order, long *slots, void **entry)
{
	size_t n, i, *o = random_slots(size, order, &n);
	unsigned char *m = o ? calib_region(size, false) : NULL, *s;

	if (!m) {
		free(o);
		return NULL;
	}
	for (i = 0; i + 1 < n; i++) {
		s = m + o[i];
		s[0] = 0xe9; /* jmp rel32 */
		rel32(s + 1, m + o[i + 1]);
	}
	s = m + o[n - 1];
	memcpy(s, "\x48\xff\xc9\x0f\x85", 5); /* dec %rcx; jnz rel32 */
	rel32(s + 5, m + o[0]);
	s[9] = 0xc3; /* ret */
	*entry = m + o[0];
	free(o);
	if (mprotect(m, size, PROT_READ | PROT_EXEC)) {
		munmap(m, size);
		return NULL;
	}
	*slots = n;
	return m;
}

double calib_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

void calib_time_rr(struct calib_job *j, size_t n)
{
	double t;
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		j[i].best = 1e300;
	for (r = 0; r < REPEATS; r++)
		for (i = 0; i < n; i++) {
			/* warm-up: its caches, predictors and TLB as the others left them, the
			 * clock */
			j[i].fn(j[i].ctx, j[i].n);
			t = calib_now_ns();
			j[i].fn(j[i].ctx, j[i].n);
			t = calib_now_ns() - t;
			if (t < j[i].best)
				j[i].best = t;
		}
	for (i = 0; i < n; i++)
		j[i].best /= j[i].n;
}

double calib_time(calib_loop_fn *fn, void *ctx, long n)
{
	struct calib_job j = {fn, ctx, n, 0};

	calib_time_rr(&j, 1);
	return j.best;
}

/* n regions timed round robin, c[i] their cycles a load (a jump, code) */
int calib_regions(struct calib *k, const struct calib_region *g, size_t n, bool code, double *c)
{
	struct calib_job j[CALIB_REGIONS_MAX];
	void *m[CALIB_REGIONS_MAX], *start[CALIB_REGIONS_MAX];
	long slots[CALIB_REGIONS_MAX];
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++) {
		slots[i] = CALIB_BODIES;
		m[i] = code ? calib_jit_new(g[i].size, g[i].order, &slots[i], &start[i])
			    : calib_chase_new(g[i].size, g[i].huge, g[i].order, &start[i]);
		if (!m[i])
			err = -ENOMEM;
		j[i] = (struct calib_job){code ? calib_jit : calib_chase,
					  code ? start[i] : (void *)&start[i], g[i].n, 0};
	}
	if (!err)
		calib_time_rr(j, n);
	for (i = 0; i < n; i++) {
		c[i] = j[i].best / slots[i] * k->ghz;
		if (m[i])
			munmap(m[i], g[i].size);
	}
	return err;
}
