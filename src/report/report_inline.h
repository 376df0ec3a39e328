/* SPDX-License-Identifier: GPL-2.0-only */
/* report --inline: one row per inline instance with samples or probes. */
#ifndef KP_REPORT_INLINE_H
#define KP_REPORT_INLINE_H

#include <stdio.h>

struct datafile;
struct json;
struct kernel_dwarf;

/* kd may be NULL: then only the instances record --func probed are known. */
int report_inline(struct datafile *df, struct kernel_dwarf *kd, int top, FILE *f, struct json *j);

#endif
