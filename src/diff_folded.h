/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * diff --folded: "stack base_count hardened_count" lines, the input of
 * flamegraph.pl's differential flame graphs (difffolded.pl's format).
 */
#ifndef KP_DIFF_FOLDED_H
#define KP_DIFF_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

struct df;
struct kdebug;

struct diff_folded_opts {
	bool normalize;	   /* scale the hardened counts to the base total */
	bool user, kernel; /* which frames to keep, as folded -U / -K */
	bool inlines;	   /* _[i] frames where the side's DWARF is there */
};

/*
 * Both recordings' CPU-sample stacks, named as kprotperf folded names them
 * (kd_* NULL without DWARF), merged by stack: a stack only one side has
 * counts 0 on the other.
 */
int diff_folded(struct df *base, struct kdebug *kd_base, struct df *hard, struct kdebug *kd_hard,
		const struct diff_folded_opts *o, FILE *out);

#endif
