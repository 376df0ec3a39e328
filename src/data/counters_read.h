/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What record --count counted, read back for the views (schema 13,
 * docs/datafile.md): the events (count_events), each syscall's and probed
 * function's sums per event (event_totals) and per run (run_event_totals),
 * and the events the samples stand for (sample_weights, with record -e).
 * Totals come scaled as perf scales a multiplexed event: total x enabled /
 * running where the event ran less than it was enabled.  A file of schema
 * 12 or older, or one recorded without --count, has no events.
 */
#ifndef KP_COUNTERS_READ_H
#define KP_COUNTERS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "data/count_tables.h"
#include "data/runs.h"
#include "data/samples.h"

struct datafile;

/* At most this many events are counted at once (record --count). */
#define COUNTERS_MAX 8

struct counters_event {
	char name[128];
	/* summed over every syscall and function row: the share of time it ran */
	double enabled_ns, running_ns;
	/* where record took it from (meta count.sources; perf reads without it) */
	enum count_source source;
};

struct counters_events {
	size_t n;
	struct counters_event v[COUNTERS_MAX];
};

/* The share of the time e was counted: below 1 when multiplexed; 1 when not, or never enabled. */
double counters_share(const struct counters_event *e);

/*
 * The counted events in --count's order (n 0: none); -EBADMSG when the file's
 * events are not numbered 0..n-1 or are more than COUNTERS_MAX, or when
 * meta count.sources does not name one known source for each.
 */
int counters_events(struct datafile *df, struct counters_events *ev);

/* How a source reads in a header: "perf reads", "sched_switch", ... */
const char *counters_source_text(enum count_source s);

/* Whether event name counts nanoseconds (task-clock, cpu-clock). */
bool counters_is_time(const char *name);

/* One row of event_totals: event of syscall (number) or probed function (funcs.id) id. */
struct counters_total {
	long long id;
	int event;	 /* index into counters_events */
	long long calls; /* the calls counted */
	double value;	 /* the events over those calls, scaled; NAN: never ran */
	double enabled_ns, running_ns;
};

typedef int (*counters_total_fn)(const struct counters_total *t, void *ctx);
/* kind's ("syscall", "func") rows by id, then event; non-zero from fn stops the walk. */
int counters_totals(struct datafile *df, const char *kind, counters_total_fn fn, void *ctx);

/*
 * For kprotperf diff, after runs_prepare(): per run, event's scaled total
 * (num) over its calls (den and calls) for each syscall or probed function
 * of kind, by name (a function's instances summed, as runs_latency does).
 */
int counters_runs(struct datafile *df, const char *kind, int event, runs_value_fn fn, void *ctx);

/* Whether the samples have weights (record -e): folded then weighs stacks by them. */
int counters_weighted(struct datafile *df);
/*
 * samples_stacks() with each stack's n the events its samples stand for
 * (sample_weights), rounded; a stack without a weight counts its samples.
 */
int counters_weighted_stacks(struct datafile *df, samples_stack_fn fn, void *ctx);

#endif
