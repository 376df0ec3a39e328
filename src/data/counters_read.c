// SPDX-License-Identifier: GPL-2.0-only
/* The queries on record --count's and record -e's tables (see counters_read.h). */
#include "data/counters_read.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "data/datafile.h"
#include "data/query.h"
#include "data/samples.h"

/*
 * A row's total scaled as perf scales it: by enabled / running when it ran
 * less; NULL when it never ran while enabled (perf's "<not counted>").
 */
#define SCALED_SQL                                                    \
	" CASE WHEN t.running_ns > 0 AND t.running_ns < t.enabled_ns" \
	" THEN t.total * CAST(t.enabled_ns AS REAL) / t.running_ns"   \
	" WHEN t.running_ns = 0 AND t.enabled_ns > 0 THEN NULL ELSE t.total END"

struct event_walk {
	struct datafile *df;
	struct counters_events *ev;
};

static int event_row(sqlite3_stmt *st, void *ctx)
{
	struct event_walk *w = ctx;
	struct counters_event *e;
	long long i = sqlite3_column_int64(st, 0);
	size_t j;

	if (i != (long long)w->ev->n || w->ev->n >= COUNTERS_MAX)
		return query_bad(w->df,
				 "table count_events: event %lld: the events are not numbered"
				 " 0 to at most %d",
				 i, COUNTERS_MAX - 1);
	e = &w->ev->v[w->ev->n];
	snprintf(e->name, sizeof(e->name), "%s", query_str(st, 1));
	/* names key the JSON objects and match events across recordings */
	for (j = 0; j < w->ev->n; j++)
		if (!strcmp(w->ev->v[j].name, e->name))
			return query_bad(w->df, "table count_events: event %lld: '%s' again", i,
					 e->name);
	w->ev->n++;
	e->enabled_ns = sqlite3_column_double(st, 2);
	e->running_ns = sqlite3_column_double(st, 3);
	return 0;
}

/* A source's name in meta count.sources, n bytes at s: its index, or -1. */
static int source_of(const char *s, size_t n)
{
	int i;

	for (i = 0; i < COUNT_SRC_N; i++)
		if (strlen(count_source_names[i]) == n && !strncmp(s, count_source_names[i], n))
			return i;
	return -1;
}

/*
 * meta count.sources, one name an event: a file without it is of a
 * kprotperf that read every event from perf.
 */
static int read_sources(struct datafile *df, struct counters_events *ev)
{
	const char *s = datafile_meta(df, "count.sources"), *end;
	size_t i, n;
	int src;

	for (i = 0; i < ev->n; i++)
		ev->v[i].source = COUNT_SRC_PERF;
	for (i = 0; s; i++, s = *end ? end + 1 : NULL) {
		end = strchrnul(s, ',');
		n = end - s;
		if (i >= ev->n)
			return query_bad(df, "meta count.sources: more sources than the %zu events",
					 ev->n);
		src = source_of(s, n);
		if (src < 0)
			return query_bad(df,
					 "meta count.sources: '%.*s' is no source kprotperf knows"
					 " (event %zu)",
					 (int)(n < 40 ? n : 40), s, i);
		ev->v[i].source = src;
	}
	if (i && i != ev->n)
		return query_bad(df, "meta count.sources: %zu sources for %zu events", i, ev->n);
	return 0;
}

int counters_events(struct datafile *df, struct counters_events *ev)
{
	int err;

	ev->n = 0;
	err = query_each(df,
			 /* TOTAL: a sum of 2^60s that no integer holds is a double */
			 "SELECT e.event, e.name, TOTAL(t.enabled_ns), TOTAL(t.running_ns)"
			 " FROM count_events e"
			 " LEFT JOIN event_totals t ON t.event = e.event"
			 " GROUP BY e.event ORDER BY e.event",
			 event_row, &(struct event_walk){df, ev}, "");
	return err ?: read_sources(df, ev);
}

const char *counters_source_text(enum count_source s)
{
	static const char *const text[COUNT_SRC_N] = {
		[COUNT_SRC_PERF] = "perf reads",
		[COUNT_SRC_CLOCK] = "the on-CPU clock",
		[COUNT_SRC_SWITCH] = "sched_switch",
		[COUNT_SRC_MIGRATE] = "sched_migrate_task",
		[COUNT_SRC_FAULT] = "page_fault_user/kernel",
		[COUNT_SRC_MINFLT] = "the task's min_flt",
		[COUNT_SRC_MAJFLT] = "the task's maj_flt",
	};

	return s < COUNT_SRC_N ? text[s] : "?";
}

double counters_share(const struct counters_event *e)
{
	return e->enabled_ns > 0 && e->running_ns < e->enabled_ns ? e->running_ns / e->enabled_ns
								  : 1;
}

bool counters_is_time(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

struct total_walk {
	counters_total_fn fn;
	void *ctx;
};

static int total_row(sqlite3_stmt *st, void *ctx)
{
	struct total_walk *w = ctx;
	long long event = sqlite3_column_int64(st, 1);
	struct counters_total t = {
		.id = sqlite3_column_int64(st, 0),
		.event = event,
		.calls = sqlite3_column_int64(st, 2),
		.value = sqlite3_column_type(st, 3) == SQLITE_NULL ? NAN
								   : sqlite3_column_double(st, 3),
		.enabled_ns = sqlite3_column_double(st, 4),
		.running_ns = sqlite3_column_double(st, 5),
	};

	/* an event the file does not name (count_events) is no row */
	if (event < 0 || event >= COUNTERS_MAX)
		return 0;
	return w->fn(&t, w->ctx);
}

int counters_totals(struct datafile *df, const char *kind, counters_total_fn fn, void *ctx)
{
	return query_each(df,
			  "SELECT t.id, t.event, t.calls," SCALED_SQL ", t.enabled_ns,"
			  " t.running_ns FROM event_totals t"
			  " WHERE t.kind = ?1 AND t.event IN (SELECT event FROM count_events)"
			  " ORDER BY t.id, t.event",
			  total_row, &(struct total_walk){fn, ctx}, "t", kind);
}

/* A run in which the event never ran while enabled counts no calls: nothing is known of them. */
#define NOT_NEVER " AND NOT (t.running_ns = 0 AND t.enabled_ns > 0)"

/* The rows' names: the latency table's for syscalls, funcs' for probed functions. */
int counters_runs(struct datafile *df, const char *kind, int event, runs_value_fn fn, void *ctx)
{
	bool sc = !strcmp(kind, "syscall");
	const char *join = sc ? "JOIN latency" : "JOIN funcs";
	const char *on = sc ? "kind = 'syscall' AND n.id" : "id";
	char *sql;
	int err;

	/* a recording without runs is one run: its totals */
	sql = sqlite3_mprintf("SELECT d.idx, n.name," SCALED_SQL ", t.calls, t.calls"
			      " FROM run_event_totals t JOIN d_runs d ON d.run = t.run %s n"
			      " ON n.%s = t.id WHERE t.kind = %Q AND t.event = %d" NOT_NEVER
			      " UNION ALL"
			      " SELECT 0, n.name," SCALED_SQL ", t.calls, t.calls"
			      " FROM event_totals t %s n ON n.%s = t.id WHERE t.kind = %Q"
			      " AND t.event = %d" NOT_NEVER " AND NOT EXISTS (SELECT 1 FROM runs)",
			      join, on, kind, event, join, on, kind, event);
	if (!sql)
		return -ENOMEM;
	err = runs_values(df, sql, fn, ctx);
	sqlite3_free(sql);
	return err;
}

int counters_weighted(struct datafile *df)
{
	return query_scalar(df, "SELECT EXISTS (SELECT 1 FROM sample_weights)", NULL);
}

/*
 * A samples row's share of its key's weight: the key (pid, tid, kstack,
 * ustack) may have several rows (comm changed at an exec); one without a
 * weight counts its samples.
 */
int counters_weighted_stacks(struct datafile *df, samples_stack_fn fn, void *ctx)
{
	return samples_stacks_of(
		df,
		"WITH w AS (SELECT pid, tid, kstack, ustack, TOTAL(weight) AS weight"
		" FROM sample_weights GROUP BY 1, 2, 3, 4),"
		" k AS (SELECT pid, tid, kstack, ustack, SUM(count) AS n FROM samples"
		" GROUP BY 1, 2, 3, 4)"
		" SELECT s.comm, s.ustack, s.kstack, CAST(ROUND(SUM(CASE WHEN k.n > 0"
		" THEN s.count * CAST(COALESCE(w.weight, k.n) AS REAL) / k.n ELSE 0 END))"
		" AS INTEGER) FROM samples s JOIN k ON k.pid IS s.pid AND k.tid IS s.tid"
		" AND k.kstack IS s.kstack AND k.ustack IS s.ustack LEFT JOIN w"
		" ON w.pid IS s.pid AND w.tid IS s.tid AND w.kstack IS s.kstack"
		" AND w.ustack IS s.ustack GROUP BY s.comm, s.ustack, s.kstack",
		fn, ctx);
}
