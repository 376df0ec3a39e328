/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The protection map of two workloads' recordings (kprotperf features
 * --svg|--json BASE HARDENED): each feature's change of CPU time per run,
 * with its interval, as diff measures it (metrics.h), drawn by
 * features/protection_map.h.
 */
#ifndef KP_DIFF_MAP_H
#define KP_DIFF_MAP_H

#include <stdbool.h>
#include <stdio.h>

struct datafile;
struct features;
struct kernel_dwarf;

/* path: the two recordings' names, as the figure shows them. */
int diff_map(struct datafile *const df[2], struct kernel_dwarf *const kd[2],
	     const char *const path[2], const struct features *feat, bool svg, FILE *f);

#endif
