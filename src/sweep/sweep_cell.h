/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One cell of a sweep's matrix: a core operation recorded on the base and
 * on a variant, compared with kprotperf diff's measures and statistics
 * (diff/metrics.h): the change of the wall time per run with its 95%
 * interval, a p value for the matrix's own verdict (Welch's t test on the
 * log of each run's time), and the kernel functions whose time per run
 * changed most; with the machine model (record --model) the kernel's
 * instructions and misses per run besides, and the functions by the change
 * in misses (or in instructions without caches) instead.
 */
#ifndef KP_SWEEP_CELL_H
#define KP_SWEEP_CELL_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/stats.h"

#define SWEEP_TOP_MAX 8

struct sweep_func {
	char name[128];
	double delta; /* per run: ns of CPU time, or with the model misses (instructions) */
	bool sig;     /* diff's verdict on it (its 95% interval); false with the model */
};

struct sweep_cell {
	bool ok; /* compared; else why says why not */
	char why[512];
	struct stats_result wall; /* diff's "wall" row: base, hard, ratio, lo, hi, sig */
	size_t runs[2];
	double p; /* Welch's p value of log(wall time per run); NAN: none */
	bool sig; /* significant over the whole matrix (set by the matrix) */
	struct sweep_func top[SWEEP_TOP_MAX];
	size_t ntop;
	bool model, cache; /* model counts read; with simulated caches (the same on both) */
	double insns[2], misses[2]; /* the kernel's per run, base and variant */
};

/*
 * The cell of the recordings base and variant (untrusted files), with at
 * most top functions (<= SWEEP_TOP_MAX); model: by the model's counts.
 * A recording that cannot be compared makes c->ok false and c->why say why;
 * -ENOMEM otherwise.
 */
int sweep_cell_compare(const char *base, const char *variant, bool model, size_t top,
		       struct sweep_cell *c);

struct features;
/*
 * What differs between the kernels of the recordings base and variant, as
 * kprotperf diff's provenance says it ("config SLAB_FREELIST_RANDOM: n ->
 * y (freelist_random)", "cmdline init_on_alloc: (not set) -> 1", or
 * "nothing: ..."): one line each, escaped, into a new *lines of *n (the
 * caller frees each and the array).  -errno when they cannot be read.
 */
int sweep_differs(const char *base, const char *variant, const struct features *feat, char ***lines,
		  size_t *n);

#endif
