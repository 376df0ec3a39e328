/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf record as cmd/record.c calls it: its options, and the whole recording. */
#ifndef KP_RECORD_H
#define KP_RECORD_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#include "record/blocks.h"
#include "record/funcs.h"

struct record_opts {
	const char *output;
	pid_t pid;
	bool system_wide;
	bool quiet;
	bool no_syscalls; /* no per-syscall tracing (--no-syscalls) */
	bool bpf_stats;	  /* the kernel's run-time statistics of our programs (--bpf-stats) */
	double duration;
	unsigned int freq;
	unsigned int max_stacks;
	unsigned int max_tasks;
	unsigned int ring_mib;	 /* the ring buffer of samples and stacks (--ring-size) */
	unsigned int dwarf_size; /* --call-graph dwarf: user stack bytes copied; 0: fp */
	unsigned int repeat;	 /* runs of the command (--repeat) */
	char **argv;		 /* the command, NULL with -p / -a alone */
	struct func_opts func;
	struct blocks_opts blocks;
};

/* Record as *o says: the exit status kprotperf record returns (errors printed). */
int record_run(const struct record_opts *o);

#endif
