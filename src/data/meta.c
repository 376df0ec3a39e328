// SPDX-License-Identifier: GPL-2.0-only
/* The queries on what a recording says about itself (see meta.h). */
#include "data/meta.h"

#include "data/query.h"

static const char *const list_sql[] = {
	[META_ALL] = "SELECT key, value FROM meta ORDER BY key",
	[META_CONFIG] = "SELECT option, value FROM config ORDER BY option",
	[META_VULNERABILITIES] = "SELECT name, status FROM vulnerabilities ORDER BY name",
	[META_COUNTERS] = "SELECT name, value FROM counters ORDER BY name",
	[META_CONFIG_SHORT] =
		"SELECT replace(option, 'CONFIG_', ''), value FROM config ORDER BY option",
	[META_NOT_MITIGATED] = "SELECT name, replace(status, ' ', '_') FROM vulnerabilities"
			       " WHERE status LIKE 'Vulnerable%'",
	[META_MITIGATED] = "SELECT name, replace(status, ' ', '_') FROM vulnerabilities"
			   " WHERE status NOT LIKE 'Vulnerable%' AND status <> 'Not affected'",
	[META_NOT_AFFECTED] = "SELECT name, '' FROM vulnerabilities WHERE status = 'Not affected'",
	[META_LOST] = "SELECT name, value FROM counters WHERE name LIKE 'lost%' AND value > 0",
	[META_BPF_STATS] =
		"SELECT name, value FROM counters WHERE name LIKE 'bpf\\_run%' ESCAPE '\\'"
		" ORDER BY name",
};

struct walk {
	meta_fn fn;
	void *ctx;
};

static int pair_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct meta_pair p;

	/* the number first: it leaves the column's text as it is */
	p.num = sqlite3_column_int64(st, 1);
	p.key = query_str(st, 0);
	p.value = query_str(st, 1);
	return w->fn(&p, w->ctx);
}

int meta_each(struct datafile *df, enum meta_list list, meta_fn fn, void *ctx)
{
	return query_each(df, list_sql[list], pair_row, &(struct walk){fn, ctx}, "");
}

long long meta_counter(struct datafile *df, const char *name)
{
	return query_scalar(df, "SELECT value FROM counters WHERE name = ?", name);
}

long long meta_lost(struct datafile *df)
{
	return query_scalar(
		df, "SELECT COALESCE(SUM(value), 0) FROM counters WHERE name LIKE 'lost%'", NULL);
}

long long meta_processes(struct datafile *df)
{
	return query_scalar(df, "SELECT count(DISTINCT pid) FROM tasks", NULL);
}
