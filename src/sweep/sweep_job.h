/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sweep's job: one variant of the plan built (scripts/kernel-build.sh,
 * cached), booted (scripts/vm-run.sh under icount) and each core operation
 * recorded in the guest (kprotperf record -r N -- core-ops OP), all left in
 * DIR/VARIANT: OP.data, OP.out and OP.err (core-ops' output), OP.rc (its
 * record's exit status), build.log, vm.log, and job, written last, which
 * says how it went (sweep_jobfile.h).  DIR/VARIANT is made in a scratch
 * folder of DIR and renamed into place whole.
 */
#ifndef KP_SWEEP_JOB_H
#define KP_SWEEP_JOB_H

struct sweep_opts;
struct sweep_plan;
struct sweep_variant;

/*
 * DIR made when missing and checked (no one else can write into it), and
 * the plan's text as DIR/sweep.plan, unless DIR holds that plan already;
 * another plan's there is refused.  0, or -errno after saying why.
 */
int sweep_dir_prepare(const char *dir, const struct sweep_plan *p);
/*
 * The job of variant v of p (o: -o DIR, -r, --ops, --model): 0 when the
 * operations were recorded, or DIR/VARIANT held them already for the same
 * setup; 1 when the build or a boot failed (DIR/VARIANT/job says why);
 * -errno when nothing could be left in DIR (said on stderr).
 */
int sweep_job_run(const struct sweep_opts *o, const struct sweep_plan *p,
		  const struct sweep_variant *v);

#endif
