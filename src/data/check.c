// SPDX-License-Identifier: GPL-2.0-only
/*
 * The values a data file may hold, table by table, checked once when it is
 * opened (check.h).  Checking every column of every table here, rather than
 * each value where a query happens to read it, leaves no reader unchecked
 * (aggregates such as SUM() see only checked values) and names the table's
 * own row, which an aggregate's result row could not.  The bounds keep the
 * arithmetic that follows far from overflow: a count is at most 2^40, a
 * time at most 2^60 ns.
 */
#include "data/check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "data/inline_tables.h"
#include "data/model.h"
#include "data/protect.h"
#include "data/query.h"
#include "kprotperf.h"
#include "util/hist.h"

/* What a column may hold: each is an SQL test true on a bad value. */
enum rule {
	R_INT,	    /* any integer: addresses, pids, stack ids (< 0: lost) */
	R_INT_NULL, /* an integer or NULL */
	R_ID,	    /* 0 to 2^31 - 1: syscall numbers, funcs.id, runs */
	R_LINE,	    /* 0 to 2^31 - 1 */
	R_COUNT,    /* 0 to 2^40 */
	R_NS,	    /* 0 to 2^60 */
	R_DEPTH,    /* a frame's depth in a stack */
	R_BUCKET,   /* a latency histogram bucket */
	R_NAME,	    /* text of at most 4096 bytes, no NUL */
	R_NAME_NULL,
	R_TEXT, /* text of at most 1 MiB, no NUL: meta values, inline ranges */
	R_TEXT_NULL,
	R_COUNT_NULL, /* a count or NULL: unknown */
	R_ID_NULL,
	R_BLOCK_END, /* a block index, or -1 (the entering call), -2 (leaving) */
	R_BOOL,
	R_EDGE_KIND,
	R_WHAT,
	R_ID_OR_NONE, /* an id, or -1: none */
	R_SITE_LEN,   /* a protected site's bytes: 1 to PROTECT_SITE_MAX */
	R_GEOM,	      /* a cache geometry's index: 0 to MODEL_GEOMS_MAX - 1 */
	R_POW2,	      /* a cache's size, ways or line: a power of two up to 2^32 */
	R_NS_NULL,    /* a time or NULL: unknown */
	R_RET,	      /* an initcall's return value: a negative errno to 2^31-1 */
};

#define STR(x)	   #x
#define XSTR(x)	   STR(x)
#define IS_INT	   "typeof(%1$s) != 'integer'"
#define RANGE(hi)  IS_INT " OR %1$s NOT BETWEEN 0 AND " hi
#define NO_NUL	   " OR instr(CAST(%1$s AS BLOB), x'00')"
#define LEN(max)   "typeof(%1$s) != 'text' OR length(CAST(%1$s AS BLOB)) > " max NO_NUL
#define OR_NULL(t) "%1$s IS NOT NULL AND (" t ")"

static const struct {
	const char *bad;  /* a printf format: the column is %1$s, the last bucket %2$d */
	const char *want; /* a printf format: the last bucket is %d */
} rules[] = {
	[R_INT] = {IS_INT, "an integer"},
	[R_INT_NULL] = {OR_NULL(IS_INT), "an integer or NULL"},
	[R_ID] = {RANGE("2147483647"), "an id from 0 to 2^31-1"},
	[R_LINE] = {RANGE("2147483647"), "a line from 0 to 2^31-1"},
	[R_COUNT] = {RANGE("1099511627776"), "a count from 0 to 2^40"},
	[R_NS] = {RANGE("1152921504606846976"), "a time from 0 to 2^60 ns"},
	[R_DEPTH] = {RANGE(XSTR(KP_STACK_DEPTH)), "a depth from 0 to " XSTR(KP_STACK_DEPTH)},
	[R_BUCKET] = {IS_INT " OR %1$s NOT BETWEEN 0 AND %2$d", "a histogram bucket from 0 to %d"},
	[R_NAME] = {LEN("4096"), "text of at most 4096 bytes without NUL"},
	[R_NAME_NULL] = {OR_NULL(LEN("4096")), "NULL or text of at most 4096 bytes without NUL"},
	[R_TEXT] = {LEN("1048576"), "text of at most 1 MiB without NUL"},
	[R_TEXT_NULL] = {OR_NULL(LEN("1048576")), "NULL or text of at most 1 MiB without NUL"},
	[R_COUNT_NULL] = {OR_NULL(RANGE("1099511627776")), "NULL or a count from 0 to 2^40"},
	[R_ID_NULL] = {OR_NULL(RANGE("2147483647")), "NULL or an index from 0 to 2^31-1"},
	[R_BLOCK_END] = {IS_INT " OR %1$s NOT BETWEEN -2 AND 2147483647",
			 "a block index, -1 or -2"},
	[R_BOOL] = {IS_INT " OR %1$s NOT IN (0, 1)", "0 or 1"},
	[R_EDGE_KIND] = {"typeof(%1$s) != 'text' OR %1$s NOT IN ('entry', 'fall', 'jump', 'taken',"
			 " 'not_taken', 'return', 'tail', 'indirect', 'noreturn', 'trap')",
			 "an edge kind (entry, fall, jump, taken, ...)"},
	[R_WHAT] = {"typeof(%1$s) != 'text' OR %1$s NOT IN ('insns', 'trips')", "insns or trips"},
	[R_ID_OR_NONE] = {IS_INT " OR %1$s NOT BETWEEN -1 AND 2147483647",
			  "an id from 0 to 2^31-1, or -1"},
	[R_SITE_LEN] = {IS_INT " OR %1$s NOT BETWEEN 1 AND " XSTR(PROTECT_SITE_MAX),
			"a length from 1 to " XSTR(PROTECT_SITE_MAX)},
	[R_GEOM] = {IS_INT " OR %1$s NOT BETWEEN 0 AND " XSTR(MODEL_GEOMS_MAX) " - 1",
		    "a geometry index below " XSTR(MODEL_GEOMS_MAX)},
	[R_POW2] = {IS_INT " OR %1$s NOT BETWEEN 1 AND 4294967296 OR (%1$s & (%1$s - 1)) != 0",
		    "a power of two up to 2^32"},
	[R_NS_NULL] = {OR_NULL(RANGE("1152921504606846976")), "NULL or a time from 0 to 2^60 ns"},
	[R_RET] = {IS_INT " OR %1$s NOT BETWEEN -2147483648 AND 2147483647", "a 32-bit integer"},
};

struct column {
	const char *name;
	enum rule rule;
};

/* The tables and columns of docs/datafile.md, as record writes them. */
static const struct table {
	const char *name;
	struct column cols[11]; /* up to the first without a name */
} tables[] = {
	{"meta", {{"key", R_NAME}, {"value", R_TEXT}}},
	{"config", {{"option", R_NAME}, {"value", R_TEXT}}},
	{"vulnerabilities", {{"name", R_NAME}, {"status", R_TEXT}}},
	{"counters", {{"name", R_NAME}, {"value", R_NS}}},
	{"latency",
	 {{"kind", R_NAME},
	  {"id", R_ID},
	  {"name", R_NAME_NULL},
	  {"calls", R_COUNT},
	  {"done", R_COUNT},
	  {"total_ns", R_NS},
	  {"oncpu_ns", R_NS},
	  {"offcpu_ns", R_NS},
	  {"max_ns", R_NS}}},
	{"latency_hist",
	 {{"kind", R_NAME},
	  {"id", R_ID},
	  {"clock", R_NAME},
	  {"bucket", R_BUCKET},
	  {"lo_ns", R_NS},
	  {"hi_ns", R_NS},
	  {"count", R_COUNT}}},
	{"tasks", {{"pid", R_INT}, {"ppid", R_INT}, {"comm", R_NAME_NULL}, {"exited", R_INT}}},
	{"maps",
	 {{"pid", R_INT},
	  {"start", R_INT},
	  {"end", R_INT},
	  {"pgoff", R_INT},
	  {"path", R_NAME_NULL},
	  {"build_id", R_NAME_NULL}}},
	{"samples",
	 {{"pid", R_INT},
	  {"tid", R_INT},
	  {"comm", R_NAME},
	  {"kstack", R_INT_NULL},
	  {"ustack", R_INT_NULL},
	  {"count", R_COUNT}}},
	{"kstack_frames", {{"stack", R_INT}, {"depth", R_DEPTH}, {"addr", R_INT}}},
	{"ksyms", {{"addr", R_INT}, {"name", R_NAME}, {"module", R_NAME_NULL}}},
	{"ustack_frames",
	 {{"stack", R_INT},
	  {"depth", R_DEPTH},
	  {"addr", R_INT},
	  {"module", R_NAME},
	  {"symbol", R_NAME_NULL},
	  {"offset", R_INT}}},
	{"funcs",
	 {{"id", R_ID},
	  {"name", R_NAME},
	  {"symbol", R_NAME_NULL},
	  {"addr", R_INT},
	  {"module", R_NAME_NULL},
	  {"method", R_NAME_NULL}}},
	{"func_syscalls", {{"func", R_ID}, {"nr", R_ID}, {"calls", R_COUNT}, {"total_ns", R_NS}}},
	{"func_stacks",
	 {{"func", R_ID}, {"kstack", R_INT}, {"calls", R_COUNT}, {"total_ns", R_NS}}},
	{"func_contexts",
	 {{"func", R_ID}, {"context", R_NAME_NULL}, {"calls", R_COUNT}, {"total_ns", R_NS}}},
	{"inlines",
	 {{"func", R_ID},
	  {"name", R_NAME},
	  {"parent", R_NAME},
	  {"call_file", R_NAME_NULL},
	  {"call_line", R_LINE},
	  {"entry", R_INT},
	  {"ranges", R_TEXT_NULL},
	  {"bytes", R_COUNT},
	  {"exits", R_TEXT_NULL}}},
	{"func_absent", {{"pattern", R_NAME}}},
	{"runs",
	 {{"run", R_ID}, {"wall_ns", R_NS}, {"exit_code", R_INT_NULL}, {"end", R_NAME_NULL}}},
	{"run_latency",
	 {{"run", R_ID},
	  {"kind", R_NAME},
	  {"id", R_ID},
	  {"calls", R_COUNT},
	  {"done", R_COUNT},
	  {"total_ns", R_NS},
	  {"oncpu_ns", R_NS},
	  {"offcpu_ns", R_NS}}},
	{"run_samples",
	 {{"run", R_ID}, {"kstack", R_INT_NULL}, {"ustack", R_INT_NULL}, {"count", R_COUNT}}},
	/* schema 6: record --blocks */
	{"blocks",
	 {{"func", R_NAME},
	  {"block", R_ID},
	  {"start", R_INT},
	  {"end", R_INT},
	  {"insns", R_COUNT},
	  {"count", R_COUNT_NULL},
	  {"probed", R_BOOL},
	  {"loop", R_ID_NULL}}},
	{"block_edges",
	 {{"func", R_NAME},
	  {"edge", R_ID},
	  {"src", R_BLOCK_END},
	  {"dst", R_BLOCK_END},
	  {"kind", R_EDGE_KIND},
	  {"count", R_COUNT_NULL}}},
	{"block_loops",
	 {{"func", R_NAME},
	  {"loop", R_ID},
	  {"head", R_ID},
	  {"parent", R_ID_NULL},
	  {"depth", R_ID},
	  {"irreducible", R_BOOL},
	  {"entries", R_COUNT_NULL},
	  {"iterations", R_COUNT_NULL}}},
	{"block_values",
	 {{"func", R_NAME},
	  {"what", R_WHAT},
	  {"loop", R_BLOCK_END},
	  {"ctx", R_NAME},
	  {"value", R_COUNT},
	  {"count", R_COUNT}}},
	{"block_funcs",
	 {{"func", R_NAME},
	  {"addr", R_INT},
	  {"size", R_COUNT},
	  {"calls", R_COUNT},
	  {"complete", R_COUNT},
	  {"lost", R_COUNT},
	  {"unprobed", R_TEXT}}},
	/* schema 7: --blocks of inline instances, loop bounds, contexts, runs */
	{"block_inlines",
	 {{"func", R_NAME},
	  {"name", R_NAME},
	  {"parent", R_NAME},
	  {"call_file", R_NAME},
	  {"call_line", R_LINE},
	  {"entry", R_INT},
	  {"ranges", R_TEXT}}},
	{"block_bounds",
	 {{"func", R_NAME},
	  {"loop", R_ID},
	  {"block", R_ID},
	  {"bound", R_NAME},
	  {"counter", R_NAME},
	  {"cond", R_NAME}}},
	{"block_bound_values",
	 {{"func", R_NAME},
	  {"loop", R_ID},
	  {"ctx", R_NAME},
	  {"bound", R_INT},
	  {"trips", R_COUNT},
	  {"count", R_COUNT}}},
	{"block_contexts",
	 {{"func", R_NAME},
	  {"syscall", R_ID_OR_NONE},
	  {"kstack", R_INT},
	  {"ctx", R_NAME},
	  {"calls", R_COUNT},
	  {"insns", R_COUNT}}},
	{"block_runs", {{"func", R_NAME}, {"run", R_ID}, {"block", R_ID}, {"count", R_COUNT_NULL}}},
	{"block_run_edges",
	 {{"func", R_NAME}, {"run", R_ID}, {"edge", R_ID}, {"count", R_COUNT_NULL}}},
	{"block_run_calls",
	 {{"func", R_NAME},
	  {"run", R_ID},
	  {"calls", R_COUNT},
	  {"complete", R_COUNT},
	  {"lost", R_COUNT}}},
	/* schema 8: the compiler-inserted protections of the code that ran */
	{"protect_funcs", {{"addr", R_INT}, {"name", R_NAME}, {"size", R_COUNT}}},
	{"protect_sites", {{"addr", R_INT}, {"len", R_SITE_LEN}, {"kind", R_NAME}}},
	/* schema 9: the machine model */
	{"model_pcs", {{"pc", R_INT}, {"insns", R_COUNT}}},
	{"model_misses",
	 {{"pc", R_INT},
	  {"geom", R_GEOM},
	  {"i1_misses", R_COUNT},
	  {"d1_reads", R_COUNT},
	  {"d1_read_misses", R_COUNT},
	  {"d1_writes", R_COUNT},
	  {"d1_write_misses", R_COUNT},
	  {"ll_misses", R_COUNT}}},
	{"model_geoms",
	 {{"geom", R_GEOM},
	  {"i1_size", R_POW2},
	  {"i1_assoc", R_POW2},
	  {"i1_line", R_POW2},
	  {"d1_size", R_POW2},
	  {"d1_assoc", R_POW2},
	  {"d1_line", R_POW2},
	  {"ll_size", R_POW2},
	  {"ll_assoc", R_POW2},
	  {"ll_line", R_POW2}}},
	{"usyms", {{"addr", R_INT}, {"size", R_COUNT}, {"name", R_NAME}, {"module", R_NAME}}},
	/* schema 10: kprotperf boot */
	{"boot_runs",
	 {{"run", R_ID},
	  {"clock_offset_ns", R_NS_NULL},
	  {"initcalls_end_ns", R_NS_NULL},
	  {"first_user_ns", R_NS_NULL},
	  {"entry_insns", R_COUNT_NULL},
	  {"first_user_insns", R_COUNT_NULL},
	  {"initcalls", R_COUNT}}},
	{"boot_initcalls",
	 {{"run", R_ID},
	  {"seq", R_ID},
	  {"name", R_NAME},
	  {"start_ns", R_NS},
	  {"ns", R_NS},
	  {"ret", R_RET}}},
	{"boot_funcs", {{"run", R_ID}, {"name", R_NAME}, {"module", R_NAME}, {"insns", R_COUNT}}},
	{"boot_func_misses",
	 {{"run", R_ID},
	  {"name", R_NAME},
	  {"module", R_NAME},
	  {"geom", R_GEOM},
	  {"i1_misses", R_COUNT},
	  {"d1_reads", R_COUNT},
	  {"d1_read_misses", R_COUNT},
	  {"d1_writes", R_COUNT},
	  {"d1_write_misses", R_COUNT},
	  {"ll_misses", R_COUNT}}},
};

/* "SELECT rowid, CASE WHEN bad0 THEN 0 WHEN bad1 THEN 1 ... END AS c FROM t WHERE c NOT NULL" */
static int check_sql(const struct table *t, char *sql, size_t len)
{
	size_t n = snprintf(sql, len, "SELECT rowid, CASE");
	const struct column *c;

	for (c = t->cols; c->name && n < len; c++) {
		n += snprintf(sql + n, len - n, " WHEN ");
		if (n < len)
			n += snprintf(sql + n, len - n, rules[c->rule].bad, c->name,
				      KP_HIST_BUCKETS - 1);
		if (n < len)
			n += snprintf(sql + n, len - n, " THEN %d", (int)(c - t->cols));
	}
	if (n < len)
		n += snprintf(sql + n, len - n, " END AS c FROM %s WHERE c IS NOT NULL LIMIT 1",
			      t->name);
	return n < len ? 0 : -ENAMETOOLONG;
}

/* The first bad row: rowid and column index, both -1 when none. */
static int bad_row(sqlite3_stmt *st, void *ctx)
{
	long long *found = ctx;

	found[0] = sqlite3_column_int64(st, 0);
	found[1] = sqlite3_column_int64(st, 1);
	return 1;
}

/* The bad value, quoted as SQL would, cut short (query_bad makes it printable). */
static int quote_row(sqlite3_stmt *st, void *ctx)
{
	const char *q = query_str(st, 0);

	snprintf(ctx, 48, "%s%s", q, strlen(q) >= 40 ? "..." : "");
	return 1;
}

static int say_bad(struct datafile *df, const struct table *t, long long row, int col)
{
	const struct column *c = &t->cols[col];
	char sql[160], value[48] = "?", want[80];

	snprintf(sql, sizeof(sql), "SELECT substr(quote(%s), 1, 40) FROM %s WHERE rowid = ?",
		 c->name, t->name);
	query_each(df, sql, quote_row, value, "i", row);
	snprintf(want, sizeof(want), rules[c->rule].want, KP_HIST_BUCKETS - 1);
	return query_bad(df, "table %s, row %lld: %s is %s, not %s", t->name, row, c->name, value,
			 want);
}

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/*
 * t's check_sql, made once: the same for every file, and printf's
 * positional arguments were a fifth of a check of a small file's values.
 */
static const char *table_sql(const struct table *t)
{
	static char *made[NTABLES];
	char sql[4096];

	if (!made[t - tables] && !check_sql(t, sql, sizeof(sql)))
		made[t - tables] = strdup(sql);
	return made[t - tables];
}

static int check_table(struct datafile *df, const struct table *t)
{
	long long found[2] = {-1, -1};
	const char *sql = table_sql(t);
	int err = sql ? query_each(df, sql, bad_row, found, "") : -ENOMEM;

	if (err < 0)
		/* a table or column missing: the schema is not the one record writes */
		return query_bad(df, "table %s: %s", t->name, sqlite3_errmsg(query_db(df)));
	if (found[0] < 0 && found[1] < 0)
		return 0;
	return say_bad(df, t, found[0], (int)found[1]);
}

/* What some meta values must be: each is an SQL test true on a bad value. */
#define DIGITS(max)  "value = '' OR value GLOB '*[^0-9]*' OR length(value) > " max
#define UINT(lo, hi) DIGITS("19") " OR CAST(value AS INTEGER) NOT BETWEEN " lo " AND " hi
static const struct {
	const char *key, *bad, *want;
} meta_rules[] = {
	{"record.wall_ns", UINT("0", "1152921504606846976"), "a time from 0 to 2^60 ns"},
	{"sampling.freq_hz", UINT("1", "100000"), "a frequency from 1 to 100000"},
	{"cpu.count", UINT("1", "65536"), "a number of CPUs from 1 to 65536"},
	{"record.repeat", UINT("1", "100000"), "a number of runs from 1 to 100000"},
	{"record.exit_code", UINT("0", "255"), "an exit status from 0 to 255"},
	{"kernel.stext",
	 "value NOT GLOB '0x?*' OR substr(value, 3) GLOB '*[^0-9a-f]*' OR"
	 " length(value) > 18",
	 "an address 0x and 1 to 16 hex digits"},
};

/* The first meta row breaking its key's rule: rowid and rule, -1 when none. */
static int meta_sql(char *sql, size_t len)
{
	size_t i, n = snprintf(sql, len, "SELECT rowid, CASE");

	for (i = 0; i < sizeof(meta_rules) / sizeof(meta_rules[0]) && n < len; i++)
		n += snprintf(sql + n, len - n, " WHEN key = '%s' AND (%s) THEN %zu",
			      meta_rules[i].key, meta_rules[i].bad, i);
	if (n < len)
		n += snprintf(sql + n, len - n, " END AS c FROM meta WHERE c IS NOT NULL LIMIT 1");
	return n < len ? 0 : -ENAMETOOLONG;
}

static int check_meta(struct datafile *df)
{
	long long found[2] = {-1, -1};
	char sql[2048], value[48] = "?";
	int err = meta_sql(sql, sizeof(sql));

	err = err ?: query_each(df, sql, bad_row, found, "");
	if (err < 0 || found[0] < 0)
		return err < 0 ? err : 0;
	query_each(df, "SELECT substr(quote(value), 1, 40) FROM meta WHERE rowid = ?", quote_row,
		   value, "i", found[0]);
	return query_bad(df, "table meta, row %lld: %s is %s, not %s", found[0],
			 meta_rules[found[1]].key, value, meta_rules[found[1]].want);
}

/* Row (rowid, table, ranges) of an inline instance's ranges. */
static int ranges_row(sqlite3_stmt *st, void *df)
{
	return inline_tables_ranges_of(df, query_str(st, 1), sqlite3_column_int64(st, 0),
				       query_str(st, 2), NULL, NULL);
}

/* The columns readers add up: counts and times. */
static bool summed(const struct column *c)
{
	return c->rule == R_COUNT || c->rule == R_COUNT_NULL || c->rule == R_NS;
}

/* Which of t's summed columns sums past 2^63-1: each summed alone. */
static int find_overflow(struct datafile *df, const struct table *t)
{
	const struct column *c;
	char sql[160];
	int err = 0;

	for (c = t->cols; c->name && !err; c++) {
		if (!summed(c))
			continue;
		snprintf(sql, sizeof(sql), "SELECT SUM(%s) FROM %s", c->name, t->name);
		err = query_each(df, sql, NULL, NULL, "");
		if (err == -EBADMSG)
			err = query_bad(df, "table %s: %s sums to more than 2^63-1", t->name,
					c->name);
	}
	return err;
}

/*
 * Every column a reader sums (a count or a time) summed whole: all its values
 * are >= 0, so no reader's SUM() over part of them can overflow either.  All
 * of a table's in one statement, one pass over its rows; only when one
 * overflows are they summed again one by one, to name it.
 */
static int check_sums(struct datafile *df, const struct table *t)
{
	const struct column *c;
	char sql[1024];
	size_t n = 0;
	int err;

	for (c = t->cols; c->name && n < sizeof(sql); c++)
		if (summed(c))
			n += snprintf(sql + n, sizeof(sql) - n, "%sSUM(%s)",
				      n ? ", " : "SELECT ", c->name);
	if (!n)
		return 0;
	if (n < sizeof(sql))
		n += snprintf(sql + n, sizeof(sql) - n, " FROM %s", t->name);
	if (n >= sizeof(sql))
		return -ENAMETOOLONG;
	err = query_each(df, sql, NULL, NULL, "");
	return err == -EBADMSG ? find_overflow(df, t) ?: err : err;
}

/* A view or trigger runs SQL the file chose (a view named samples may never end). */
static int check_schema(struct datafile *df)
{
	char found[48] = "";
	int err = query_each(df,
			     "SELECT CASE WHEN sql LIKE 'CREATE VIRTUAL%' THEN 'virtual table'"
			     " ELSE type END || ' ' || substr(name, 1, 40) FROM sqlite_schema"
			     " WHERE type NOT IN ('table', 'index') OR sql LIKE 'CREATE VIRTUAL%'"
			     " LIMIT 1",
			     quote_row, found, "");

	if (err < 0)
		return query_bad(df, "its schema cannot be read");
	return *found ? query_bad(df, "it holds a %s, which record never writes", found) : 0;
}

/* A block is a range [start, end): report --blocks sizes and finds addresses by it. */
static int check_blocks(struct datafile *df)
{
	long long row = -1;
	int err = query_each(df, "SELECT rowid FROM blocks WHERE start >= end LIMIT 1",
			     query_int_row, &row, "");

	if (err < 0 || row < 0)
		return err < 0 ? err : 0;
	return query_bad(df, "table blocks, row %lld: start is not below end", row);
}

_Static_assert(NTABLES <= 64, "one bit per table in temp_tables()");

static int temp_row(sqlite3_stmt *st, void *ctx)
{
	unsigned long long *temp = ctx;
	const char *name = query_str(st, 0);
	size_t i;

	for (i = 0; i < NTABLES; i++)
		if (!strcmp(tables[i].name, name))
			*temp |= 1ULL << i;
	return 0;
}

/*
 * The tables opening made in TEMP, one bit each: those an older schema
 * lacks, which read as empty and hide any table of that name in the file.
 * Nothing in them to check, nor statements to compile for them (23 of the
 * tables for a schema-4 file).
 */
static unsigned long long temp_tables(struct datafile *df)
{
	unsigned long long temp = 0;

	if (query_each(df, "SELECT name FROM temp.sqlite_master WHERE type = 'table'", temp_row,
		       &temp, ""))
		return 0;
	return temp;
}

int check_tables(struct datafile *df)
{
	unsigned long long temp = temp_tables(df);
	size_t i;
	int err = check_schema(df);

	for (i = 0; i < NTABLES && !err; i++)
		if (!(temp & 1ULL << i))
			err = check_table(df, &tables[i]) ?: check_sums(df, &tables[i]);
	err = err ?: check_meta(df) ?: check_blocks(df);
	return err
		       ?: query_each(
				  df,
				  "SELECT rowid, 'inlines', ranges FROM inlines WHERE ranges IS NOT"
				  " NULL UNION ALL SELECT rowid, 'block_inlines', ranges FROM"
				  " block_inlines",
				  ranges_row, df, "");
}
