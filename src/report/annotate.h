/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf annotate: where inside one kernel function the samples fell. */
#ifndef KP_ANNOTATE_H
#define KP_ANNOTATE_H

#include <stdbool.h>

struct datafile;
struct kernel_dwarf;

/* annotate_show's answer when no sample has the function on its kernel stack */
#define ANNOTATE_NO_SAMPLES 1

/*
 * Print where df's CPU samples fell inside kernel function func, per source
 * line and per inline range, as text or JSON; kd is required.  0, -errno,
 * or ANNOTATE_NO_SAMPLES with nothing printed.
 */
int annotate_show(struct datafile *df, struct kernel_dwarf *kd, const char *func, bool json);

#endif
