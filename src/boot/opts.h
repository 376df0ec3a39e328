/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf boot's options, as the command parsed them: what the boots and the recording follow. */
#ifndef KP_BOOT_OPTS_H
#define KP_BOOT_OPTS_H

#include "data/model.h"

/* --I1, --D1 and --LL given, each up to a sweep's geometries */
#define BOOT_CACHE_ARGS_MAX (3 * MODEL_GEOMS_MAX)

struct boot_opts {
	const char *output;
	const char *kernel, *append; /* as given; NULL: vm-run.sh's defaults */
	const char *model;	     /* insns, cache, timing or NULL: no model */
	const char *core;	     /* --core of --model timing; NULL: vm-run.sh's default */
	const char *cpu;	     /* vm-run.sh --cpu MODEL; NULL: its default */
	unsigned int repeat;
	unsigned int timeout;		      /* seconds per boot; 0: vm-run.sh's default */
	char caches[BOOT_CACHE_ARGS_MAX][48]; /* "--I1=S,A,L", ... as given */
	unsigned int ncaches;
};

#endif
