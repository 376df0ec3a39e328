/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf annotate: where inside one kernel function the samples fell. */
#ifndef KP_ANNOTATE_H
#define KP_ANNOTATE_H

#include <stdbool.h>

struct datafile;
struct kernel_dwarf;

/*
 * Print where df's CPU samples fell inside kernel function func, per source
 * line and per inline range, as text or JSON; kd is required.  -ENODATA:
 * no sample has func on its kernel stack.
 */
int annotate_show(struct datafile *df, struct kernel_dwarf *kd, const char *func, bool json);

#endif
