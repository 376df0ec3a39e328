/* SPDX-License-Identifier: GPL-2.0-only */
/* folded --model: the model's counts per function as folded lines (model_folded.c). */
#ifndef KP_MODEL_FOLDED_H
#define KP_MODEL_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct datafile;

/*
 * What a line counts: instructions, the misses of I1, D1 (reads and writes)
 * or LL, est_cycles (rounded), or the misses of the I-TLB or the D-TLB.
 */
enum model_weight { MW_INSNS, MW_I1, MW_D1, MW_LL, MW_EST, MW_ITLB, MW_DTLB };

/* --model's argument (insns, i1, d1, ll, est, itlb, dtlb) as an enum model_weight; -EINVAL: none.
 */
int model_folded_weight(const char *arg);
/*
 * df's counts folded to f, kernel and/or user functions; -ENODATA with why
 * when df has no counts (or no misses for a miss weight, no TLB for a TLB
 * one, no cost table for est), as model_counts_read.  est: costs as
 * model_counts_costs(), the table used named on stderr.
 */
int model_folded(struct datafile *df, enum model_weight w, unsigned int geom, const char *costs,
		 bool kernel, bool user, FILE *f, char *why, size_t len);

#endif
