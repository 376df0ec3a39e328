/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf diff's counters (record --count): each event per call of each
 * syscall and probed function on both sides, matched by event name, with
 * the 95% interval of latency per call (the bootstrap over runs); an event
 * counted on one side only is shown on that side and said so.
 */
#ifndef KP_DIFF_COUNTERS_H
#define KP_DIFF_COUNTERS_H

#include <stdbool.h>
#include <stdio.h>

#include "data/counters_read.h"
#include "diff/metrics.h"

struct json;
struct diff_notes;

/* One event of one kind: its metrics (a syscall's or function's per call). */
struct diff_counter_set {
	const char *event; /* the name, in ev[side] */
	int index[2];	   /* its event index on each side, -1: not counted there */
	bool sc;	   /* syscalls, else probed functions */
	struct metric_set set;
};

struct diff_counters {
	struct counters_events ev[2];
	size_t runs[2];
	struct diff_counter_set
		*v; /* the base's events in order, then the hardened side's others */
	size_t n;
};

/* After runs_prepare() on both: both sides' counters, intervals for the top rows of each set. */
int diff_counters_load(struct diff_counters *c, struct datafile *const df[2], const size_t runs[2],
		       int top);
/* The header's lines: the events of each side, those on one side only, multiplexing. */
void diff_counters_notes(const struct diff_counters *c, struct diff_notes *notes);
/* The events of each side, as "# counters: ..." (nothing when neither counted any). */
void diff_counters_header(const struct diff_counters *c, FILE *f);
/* The tables (none when neither side counted events). */
void diff_counters_text(const struct diff_counters *c, FILE *f);
/*
 * "counters": {"base": [names], "hardened": [names], "syscalls": [rows],
 * "functions": [rows]}; nothing when neither side counted events.
 */
void diff_counters_json(const struct diff_counters *c, struct json *j);
void diff_counters_free(struct diff_counters *c);

#endif
