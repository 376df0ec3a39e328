/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --count and record -e (schema 13): the events counted per syscall
 * and per probed function, each event's raw sums of deltas and of its
 * enabled and running times (scaled as perf does at view time), each run's
 * share of them, and, for stacks sampled on an event other than cpu-clock,
 * the events each samples row stands for.  Documented in docs/datafile.md.
 */
#ifndef KP_COUNT_TABLES_H
#define KP_COUNT_TABLES_H

#include <linux/types.h>

struct datafile;

#define COUNT_TABLES                                                                            \
	"CREATE TABLE count_events(event INTEGER PRIMARY KEY, name TEXT NOT NULL,"              \
	" type INTEGER NOT NULL, config INTEGER NOT NULL, config1 INTEGER NOT NULL,"            \
	" config2 INTEGER NOT NULL);"                                                           \
	"CREATE TABLE event_totals(kind TEXT NOT NULL, id INTEGER NOT NULL,"                    \
	" event INTEGER NOT NULL, calls INTEGER NOT NULL, total INTEGER NOT NULL,"              \
	" enabled_ns INTEGER NOT NULL, running_ns INTEGER NOT NULL,"                            \
	" PRIMARY KEY(kind, id, event));"                                                       \
	"CREATE TABLE run_event_totals(run INTEGER NOT NULL, kind TEXT NOT NULL,"               \
	" id INTEGER NOT NULL, event INTEGER NOT NULL, calls INTEGER NOT NULL,"                 \
	" total INTEGER NOT NULL, enabled_ns INTEGER NOT NULL, running_ns INTEGER NOT NULL,"    \
	" PRIMARY KEY(run, kind, id, event));"                                                  \
	"CREATE TABLE sample_weights(pid INTEGER, tid INTEGER, kstack INTEGER, ustack INTEGER," \
	" weight INTEGER NOT NULL);"

/*
 * Where record took each counted event's values, in meta count.sources (one
 * name a counted event, in order, comma-separated; a file without it, of an
 * earlier kprotperf, read every event from perf): perf reads, or one of its
 * BPF programs' own hooks (include/kprotperf.h's struct kp_count_by).
 */
enum count_source {
	COUNT_SRC_PERF,	   /* bpf_perf_event_read* of a per-CPU perf event */
	COUNT_SRC_CLOCK,   /* the clock at entry, return and switches: on-CPU ns */
	COUNT_SRC_SWITCH,  /* sched_switch: the thread switched out */
	COUNT_SRC_MIGRATE, /* sched_migrate_task */
	COUNT_SRC_FAULT,   /* page_fault_user and page_fault_kernel, on user addresses */
	COUNT_SRC_MINFLT,  /* the task's min_flt */
	COUNT_SRC_MAJFLT,  /* the task's maj_flt */
	COUNT_SRC_N
};

extern const char *const count_source_names[COUNT_SRC_N];

/* One counted event, as perf_event_open is given it. */
struct count_event_row {
	unsigned int event; /* from 0, in --count's order */
	const char *name;   /* as given, an alias normalised */
	__u32 type;
	__u64 config, config1, config2;
};

int count_put_event(struct datafile *df, const struct count_event_row *r);

/* One event's sums over the calls of a syscall ("syscall", nr) or function ("func", funcs.id). */
struct count_total_row {
	const char *kind;
	long long id;
	unsigned int event;
	__u64 calls, total, enabled_ns, running_ns;
};

int count_put_total(struct datafile *df, const struct count_total_row *r);
/* The share of run (from 0) of an event_totals row. */
int count_put_run_total(struct datafile *df, unsigned int run, const struct count_total_row *r);
/*
 * The events the samples row (pid, tid, kstack, ustack) stands for: the sum
 * of its samples' periods.  kstack NULL: the row's kstack is NULL.
 */
int count_put_weight(struct datafile *df, __u32 pid, __u32 tid, const __s32 *kstack,
		     long long ustack, __u64 weight);

/*
 * For data/check.c, once every value is good: each total's event is one
 * count_events names, and a samples key's weight is at least its samples'
 * count.  0, or a corrupt file's -EBADMSG (query_bad).
 */
int count_tables_check(struct datafile *df);

#endif
