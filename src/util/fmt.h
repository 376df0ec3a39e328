/* SPDX-License-Identifier: GPL-2.0-only */
/* Numbers as the tables print them. */
#ifndef KP_FMT_H
#define KP_FMT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A duration with a unit chosen for it: 812ns, 3.20us, 1.25ms, 2.004s,
 * 2.221e+10s from 10^18 ns; a negative one with '-', -inf and inf, NaN as
 * "-" (no value).  Nanoseconds are rounded to the nearest.  24 bytes hold
 * any.
 */
void fmt_ns(char *buf, size_t len, double ns);
/* A count with thousands separated: 4120331 as 4,120,331. */
void fmt_count(char *buf, size_t len, unsigned long long v);

/*
 * An amount of events: with time, nanoseconds as fmt_ns; else a count,
 * whole with thousands separated (a total, or a mean of 100 or more), with
 * two decimals (a mean below 100: per_call) or, below 0.1, two significant
 * digits (0.00094: not a 0.00 that reads as none); NaN as "-".
 */
void fmt_amount(char *buf, size_t len, double x, bool time, bool per_call);

#endif
