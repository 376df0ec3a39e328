/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The protection map (kprotperf features --svg BASE HARDENED): the
 * features of share/features.conf on a grid of type (source, compiler,
 * config, boot) by position (code, data, layout), each cell coloured by the
 * change of its features' CPU time per run between the two recordings, as
 * a share of the base kernel's time; or its numbers as JSON.  Given two
 * boot recordings (kprotperf boot with the model), the features that ran
 * at boot or are switched at boot (type boot) are placed instead by the
 * change of the instructions their functions executed per boot, as a
 * share of the base boot's.
 */
#ifndef KP_PROTECTION_MAP_H
#define KP_PROTECTION_MAP_H

#include <stdbool.h>
#include <stdio.h>

struct datafile;
struct features;
struct kernel_dwarf;

/*
 * path: the two recordings' names, as the figure shows them.  -EINVAL: one
 * is a boot recording and the other not; -ENODATA: boot recordings without
 * the model's per-function counts.
 */
int protection_map(struct datafile *const df[2], struct kernel_dwarf *const kd[2],
		   const char *const path[2], const struct features *feat, bool svg, FILE *f);

#endif
