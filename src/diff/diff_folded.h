/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * diff --folded: "stack base_count hardened_count" lines, the input of
 * flamegraph.pl's differential flame graphs (difffolded.pl's format).
 */
#ifndef KP_DIFF_FOLDED_H
#define KP_DIFF_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

struct datafile;
struct kernel_dwarf;

/*
 * Both recordings' CPU-sample stacks, named as kprotperf folded names them
 * (user, kernel and, where the side's DWARF is there, _[i] frames; kd_* NULL
 * without it), merged by stack: a stack only one side has counts 0 on the
 * other.  normalize: the hardened counts scaled to the base total.
 */
int diff_folded(struct datafile *base, struct kernel_dwarf *kd_base, struct datafile *hard,
		struct kernel_dwarf *kd_hard, bool normalize, FILE *out);

#endif
