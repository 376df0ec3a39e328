/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading the log-linear histograms of hist_layout.h. */
#ifndef KP_HIST_H
#define KP_HIST_H

#include <linux/types.h>
#include "hist_layout.h"

/* Bucket b holds values in [hist_lo(b), hist_hi(b)). */
__u64 hist_lo(__u32 b);
__u64 hist_hi(__u32 b);
/* Value at quantile q (0..1): midpoint of the bucket it falls in, never above max. */
__u64 hist_quantile(const __u64 *hist, double q, __u64 max);
__u64 hist_total(const __u64 *hist);

#endif
