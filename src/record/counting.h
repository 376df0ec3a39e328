/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --count: the events opened on every CPU into the BPF programs'
 * perf event array (count_pmu, index cpu * nev + i), which turn them into
 * per-thread counters (bpf/common.bpf.h) and add each syscall's and probed
 * function's deltas up (syscall_cnt, func_cnt); the software events the
 * programs' own hooks see (counting_source) open no perf event; then the sums into the data
 * file (count_events, event_totals, run_event_totals).  A NULL counting
 * (no --count) makes every call here do nothing.
 */
#ifndef KP_COUNTING_H
#define KP_COUNTING_H

#include <stddef.h>

#include "data/count_tables.h"
#include "record/pmu_events.h"

struct counting;
struct datafile;
struct kv_list;
struct record_bpf;

/* Where the programs take ev from: one of their hooks, or perf reads (COUNT_SRC_PERF). */
enum count_source counting_source(const struct pmu_event *ev);

int counting_new(struct counting **out, const struct pmu_event *evs, unsigned int n);
void counting_free(struct counting *c);
/* Before the record object is loaded: its count_nev and its maps' sizes. */
int counting_setup(const struct counting *c, struct record_bpf *skel);
/* Once it is: each event opened on each online CPU into count_pmu (why: the refusal). */
int counting_open(struct counting *c, struct record_bpf *skel, char *why, size_t len);
/*
 * A run's share (run from 0) of the syscalls' (sys_fd) and functions'
 * (func_fd, -ENOENT when none; nfuncs ids) sums: run_event_totals rows.
 */
int counting_put_run(struct counting *c, struct datafile *df, unsigned int run, int sys_fd,
		     int func_fd, size_t nfuncs);
/* The events, the sums as event_totals, and meta count.events. */
int counting_save(const struct counting *c, struct datafile *df, int sys_fd, int func_fd,
		  size_t nfuncs, struct kv_list *meta);

#endif
