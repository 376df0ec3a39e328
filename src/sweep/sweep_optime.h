/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A core operation's own time, as core-ops measured it in each run: the
 * mean time of one operation, without the run's start and end (exec, the
 * process's teardown), which a protection of those would add to every
 * operation's wall time alike.  Read from the lines a run printed
 * (OP.out, untrusted), compared with diff's statistics (diff/stats.h).
 */
#ifndef KP_SWEEP_OPTIME_H
#define KP_SWEEP_OPTIME_H

#include <stddef.h>

#include "diff/stats.h"

#define SWEEP_RUNS_MAX 100

/*
 * The lines at path, one a run ("core-ops OP: N operations in B batches:
 * mean X ns, ..."): each run's mean ns per operation into v (room for
 * SWEEP_RUNS_MAX); their number, or -errno with why (the file, the line).
 */
int sweep_optime_read(const char *path, const char *op, double *v, char *why, size_t len);
/*
 * The change of the time per operation from base's runs b to the
 * variant's h: the point, diff's 95% interval (a bootstrap over runs, with
 * 2 or more a side), and in *p Welch's p value on the logarithms (NAN with
 * fewer).  -ENOMEM or 0.
 */
int sweep_optime_compare(const double *b, size_t nb, const double *h, size_t nh,
			 struct stats_result *r, double *p);

#endif
