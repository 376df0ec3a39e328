/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef KP_REPORT_H
#define KP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct df;

int cmd_report(int argc, char **argv);
/* A duration with a unit chosen for it: 812ns, 3.20us, 1.25ms, 2.004s. */
void fmt_ns(char *buf, size_t len, unsigned long long ns);
/* The histogram of latency row (kind, id) and clock "total" or "oncpu", KP_HIST_BUCKETS long. */
int report_load_hist(struct df *df, const char *kind, long long id, const char *clock, __u64 *hist);

/* Whether a kernel cmdline token ("init_on_alloc=1", "nopti") switches a protection. */
bool report_is_knob(const char *tok);

#endif
