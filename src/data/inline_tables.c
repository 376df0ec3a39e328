// SPDX-License-Identifier: GPL-2.0-only
/*
 * The queries on the inlines table and the inline_* TEMP tables, and the
 * format of its ranges column (see inline_tables.h).
 */
#include "data/inline_tables.h"

#include <errno.h>
#include <string.h>

#include "data/query.h"

/* At most so many ranges to one instance: a function inlined in pieces, not a table. */
#define MAX_RANGES 4096
#define MIN(a, b)  ((a) < (b) ? (a) : (b))

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One address of a range as record writes it: 0x, then 1 to 16 hex digits. */
static int parse_addr(const char **p, __u64 *v)
{
	const char *q = *p;
	int d, n = 0;

	if (strncmp(q, "0x", 2))
		return -EINVAL;
	for (q += 2, *v = 0; (d = hex_digit(*q)) >= 0; q++, n++) {
		if (n == 16)
			return -EINVAL;
		*v = *v << 4 | d;
	}
	*p = q;
	return n ? 0 : -EINVAL;
}

/* Range "lo-hi" at *p, lo < hi, followed by a space or the end. */
static int parse_range(const char **p, __u64 *lo, __u64 *hi)
{
	if (parse_addr(p, lo) || *(*p)++ != '-' || parse_addr(p, hi) || (**p && **p != ' '))
		return -EINVAL;
	return *lo < *hi ? 0 : -EINVAL;
}

int inline_tables_ranges(struct datafile *df, long long row, const char *text,
			 inline_tables_range_fn fn, void *ctx)
{
	return inline_tables_ranges_of(df, "inlines", row, text, fn, ctx);
}

int inline_tables_ranges_of(struct datafile *df, const char *table, long long row, const char *text,
			    inline_tables_range_fn fn, void *ctx)
{
	const char *p = text, *at;
	__u64 lo, hi;
	int n = 0, err = 0;

	while (!err) {
		p += strspn(p, " ");
		if (!*p)
			break;
		at = p;
		if (parse_range(&p, &lo, &hi))
			return query_bad(df,
					 "table %s, row %lld: ranges: '%.*s' is not a range"
					 " 0xLO-0xHI with LO < HI",
					 table, row, (int)MIN(strcspn(at, " "), 40), at);
		if (n++ == MAX_RANGES)
			return query_bad(df, "table %s, row %lld: more than %d ranges", table, row,
					 MAX_RANGES);
		err = fn ? fn(lo, hi, ctx) : 0;
	}
	return err;
}

static const char tables_sql[] =
	"CREATE TEMP TABLE inline_stacks(inst INTEGER, stack INTEGER, self INTEGER);"
	"CREATE TEMP TABLE inline_dies(die INTEGER PRIMARY KEY, inst INTEGER);"
	"CREATE TEMP TABLE inline_ranges(inst INTEGER, lo INTEGER, hi INTEGER);";

int inline_tables_create(struct datafile *df)
{
	return query_exec(df, tables_sql);
}

struct die_walk {
	inline_tables_die_fn fn;
	void *ctx;
};

static int die_row(sqlite3_stmt *st, void *ctx)
{
	struct die_walk *w = ctx;

	return w->fn(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), w->ctx);
}

int inline_tables_sampled_dies(struct datafile *df, inline_tables_die_fn fn, void *ctx)
{
	return query_each(df, "SELECT die, MAX(func_die) FROM frames WHERE inl = 1 GROUP BY die",
			  die_row, &(struct die_walk){fn, ctx}, "");
}

int inline_tables_add_die(struct datafile *df, __u64 die, long long inst)
{
	return query_insert(df, "INSERT INTO inline_dies VALUES(?,?)", "ii", (long long)die, inst);
}

int inline_tables_add_range(struct datafile *df, long long inst, __u64 lo, __u64 hi)
{
	return query_insert(df, "INSERT INTO inline_ranges VALUES(?,?,?)", "iii", inst,
			    (long long)lo, (long long)hi);
}

struct probed_walk {
	inline_tables_probed_fn fn;
	void *ctx;
};

static int probed_row(sqlite3_stmt *st, void *ctx)
{
	struct probed_walk *w = ctx;
	struct inline_tables_probed p = {
		.func = sqlite3_column_int64(st, 0),
		.name = query_text(st, 1),
		.parent = query_text(st, 2),
		.call_file = query_text(st, 3),
		.call_line = sqlite3_column_int(st, 4),
		.entry = sqlite3_column_int64(st, 5),
		.ranges = query_text(st, 6),
		.bytes = sqlite3_column_int64(st, 7),
		.method = query_text(st, 8),
		.done = sqlite3_column_int64(st, 9),
		.total_ns = sqlite3_column_int64(st, 10),
		.max_ns = sqlite3_column_int64(st, 11),
	};

	return w->fn(&p, w->ctx);
}

static const char probed_sql[] =
	"SELECT i.func, i.name, i.parent, i.call_file, i.call_line, i.entry, i.ranges, i.bytes,"
	" f.method, l.done, l.total_ns, l.max_ns FROM inlines i JOIN funcs f ON f.id = i.func"
	" LEFT JOIN latency l ON l.kind = 'func' AND l.id = i.func ORDER BY i.func";

int inline_tables_probed(struct datafile *df, inline_tables_probed_fn fn, void *ctx)
{
	return query_each(df, probed_sql, probed_row, &(struct probed_walk){fn, ctx}, "");
}

/* The stacks through each instance with a DIE, and whether at the leaf. */
static const char die_stacks_sql[] =
	"INSERT INTO inline_stacks SELECT d.inst, f.stack, MAX(f.depth = 0) FROM frames f"
	" JOIN inline_dies d ON d.die = f.die WHERE f.inl = 1 GROUP BY f.stack, f.die";

/* The stacks with a pc in the recorded ranges of an instance without DIE. */
static const char range_stacks_sql[] =
	"INSERT INTO inline_stacks SELECT r.inst, f.stack, MAX(f.depth = 0) FROM inline_ranges r"
	" JOIN frames f ON f.space = 'k' AND f.sub = 0 AND f.pc >= r.lo AND f.pc < r.hi"
	" GROUP BY r.inst, f.stack";

int inline_tables_fill_stacks(struct datafile *df)
{
	return query_exec(df, die_stacks_sql) ?: query_exec(df, range_stacks_sql);
}

struct count_walk {
	inline_tables_count_fn fn;
	void *ctx;
};

static int count_row(sqlite3_stmt *st, void *ctx)
{
	struct count_walk *w = ctx;

	return w->fn(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		     sqlite3_column_int64(st, 2), w->ctx);
}

static const char count_sql[] =
	"SELECT h.inst, SUM(CASE WHEN h.self THEN s.n ELSE 0 END), SUM(s.n) FROM (SELECT inst,"
	" stack, MAX(self) AS self FROM inline_stacks GROUP BY inst, stack) h"
	" JOIN kstack_samples s ON s.stack = h.stack GROUP BY h.inst";

int inline_tables_counts(struct datafile *df, inline_tables_count_fn fn, void *ctx)
{
	return query_each(df, count_sql, count_row, &(struct count_walk){fn, ctx}, "");
}

static const char parent_samples_sql[] =
	"CREATE TEMP TABLE parent_samples(name TEXT PRIMARY KEY, n INTEGER);"
	"INSERT INTO parent_samples SELECT f.base, SUM(s.n) FROM (SELECT DISTINCT stack,"
	" kp_func_base(name) AS base FROM frames WHERE space = 'k' AND sub = 0) f"
	" JOIN kstack_samples s ON s.stack = f.stack GROUP BY f.base";

int inline_tables_parents_create(struct datafile *df)
{
	return query_exec(df, parent_samples_sql);
}

struct parent {
	long long *samples, *calls;
};

static int parent_row(sqlite3_stmt *st, void *ctx)
{
	struct parent *p = ctx;

	*p->samples = sqlite3_column_int64(st, 0);
	*p->calls = sqlite3_column_int64(st, 1);
	return 0;
}

/* A function timed as a function, not an inline instance or by its samples. */
static const char parent_sql[] =
	"SELECT (SELECT n FROM parent_samples WHERE name = ?1), (SELECT l.done FROM latency l"
	" JOIN funcs f ON l.kind = 'func' AND l.id = f.id WHERE f.name = ?1 AND f.method NOT IN"
	" ('inline-kprobe', 'samples'))";

int inline_tables_parent(struct datafile *df, const char *parent, long long *samples,
			 long long *calls)
{
	*samples = 0;
	*calls = 0;
	return query_each(df, parent_sql, parent_row, &(struct parent){samples, calls}, "t",
			  parent);
}
