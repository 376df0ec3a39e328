/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf annotate: where inside one function, kernel or user, the samples fell. */
#ifndef KP_ANNOTATE_H
#define KP_ANNOTATE_H

#include <stdbool.h>

struct datafile;
struct kernel_dwarf;

/*
 * annotate_show's answer when no sample has the function on its kernel
 * stack (or on its user stack in a frame with DWARF)
 */
#define ANNOTATE_NO_SAMPLES 1

/*
 * Print where df's CPU samples fell inside function func, per source line
 * and (kernel only) per inline range, as text or JSON: with kd, the kernel
 * function; without, the user function, from its files' DWARF.  0, -errno,
 * or ANNOTATE_NO_SAMPLES with nothing printed.
 */
int annotate_show(struct datafile *df, struct kernel_dwarf *kd, const char *func, bool json);

#endif
