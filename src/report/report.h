/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct df;

int cmd_report(int argc, char **argv);
/* The histogram of latency row (kind, id) and clock "total" or "oncpu", KP_HIST_BUCKETS long. */
int report_load_hist(struct df *df, const char *kind, long long id, const char *clock, __u64 *hist);

#endif
