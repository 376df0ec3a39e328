/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The protection map of two boot recordings (features --svg|--json BASE
 * HARDENED given boot recordings): the features that ran at boot, or are
 * switched at boot (type boot), placed by the change of the instructions
 * their functions executed per boot (features/protection_map.h draws it).
 */
#ifndef KP_BOOT_MAP_H
#define KP_BOOT_MAP_H

#include <stdbool.h>
#include <stdio.h>

struct boot_rec;
struct features;

/* b[0] the base, b[1] the hardened; -ENODATA when a side has no per-function counts. */
int boot_map(const struct boot_rec *b, const struct features *feat, const char *const path[2],
	     bool svg, FILE *f);

#endif
