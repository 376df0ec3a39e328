/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a sweep's job left beside its recordings, DIR/VARIANT/job: one
 * KEY=VALUE a line, written by the job, read by sweep --merge as the
 * untrusted file it may be (bounded, every value one line of limited
 * length, unknown keys skipped).
 */
#ifndef KP_SWEEP_JOBFILE_H
#define KP_SWEEP_JOBFILE_H

#include <stddef.h>

#include "sweep/sweep_plan.h"

#define SWEEP_FIELD_MAX 1024

struct sweep_jobfile {
	char variant[SWEEP_NAME_MAX];
	char setup[SWEEP_FIELD_MAX];  /* sweep_setup_print()'s line */
	char ops[SWEEP_FIELD_MAX];    /* the operations, space-separated */
	char model[16];		      /* insns, cache, timing or none */
	char core[SWEEP_FIELD_MAX];   /* timing: --core as given; empty: vm-run.sh's default */
	char record[SWEEP_FIELD_MAX]; /* what the guest ran for each operation $op */
	char kernel[SWEEP_FIELD_MAX]; /* the kernel booted: a folder or a package */
	char status[16];	      /* ok or failed */
	char reason[SWEEP_FIELD_MAX]; /* failed: why, one line */
	unsigned int repeat;
	long long build_s, boot_s; /* seconds each took; -1: not done */
};

/* j as DIR/.../job in dirfd, whole or not at all; -errno. */
int sweep_jobfile_write(int dirfd, const struct sweep_jobfile *j);
/* path into j: 0, -ENOENT when there is none, or -errno with why naming the file and line. */
int sweep_jobfile_read(const char *path, struct sweep_jobfile *j, char *why, size_t len);

#endif
