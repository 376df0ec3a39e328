/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Layout shared by the BPF programs and user space: map keys, values and
 * counter indices.  Changing anything here changes what a recording means,
 * so bump KP_SCHEMA_VERSION in datafile.h when it does.
 */
#ifndef KPROTPERF_H
#define KPROTPERF_H

#include "hist_layout.h"

#define KP_COMM_LEN    16
#define KP_STACK_DEPTH 127
/* x86_64 syscall numbers stay below this; larger ones are counted as lost */
#define KP_MAX_SYSCALLS 512

/* Event counters, one per-CPU slot each. */
enum kp_counter {
	KP_CNT_SAMPLES,	      /* CPU-clock samples of the traced tree */
	KP_CNT_SYSCALLS,      /* syscall entries of the traced tree */
	KP_CNT_FAULTS_USER,   /* page faults from user mode */
	KP_CNT_FAULTS_KERNEL, /* page faults from kernel mode */
	/* lost or degraded data: every one is saved and reported */
	KP_CNT_LOST_KSTACK,	/* kernel stack unavailable in kernel mode */
	KP_CNT_LOST_USTACK,	/* user stack unavailable */
	KP_CNT_STACK_COLLISION, /* stack map bucket held another stack */
	KP_CNT_LOST_SAMPLES,	/* sample map full */
	KP_CNT_LOST_THREADS,	/* thread map full: syscalls of a thread lost */
	KP_CNT_LOST_TREE,	/* tree map full: a child process not followed */
	KP_CNT_LOST_NR,		/* syscall number out of range */
	KP_CNT_LOST_FUNC_MAP,	/* --func: a map was full */
	KP_CNT_LOST_FUNC_DEPTH,	/* --func: nested deeper than KP_FUNC_DEPTH */
	KP_CNT_FUNC_UNMATCHED,	/* --func: a return without its entry (entry not seen) */
	KP_CNT_MAX,
};

/* Per-thread syscall state, created at the first syscall of a traced thread. */
struct kp_thread {
	__u64 start_ns; /* syscall entry time */
	__u64 oncpu_ns; /* on-CPU time of the syscall before the last switch-in */
	__u32 nr;
	__u32 in_syscall;
};

/* Latency of one syscall number (later: one probed function). */
struct kp_lat {
	__u64 calls; /* entries */
	__u64 done;  /* returns: the histograms count these */
	__u64 total_ns;
	__u64 oncpu_ns;
	__u64 max_ns;
	__u64 hist[KP_HIST_BUCKETS];	   /* entry to return */
	__u64 oncpu_hist[KP_HIST_BUCKETS]; /* on-CPU part of it */
};

/* kstack of a sample taken in user mode, or of a --func call without --func-stacks */
#define KP_NO_KSTACK (-2)

struct kp_sample_key {
	__u32 tgid;
	__u32 pid;
	__s32 kstack; /* stack map id, or -errno */
	__s32 ustack;
	char comm[KP_COMM_LEN];
};

#endif
