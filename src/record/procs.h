/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Processes of the traced tree: names, parents and address spaces, captured
 * from perf side-band records (mmap2/comm/fork/exit) while the processes live,
 * so that user stacks of processes that exited before recording ended (every
 * child of big-fork) still symbolize without /proc.
 */
#ifndef KP_PROCS_H
#define KP_PROCS_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

struct procs;

/* A resolved user frame; strings are owned by the procs object. */
struct ufrm {
	const char *module;   /* path of the mapped file, or "[vdso]", "[unknown]" */
	const char *sym;      /* function name, NULL when the file has none for ip */
	__u64 off;	      /* ip - symbol start, or file offset when sym is NULL */
	const char *build_id; /* hex, "" when unknown */
};

struct proc_task {
	pid_t pid; /* tgid */
	pid_t ppid;
	char comm[16];
	bool exited;
};

struct proc_map {
	pid_t pid;
	__u64 start, end, pgoff;
	const char *path;
	const char *build_id; /* hex, "" when unknown */
};

int procs_new(struct procs **out);
void procs_free(struct procs *p);
/* Follow pid and every process it starts from now on (pid -1: the whole system). */
int procs_follow(struct procs *p, pid_t pid);
/*
 * Follow pid and every process it starts from now on, through one
 * system-wide event (opened at the first call, kept for the next trees):
 * a fork then costs the kernel a record but no event of its own, as an
 * inherited one would (procs_follow's).  Records of processes outside the
 * trees followed are dropped.  Without the right to watch the system
 * (CAP_PERFMON), an inherited event on pid.
 */
int procs_follow_tree(struct procs *p, pid_t pid);
/* Capture a process that is already running, from /proc/PID. */
int procs_snapshot(struct procs *p, pid_t pid);
/* An fd to poll: readable when side-band records are waiting. */
int procs_fd(const struct procs *p);
/* Consume waiting side-band records; returns how many, or -errno. */
int procs_drain(struct procs *p);
struct perf_event_header;
/*
 * One side-band record as procs_drain() gets it (h->size bytes, the time
 * stamp in the last 8), taken into p: for tests/fuzz, which feed records
 * without a ring.  0, or -errno.
 */
int procs_record(struct procs *p, const struct perf_event_header *h, __u64 time);
/* Side-band records the kernel dropped (ring buffer full). */
__u64 procs_lost(const struct procs *p);
/* Resolve a user ip of process tgid; 0 on success (out->sym may be NULL), -ENOENT unmapped. */
int procs_resolve(struct procs *p, pid_t tgid, __u64 ip, struct ufrm *out);
/*
 * The address space process tgid has now, as a number that names it while
 * p lives (an exec gives the process a new one); 0 for a process unknown.
 */
__u64 procs_space(const struct procs *p, pid_t tgid);
/* The mapping of ip in process tgid now; 0, or -ENOENT. */
int procs_map_at(const struct procs *p, pid_t tgid, __u64 ip, struct proc_map *out);
int procs_for_each_task(struct procs *p, int (*fn)(const struct proc_task *t, void *ctx),
			void *ctx);
int procs_for_each_map(struct procs *p, int (*fn)(const struct proc_map *m, void *ctx), void *ctx);

#endif
