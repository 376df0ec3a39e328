/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One cell of a sweep's matrix: a core operation recorded on the base and
 * on a variant, compared with kprotperf diff's statistics (diff/stats.h):
 * the change of the operation's own time (core-ops' mean time per
 * operation in each run, sweep_optime.h) with its 95% interval and a p
 * value for the matrix's own verdict (Welch's t test on the logarithms),
 * from runs with nothing attached (record --model); the change of the
 * runs' wall time as diff measures it (diff/metrics.h); and the kernel
 * functions whose CPU time per run changed most, from recordings sampled
 * apart, whose samples would cost the times measured.  With the machine
 * model, the kernel's instructions and misses per run besides, and the
 * functions by the change in misses (or in instructions without caches)
 * instead; with est_cycles (a cost table's estimate, or the timing model's
 * cycles) by the change in those.
 */
#ifndef KP_SWEEP_CELL_H
#define KP_SWEEP_CELL_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/stats.h"

#define SWEEP_TOP_MAX 8

struct model_costs;

struct sweep_func {
	char name[128];
	double delta; /* per run: ns of CPU time, or with the model misses (instructions) */
	bool sig;     /* diff's verdict on it (its 95% interval); false with the model */
};

struct sweep_cell {
	bool ok; /* compared; else why says why not */
	char why[512];
	char funcs_why[512];	  /* why the cell has no functions: its sampled recordings */
	struct stats_result op;	  /* the time per operation: base, hard, ratio, lo, hi, sig */
	struct stats_result wall; /* diff's "wall" row of the runs: the same */
	size_t runs[2];
	double p; /* Welch's p value of the log of the time per operation; NAN: none */
	bool sig; /* significant over the whole matrix (set by the matrix) */
	struct sweep_func top[SWEEP_TOP_MAX];
	size_t ntop;
	bool model, cache; /* model counts read; with simulated caches (the same on both) */
	double insns[2], misses[2]; /* the kernel's per run, base and variant */
	/*
	 * est_cycles, the kernel's per run: under costs, or with timing the
	 * timing model's cycles (both recordings of one core); has_est: either
	 */
	const struct model_costs *costs;
	bool timing, has_est;
	double est[2];
};

/* What a cell is made of, base's ([0]) and the variant's ([1]). */
struct sweep_cell_files {
	const char *out[2];		 /* core-ops' lines of the timed runs (OP.out) */
	const char *time[2];		 /* the timed recordings (record --model) */
	const char *samples[2];		 /* the sampled ones; NULL: the model's counts instead */
	const struct model_costs *costs; /* est_cycles' table for the model's; NULL: none */
};

/*
 * The cell of those files, untrusted, with at most top functions (<=
 * SWEEP_TOP_MAX).  What cannot be compared makes c->ok false and c->why
 * say why (the functions' alone: c->funcs_why); -ENOMEM otherwise.
 */
int sweep_cell_compare(const struct sweep_cell_files *files, const char *op, size_t top,
		       struct sweep_cell *c);

/*
 * The cost table for est_cycles of the guest CPU that recorded path (a
 * timed recording of base), as report --model picks it, into *c: 0, or
 * -errno (none: the line saying so was printed).
 */
int sweep_cell_costs(const char *path, struct model_costs *c);
/*
 * The core model that recorded path (a timed recording of base under
 * --model timing), as its model.core says it, into core: 0, or -errno.
 */
int sweep_cell_core(const char *path, char *core, size_t len);

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
