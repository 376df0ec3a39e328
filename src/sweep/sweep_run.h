/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sweep as a list of jobs, one per variant: each checked before anything
 * is built (sweep_check), printed as the commands that run them
 * (--dry-run: for GNU parallel or a Slurm job array), or run here, N at a
 * time (sweep_local).
 */
#ifndef KP_SWEEP_RUN_H
#define KP_SWEEP_RUN_H

#include <stdio.h>

struct sweep_opts;
struct sweep_plan;

/*
 * Every variant's options checked: a build's by kernel-build.sh --check
 * (each different build once), a kernel folder's files, a package's name.
 * Each problem is said on stderr, naming the plan's line; the number of
 * them, or -errno when the checks could not run.
 */
int sweep_check(const struct sweep_opts *o, const struct sweep_plan *p);
/* The jobs, one command a line, absolute paths; -errno after saying why. */
int sweep_print_jobs(const struct sweep_opts *o, const struct sweep_plan *p, FILE *f);
/* The jobs run here, o->jobs at a time: how many failed, or -errno after saying why. */
int sweep_local(const struct sweep_opts *o, const struct sweep_plan *p);

#endif
