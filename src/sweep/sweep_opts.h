/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf sweep's options, as the command parsed them. */
#ifndef KP_SWEEP_OPTS_H
#define KP_SWEEP_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* at most as many operations as core-ops has (include/core_ops.h) */
#define SWEEP_OPS_MAX 32

struct sweep_opts {
	const char *plan;  /* PLAN */
	const char *dir;   /* -o DIR, or --merge DIR */
	const char *job;   /* --job NAME: that variant's job alone */
	const char *model; /* --model: insns, cache, timing; NULL: none */
	const char *core;  /* --core of --model timing; NULL: vm-run.sh's default */
	const char *ops[SWEEP_OPS_MAX];
	size_t nops;	     /* --ops, else every operation */
	unsigned int repeat; /* -r: runs per operation */
	unsigned int jobs;   /* -j: jobs at once */
	unsigned int top;    /* functions named per cell */
	bool dry_run, merge, json;
	const char *csv, *svg; /* files to write the matrix to; NULL: none */
};

#endif
