// SPDX-License-Identifier: GPL-2.0-only
/* The schema 13 tables' writers (count_tables.h): their SQL. */
#include "data/count_tables.h"

#include <stdio.h>
#include <sqlite3.h>

#include "data/query.h"

const char *const count_source_names[COUNT_SRC_N] = {
	[COUNT_SRC_PERF] = "perf",	     [COUNT_SRC_CLOCK] = "clock",
	[COUNT_SRC_SWITCH] = "sched_switch", [COUNT_SRC_MIGRATE] = "sched_migrate_task",
	[COUNT_SRC_FAULT] = "page_fault",    [COUNT_SRC_MINFLT] = "min_flt",
	[COUNT_SRC_MAJFLT] = "maj_flt",
};

int count_put_event(struct datafile *df, const struct count_event_row *r)
{
	return query_insert(df, "INSERT INTO count_events VALUES(?,?,?,?,?,?)", "itiiii",
			    (long long)r->event, r->name, (long long)r->type, (long long)r->config,
			    (long long)r->config1, (long long)r->config2);
}

int count_put_total(struct datafile *df, const struct count_total_row *r)
{
	return query_insert(df, "INSERT INTO event_totals VALUES(?,?,?,?,?,?,?)", "tiiiiii",
			    r->kind, r->id, (long long)r->event, (long long)r->calls,
			    (long long)r->total, (long long)r->enabled_ns,
			    (long long)r->running_ns);
}

int count_put_run_total(struct datafile *df, unsigned int run, const struct count_total_row *r)
{
	return query_insert(df, "INSERT INTO run_event_totals VALUES(?,?,?,?,?,?,?,?)", "itiiiiii",
			    (long long)run, r->kind, r->id, (long long)r->event,
			    (long long)r->calls, (long long)r->total, (long long)r->enabled_ns,
			    (long long)r->running_ns);
}

int count_put_weight(struct datafile *df, __u32 pid, __u32 tid, const __s32 *kstack,
		     long long ustack, __u64 weight)
{
	if (!kstack)
		return query_insert(df, "INSERT INTO sample_weights VALUES(?,?,NULL,?,?)", "iiii",
				    (long long)pid, (long long)tid, ustack, (long long)weight);
	return query_insert(df, "INSERT INTO sample_weights VALUES(?,?,?,?,?)", "iiiii",
			    (long long)pid, (long long)tid, (long long)*kstack, ustack,
			    (long long)weight);
}

/* The first row (rowid, table) of what sql finds wrong. */
struct bad_row {
	long long row;
	char table[24];
};

static int bad_row(sqlite3_stmt *st, void *ctx)
{
	struct bad_row *b = ctx;

	b->row = sqlite3_column_int64(st, 0);
	snprintf(b->table, sizeof(b->table), "%s", query_str(st, 1));
	return 1;
}

/*
 * Schema 13 across its tables: each total's event is one count_events
 * names, and the events a samples key stands for are at least its samples
 * (a period is at least 1).
 */
int count_tables_check(struct datafile *df)
{
	struct bad_row b = {.row = -1};
	int err = query_each(
		df,
		"SELECT rowid, 'event_totals' FROM event_totals WHERE event NOT IN (SELECT event"
		" FROM count_events) UNION ALL SELECT rowid, 'run_event_totals' FROM"
		" run_event_totals WHERE event NOT IN (SELECT event FROM count_events) LIMIT 1",
		bad_row, &b, "");

	if (err >= 0 && b.row >= 0)
		return query_bad(df, "table %s, row %lld: event is not one of count_events",
				 b.table, b.row);
	err = err < 0 ? err
		      : query_each(
				df,
				"SELECT w.r, 'sample_weights' FROM (SELECT MIN(rowid) AS r, pid,"
				" tid, kstack, ustack, SUM(weight) AS wt FROM sample_weights"
				" GROUP BY pid, tid, kstack, ustack) AS w JOIN (SELECT pid, tid,"
				" kstack, ustack, SUM(count) AS c FROM samples GROUP BY pid, tid,"
				" kstack, ustack) AS s ON s.pid = w.pid AND s.tid = w.tid AND"
				" s.kstack IS w.kstack AND s.ustack IS w.ustack WHERE w.wt < s.c"
				" LIMIT 1",
				bad_row, &b, "");
	if (err < 0)
		return query_bad(df, "its counted events cannot be read");
	if (b.row >= 0)
		return query_bad(df,
				 "table sample_weights, row %lld: weight is below its samples'"
				 " count",
				 b.row);
	return 0;
}
