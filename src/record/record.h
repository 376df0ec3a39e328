/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf record as cmd/cmd_record.c calls it: its options, and the whole recording. */
#ifndef KP_RECORD_H
#define KP_RECORD_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#include "record/blocks.h"
#include "record/funcs.h"
#include "record/pmu_events.h"

struct run_measures;

/*
 * Who gives each run its command and is told what it measured, instead of
 * CMD --repeat times (kprotperf explore).  next() gives run run's command
 * (from 1: the first is record_opts.argv) or returns 1 for no more runs;
 * ended() gets what run run added to the --func and --blocks measures
 * (not for a run Ctrl-C cut short: Ctrl-C ends the runs there).
 * Runs go on after one that failed or was killed; a non-zero return of
 * either stops the recording with that error.
 */
struct record_runs {
	int (*next)(void *ctx, unsigned int run, char *const **argv);
	int (*ended)(void *ctx, unsigned int run, int status, const struct run_measures *m);
	void *ctx;
};

struct record_opts {
	const char *cmd;	/* the command whose errors these are: "record", "explore" */
	const char *probe_flag; /* the option naming --func's and --blocks' function, if not them */
	const char *output;
	pid_t pid;
	bool system_wide;
	bool quiet;
	bool no_syscalls; /* no per-syscall tracing (--no-syscalls) */
	bool bpf_stats;	  /* the kernel's run-time statistics of our programs (--bpf-stats) */
	bool model;	  /* CMD in the machine model's window, nothing attached (--model) */
	double duration;
	unsigned int freq;
	unsigned int max_stacks;
	unsigned int max_tasks;
	unsigned int ring_mib;	 /* the ring buffer of samples and stacks (--ring-size) */
	unsigned int dwarf_size; /* --call-graph dwarf: user stack bytes copied; 0: fp */
	unsigned int repeat;	 /* runs of the command (--repeat) */
	char **argv;		 /* the command, NULL with -p / -a alone */
	struct pmu_event count[KP_COUNT_EVENTS_MAX]; /* --count, in the order given */
	unsigned int ncount;
	struct pmu_event sample_event; /* -e (default cpu-clock) */
	__u64 period;		       /* -c: a sample every period events; 0: -F */
	bool freq_set;		       /* -F given */
	struct func_opts func;
	struct blocks_opts blocks;
	const struct record_runs *runs; /* NULL: CMD, repeat times */
};

/*
 * record's defaults: kprotperf.data, KP_DEFAULT_FREQ_HZ, 16384 stacks, 8192
 * tasks, an 8 MiB ring, ...; repeat 0, not given (record_run() needs it 1
 * at least).
 */
void record_opts_init(struct record_opts *o);
/* Record as *o says: the exit status kprotperf record returns (errors printed). */
int record_run(const struct record_opts *o);

#endif
