/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report's view of record --count: the header line naming the events and
 * whether they were multiplexed, the Counters tables (per syscall, per
 * probed function: the calls counted, each event's total and per call, IPC
 * with cycles and instructions) and their JSON fields.  A recording without
 * counted events (schema 12 or older, or no --count) shows none of it.
 */
#ifndef KP_REPORT_COUNTERS_H
#define KP_REPORT_COUNTERS_H

#include <stdbool.h>
#include <stdio.h>

#include "data/counters_read.h"

struct datafile;
struct json;

struct counters_rows {
	struct counters_total *v; /* by id, then event */
	size_t n, cap;
};

struct counters_view {
	struct counters_events ev;
	int cycles, instructions;    /* their event indexes; -1: not counted */
	struct counters_rows sc, fn; /* syscalls', probed functions' */
};

int report_counters_load(struct counters_view *v, struct datafile *df);
void report_counters_free(struct counters_view *v);

/* "# counters: A, B (none multiplexed)"; nothing without events. */
void report_counters_header(const struct counters_view *v, FILE *f);
/* "event_counters": {"events": [...], "multiplexed": {NAME: running/enabled}}. */
void report_counters_json_header(const struct counters_view *v, struct json *j);

/*
 * The table of the syscalls (sc) or probed functions: its title and head,
 * false when there is nothing more to print (no events, or no call counted:
 * then it says so); then report_counters_row() for each latency row, in the
 * latency table's order (one without counted calls prints nothing).
 */
bool report_counters_head(const struct counters_view *v, bool sc, FILE *f);
void report_counters_row(const struct counters_view *v, bool sc, long long id, const char *name,
			 FILE *f);
/* A latency row's "events", "events_per_call" (and "ipc"); nothing without events. */
void report_counters_json_row(const struct counters_view *v, bool sc, long long id, struct json *j);

#endif
