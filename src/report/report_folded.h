/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf folded: a recording's folded stacks printed (symbols/folded_stacks.h folds them). */
#ifndef KP_FOLDED_H
#define KP_FOLDED_H

#include <stdbool.h>

#include "symbols/folded_stacks.h"

struct datafile;
struct kernel_dwarf;

/*
 * Print df's folded stacks to stdout: the CPU samples, or with latency the
 * kernel stacks of the probed functions (only func's, unless NULL) weighted
 * by their ns.  kd (may be NULL) names inline frames and source lines.
 */
int folded_print(struct datafile *df, struct kernel_dwarf *kd, const struct folded_frames *fr,
		 bool latency, const char *func);

#endif
