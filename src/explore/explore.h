/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf explore: a feedback-directed search over syscall scenarios for
 * the workloads that drive a kernel function's cost.  One recording
 * (record.h) whose runs are the scenarios: the target probed once, with
 * --func (its time per call) and --blocks (its blocks, loops and the
 * context of each call), each run's measures weighed by search.h, the
 * scenarios kept written to a corpus folder as they are kept.
 */
#ifndef KP_EXPLORE_H
#define KP_EXPLORE_H

#include <stdbool.h>
#include <linux/types.h>

struct explore_opts {
	const char *target;    /* --target FUNC */
	const char *dir;       /* -o DIR: corpus, findings, explore.data */
	unsigned int runs;     /* --budget RUNS; 0 with seconds */
	double seconds;	       /* --budget TIME; 0 with runs */
	__u64 seed;	       /* --seed */
	const char *templates; /* --templates FILE, NULL: the built-in ones */
	const char *vmlinux;   /* --vmlinux */
	unsigned int limit_s;  /* --scenario-seconds: each scenario's time */
	const char *replay;    /* --replay FILE: record this one scenario */
	const char *output;    /* --replay's data file */
	unsigned int repeat;   /* --replay's runs (-r) */
	bool json;
	bool quiet;
};

/* The search (or the replay) as *o says: the exit status (errors printed). */
int explore_run(const struct explore_opts *o);

#endif
