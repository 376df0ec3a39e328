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
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "data/compat.h"
#include "data/count_tables.h"
#include "data/datafile_int.h"
#include "data/check_meta.h"
#include "data/inline_tables.h"
#include "data/model.h"
#include "data/protect.h"
#include "data/query.h"
#include "kprotperf.h"
#include "util/hist.h"

/* What a column may hold, checked in C on each row (check_row). */
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
	R_KIND,	      /* an instruction's kind (model_kind_names) or "-" */
	R_POW2_0,     /* a TLB's entries or ways: 0 (none) or a power of two up to 2^32 */
	R_EVENT,      /* a counted event's index: 0 to KP_COUNT_EVENTS_MAX - 1 */
	R_EVNAME,     /* an event's name: 1 to 256 printable ASCII bytes, no space */
	R_U32,	      /* 0 to 2^32 - 1: perf_event_attr.type */
	R_LATKIND,    /* a latency row's kind: syscall or func */
	R_CODE,	      /* an instruction's bytes: 1 to MODEL_RUNNING_BYTES, in lowercase hex */
};

#define STR(x)	   #x
#define XSTR(x)	   STR(x)
#define ID_MAX	   2147483647LL
#define COUNT_MAX  (1LL << 40)
#define NS_MAX	   (1LL << 60)
#define EVNAME_MAX 256
_Static_assert(KP_COUNT_EVENTS_MAX == 8, "R_EVENT's words say 0 to 7");

static const char *const edge_kinds[] = {"entry",     "fall",	"jump", "taken",
					 "not_taken", "return", "tail", "indirect",
					 "noreturn",  "trap",	NULL};
static const char *const whats[] = {"insns", "trips", NULL};
static const char *const lat_kinds[] = {"syscall", "func", NULL};
#define X(k, s) #k,
static const char *const kinds[] = {MODEL_KIND_LIST "-", NULL};
#undef X

/*
 * A column's rule: an integer from lo to hi (a power of two if pow2), text
 * of at most hi bytes without NUL, or one of words; NULL only if null_ok.
 * Text is measured as stored (the bytes CAST AS BLOB gives), as readers
 * bound their buffers by it.
 */
static const struct rule_def {
	enum { T_INT, T_TEXT, T_WORD, T_PRINT, T_HEX } type;
	bool null_ok, pow2;
	long long lo, hi;
	const char *const *words;
	const char *want; /* a printf format: the last bucket is %d */
} rules[] = {
	[R_INT] = {T_INT, false, false, LLONG_MIN, LLONG_MAX, NULL, "an integer"},
	[R_INT_NULL] = {T_INT, true, false, LLONG_MIN, LLONG_MAX, NULL, "an integer or NULL"},
	[R_ID] = {T_INT, false, false, 0, ID_MAX, NULL, "an id from 0 to 2^31-1"},
	[R_LINE] = {T_INT, false, false, 0, ID_MAX, NULL, "a line from 0 to 2^31-1"},
	[R_COUNT] = {T_INT, false, false, 0, COUNT_MAX, NULL, "a count from 0 to 2^40"},
	[R_NS] = {T_INT, false, false, 0, NS_MAX, NULL, "a time from 0 to 2^60 ns"},
	[R_DEPTH] = {T_INT, false, false, 0, KP_STACK_DEPTH, NULL,
		     "a depth from 0 to " XSTR(KP_STACK_DEPTH)},
	[R_BUCKET] = {T_INT, false, false, 0, KP_HIST_BUCKETS - 1, NULL,
		      "a histogram bucket from 0 to %d"},
	[R_NAME] = {T_TEXT, false, false, 0, 4096, NULL, "text of at most 4096 bytes without NUL"},
	[R_NAME_NULL] = {T_TEXT, true, false, 0, 4096, NULL,
			 "NULL or text of at most 4096 bytes without NUL"},
	[R_TEXT] = {T_TEXT, false, false, 0, 1048576, NULL, "text of at most 1 MiB without NUL"},
	[R_TEXT_NULL] = {T_TEXT, true, false, 0, 1048576, NULL,
			 "NULL or text of at most 1 MiB without NUL"},
	[R_COUNT_NULL] = {T_INT, true, false, 0, COUNT_MAX, NULL, "NULL or a count from 0 to 2^40"},
	[R_ID_NULL] = {T_INT, true, false, 0, ID_MAX, NULL, "NULL or an index from 0 to 2^31-1"},
	[R_BLOCK_END] = {T_INT, false, false, -2, ID_MAX, NULL, "a block index, -1 or -2"},
	[R_BOOL] = {T_INT, false, false, 0, 1, NULL, "0 or 1"},
	[R_EDGE_KIND] = {T_WORD, false, false, 0, 0, edge_kinds,
			 "an edge kind (entry, fall, jump, taken, ...)"},
	[R_WHAT] = {T_WORD, false, false, 0, 0, whats, "insns or trips"},
	[R_ID_OR_NONE] = {T_INT, false, false, -1, ID_MAX, NULL, "an id from 0 to 2^31-1, or -1"},
	[R_SITE_LEN] = {T_INT, false, false, 1, PROTECT_SITE_MAX, NULL,
			"a length from 1 to " XSTR(PROTECT_SITE_MAX)},
	[R_GEOM] = {T_INT, false, false, 0, MODEL_GEOMS_MAX - 1, NULL,
		    "a geometry index below " XSTR(MODEL_GEOMS_MAX)},
	[R_POW2] = {T_INT, false, true, 1, 1LL << 32, NULL, "a power of two up to 2^32"},
	[R_NS_NULL] = {T_INT, true, false, 0, NS_MAX, NULL, "NULL or a time from 0 to 2^60 ns"},
	[R_RET] = {T_INT, false, false, INT_MIN, INT_MAX, NULL, "a 32-bit integer"},
	[R_KIND] = {T_WORD, false, false, 0, 0, kinds,
		    "an instruction's kind (lfence, ret, ...) or -"},
	[R_POW2_0] = {T_INT, false, true, 0, 1LL << 32, NULL, "0 or a power of two up to 2^32"},
	[R_EVENT] = {T_INT, false, false, 0, KP_COUNT_EVENTS_MAX - 1, NULL,
		     "an event index from 0 to 7"},
	[R_EVNAME] = {T_PRINT, false, false, 1, EVNAME_MAX, NULL,
		      "1 to " XSTR(EVNAME_MAX) " printable ASCII bytes without spaces"},
	[R_U32] = {T_INT, false, false, 0, 0xffffffffLL, NULL, "an integer from 0 to 2^32-1"},
	[R_LATKIND] = {T_WORD, false, false, 0, 0, lat_kinds, "syscall or func"},
	[R_CODE] = {T_HEX, false, false, 2, 2 * MODEL_RUNNING_BYTES, NULL,
		    "1 to " XSTR(MODEL_RUNNING_BYTES) " bytes in lowercase hex"},
};

struct column {
	const char *name;
	enum rule rule;
};

/*
 * What is checked only once every value is good, found on the way: the
 * first row breaking a rule of several columns (a rowid may be any
 * integer, negative too: whether one was found is said apart).
 */
struct later {
	const struct meta_rule *meta_bad; /* the rule of the first meta value breaking one */
	bool block_bad, totals_bad, run_totals_bad;
	long long meta_row, block_row, totals_row, run_totals_row;
};

static void meta_later(sqlite3_stmt *st, struct later *later);
static void blocks_later(sqlite3_stmt *st, struct later *later);
static void totals_later(sqlite3_stmt *st, struct later *later);
static void run_totals_later(sqlite3_stmt *st, struct later *later);

#define COLS_MAX 11

/* The timing model's cycles and their stack, the last columns of two tables (a list's end). */
#define CYCLE_COLS                                                                        \
	{"cycles", R_COUNT}, {"base", R_COUNT}, {"branch", R_COUNT}, {"icache", R_COUNT}, \
		{"dcache", R_COUNT}, {"tlb", R_COUNT}, {"serialize", R_COUNT},

/* The tables and columns of docs/datafile.md, as record writes them. */
static const struct table {
	const char *name;
	struct column cols[COLS_MAX]; /* up to the first without a name */
	/* a check of the whole row, its columns good (the row: rowid, then cols) */
	void (*later)(sqlite3_stmt *st, struct later *later);
} tables[] = {
	{"meta", {{"key", R_NAME}, {"value", R_TEXT}}, meta_later},
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
	  {"loop", R_ID_NULL}},
	 blocks_later},
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
	/* schema 11: the model's TLBs and events */
	{"model_tlb",
	 {{"pc", R_INT}, {"geom", R_GEOM}, {"itlb_misses", R_COUNT}, {"dtlb_misses", R_COUNT}}},
	{"model_events", {{"pc", R_INT}, {"kind", R_KIND}, {"flushes", R_COUNT}}},
	{"model_tlbs",
	 {{"geom", R_GEOM},
	  {"itlb_entries", R_POW2_0},
	  {"itlb_assoc", R_POW2_0},
	  {"dtlb_entries", R_POW2_0},
	  {"dtlb_assoc", R_POW2_0}}},
	/* schema 12: a boot's TLBs and events */
	{"boot_func_tlb",
	 {{"run", R_ID},
	  {"name", R_NAME},
	  {"module", R_NAME},
	  {"geom", R_GEOM},
	  {"itlb_misses", R_COUNT},
	  {"dtlb_misses", R_COUNT}}},
	{"boot_func_events",
	 {{"run", R_ID},
	  {"name", R_NAME},
	  {"module", R_NAME},
	  {"kind", R_KIND},
	  {"execs", R_COUNT},
	  {"flushes", R_COUNT}}},
	{"boot_func_thunks",
	 {{"run", R_ID},
	  {"name", R_NAME},
	  {"module", R_NAME},
	  {"retpolines", R_COUNT},
	  {"return_thunks", R_COUNT}}},
	/* schema 13: record --count and -e */
	{"count_events",
	 {{"event", R_EVENT},
	  {"name", R_EVNAME},
	  {"type", R_U32},
	  {"config", R_INT},
	  {"config1", R_INT},
	  {"config2", R_INT}}},
	{"event_totals",
	 {{"kind", R_LATKIND},
	  {"id", R_ID},
	  {"event", R_EVENT},
	  {"calls", R_COUNT},
	  {"total", R_NS},
	  {"enabled_ns", R_NS},
	  {"running_ns", R_NS}},
	 totals_later},
	{"run_event_totals",
	 {{"run", R_ID},
	  {"kind", R_LATKIND},
	  {"id", R_ID},
	  {"event", R_EVENT},
	  {"calls", R_COUNT},
	  {"total", R_NS},
	  {"enabled_ns", R_NS},
	  {"running_ns", R_NS}},
	 run_totals_later},
	{"sample_weights",
	 {{"pid", R_INT},
	  {"tid", R_INT},
	  {"kstack", R_INT_NULL},
	  {"ustack", R_INT_NULL},
	  {"weight", R_NS}}},
	/* schema 14: the timing model's cycles */
	{"model_cycles", {{"pc", R_INT}, CYCLE_COLS}},
	/* schema 15: a boot's cycles under the timing model */
	{"boot_func_cycles", {{"run", R_ID}, {"name", R_NAME}, {"module", R_NAME}, CYCLE_COLS}},
	/* schema 16: the bytes patched kernel instructions ran */
	{"model_running", {{"pc", R_INT}, {"code", R_CODE}}},
	/* schema 17: the string helpers' accesses per call site */
	{"model_sites", {{"pc", R_INT}, {"site", R_INT}, {"reads", R_COUNT}, {"writes", R_COUNT}}},
	/* schema 18: those of them made by a slab allocator */
	{"model_alloc_sites",
	 {{"pc", R_INT},
	  {"site", R_INT},
	  {"alloc", R_INT},
	  {"reads", R_COUNT},
	  {"writes", R_COUNT}}},
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static bool word_ok(const char *const *words, const void *b, int n)
{
	for (; *words; words++)
		if ((size_t)n == strlen(*words) && !memcmp(b, *words, n))
			return true;
	return false;
}

/* Whether the n bytes at b are printable ASCII, without spaces (an event's name). */
static bool print_ok(const unsigned char *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (b[i] <= ' ' || b[i] > '~')
			return false;
	return true;
}

/* Whether the n bytes at b are lowercase hex digits (not NUL-terminated: a blob's). */
static bool hex_ok(const unsigned char *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f')))
			return false;
	return true;
}

/* Whether the row's column i keeps rule r. */
static bool value_ok(const struct rule_def *r, sqlite3_stmt *st, int i)
{
	int type = sqlite3_column_type(st, i), n;
	const void *b;
	long long v;

	if (type == SQLITE_NULL)
		return r->null_ok;
	if (r->type == T_INT) {
		v = sqlite3_column_int64(st, i);
		return type == SQLITE_INTEGER && v >= r->lo && v <= r->hi &&
		       (!r->pow2 || !(v & (v - 1)));
	}
	if (type != SQLITE_TEXT)
		return false;
	/* the bytes as stored, not converted (a UTF-16 file's NULs count) */
	b = sqlite3_column_blob(st, i);
	n = sqlite3_column_bytes(st, i);
	if (r->type == T_WORD)
		return word_ok(r->words, b, n);
	if (r->type == T_PRINT)
		return n >= r->lo && n <= r->hi && print_ok(b, n);
	if (r->type == T_HEX)
		return n >= r->lo && n <= r->hi && !(n % 2) && hex_ok(b, n);
	return n <= r->hi && (!n || !memchr(b, 0, n));
}

/* The columns readers add up: counts and times. */
static bool summed(const struct column *c)
{
	return c->rule == R_COUNT || c->rule == R_COUNT_NULL || c->rule == R_NS;
}

/* One table's walk: its first bad value, its sums, and what waits for later. */
struct scan {
	const struct table *t;
	long long row;	       /* the first bad value's rowid (any integer) */
	int col;	       /* and its column, -1 when none */
	unsigned int overflow; /* one bit a column: its sum passed 2^63-1 */
	long long sums[COLS_MAX];
	struct later *later;
};

/*
 * A row (rowid, then the table's columns): every value kept to its
 * column's rule, and every column a reader sums summed whole, as SQLite's
 * SUM() would, so that no reader's SUM() over part of them overflows (all
 * are >= 0).
 */
static int check_row(sqlite3_stmt *st, void *ctx)
{
	struct scan *s = ctx;
	const struct column *c;
	int i;

	for (c = s->t->cols, i = 0; c->name; c++, i++) {
		if (!value_ok(&rules[c->rule], st, i + 1)) {
			s->row = sqlite3_column_int64(st, 0);
			s->col = i;
			return 1;
		}
		if (summed(c) && !(s->overflow & 1U << i) &&
		    __builtin_add_overflow(s->sums[i], sqlite3_column_int64(st, i + 1),
					   &s->sums[i]))
			s->overflow |= 1U << i;
	}
	if (s->t->later)
		s->t->later(st, s->later);
	return 0;
}

/* The bad value, quoted as SQL would, cut short (query_bad makes it printable). */
static int quote_row(sqlite3_stmt *st, void *ctx)
{
	const char *q = query_str(st, 0);

	snprintf(ctx, 48, "%s%s", q, strlen(q) >= 40 ? "..." : "");
	return 1;
}

/* Table's row holds in col the bad value of what; want: what it should be. */
static int say_bad(struct datafile *df, const char *table, long long row, const char *col,
		   const char *what, const char *want)
{
	char sql[160], value[48] = "?";

	snprintf(sql, sizeof(sql), "SELECT substr(quote(%s), 1, 40) FROM %s WHERE rowid = ?", col,
		 table);
	query_each(df, sql, quote_row, value, "i", row);
	return query_bad(df, "table %s, row %lld: %s is %s, not %s", table, row, what, value, want);
}

/* "SELECT rowid, COL, ... FROM TABLE": a missing table or column fails to compile. */
static int table_sql(const struct table *t, char *sql, size_t len)
{
	size_t n = snprintf(sql, len, "SELECT rowid");
	const struct column *c;

	for (c = t->cols; c->name && n < len; c++)
		n += snprintf(sql + n, len - n, ", %s", c->name);
	if (n < len)
		n += snprintf(sql + n, len - n, " FROM %s", t->name);
	return n < len ? 0 : -ENAMETOOLONG;
}

/* Every value of t, in one pass over its rows: one statement, checked in C. */
static int check_table(struct datafile *df, const struct table *t, struct later *later)
{
	struct scan s = {.t = t, .col = -1, .later = later};
	char sql[512], want[80];
	int err = table_sql(t, sql, sizeof(sql)) ?: query_each(df, sql, check_row, &s, ""), i;

	if (err < 0)
		/* a table or column missing: the schema is not the one record writes */
		return query_bad(df, "table %s: %s", t->name, sqlite3_errmsg(query_db(df)));
	if (s.col >= 0) {
		snprintf(want, sizeof(want), rules[t->cols[s.col].rule].want, KP_HIST_BUCKETS - 1);
		return say_bad(df, t->name, s.row, t->cols[s.col].name, t->cols[s.col].name, want);
	}
	for (i = 0; s.overflow; i++)
		if (s.overflow & 1U << i)
			return query_bad(df, "table %s: %s sums to more than 2^63-1", t->name,
					 t->cols[i].name);
	return 0;
}

/* A meta row (rowid, key, value), both text: its key's rule, if it has one. */
static void meta_later(sqlite3_stmt *st, struct later *later)
{
	if (later->meta_bad)
		return;
	later->meta_bad = meta_rule_broken(query_str(st, 1), query_str(st, 2));
	if (later->meta_bad)
		later->meta_row = sqlite3_column_int64(st, 0);
}

/* A block (rowid, func, block, start, end, ...) is a range [start, end). */
static void blocks_later(sqlite3_stmt *st, struct later *later)
{
	if (!later->block_bad && sqlite3_column_int64(st, 3) >= sqlite3_column_int64(st, 4)) {
		later->block_bad = true;
		later->block_row = sqlite3_column_int64(st, 0);
	}
}

/* An event_totals row (rowid, kind, id, event, calls, total, enabled_ns, running_ns). */
static void totals_later(sqlite3_stmt *st, struct later *later)
{
	if (!later->totals_bad && sqlite3_column_int64(st, 7) > sqlite3_column_int64(st, 6)) {
		later->totals_bad = true;
		later->totals_row = sqlite3_column_int64(st, 0);
	}
}

/* A run_event_totals row: the same after its run. */
static void run_totals_later(sqlite3_stmt *st, struct later *later)
{
	if (!later->run_totals_bad && sqlite3_column_int64(st, 8) > sqlite3_column_int64(st, 7)) {
		later->run_totals_bad = true;
		later->run_totals_row = sqlite3_column_int64(st, 0);
	}
}

/* What waited for every value to be good: report --blocks sizes and finds addresses by it. */
static int check_later(struct datafile *df, const struct later *later)
{
	if (later->totals_bad)
		return query_bad(df, "table event_totals, row %lld: running_ns is above enabled_ns",
				 later->totals_row);
	if (later->run_totals_bad)
		return query_bad(df,
				 "table run_event_totals, row %lld: running_ns is above enabled_ns",
				 later->run_totals_row);
	if (later->meta_bad)
		return say_bad(df, "meta", later->meta_row, "value", later->meta_bad->key,
			       later->meta_bad->want);
	if (later->block_bad)
		return query_bad(df, "table blocks, row %lld: start is not below end",
				 later->block_row);
	return 0;
}

/* Row (rowid, table, ranges) of an inline instance's ranges. */
static int ranges_row(sqlite3_stmt *st, void *df)
{
	return inline_tables_ranges_of(df, query_str(st, 1), sqlite3_column_int64(st, 0),
				       query_str(st, 2), NULL, NULL);
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

_Static_assert(NTABLES <= 64, "one bit per table in compat_tables()");

static int compat_row(sqlite3_stmt *st, void *ctx)
{
	unsigned long long *compat = ctx;
	const char *name = query_str(st, 0);
	size_t i;

	for (i = 0; i < NTABLES; i++)
		if (!strcmp(tables[i].name, name))
			*compat |= 1ULL << i;
	return 0;
}

/*
 * The tables an older schema lacks, one bit each: the empty ones data/compat.c
 * attached, where the file has none of that name (a table the file has is
 * found first, and checked, whatever its schema says).  Nothing in them to
 * check, nor statements to compile for them (23 for a schema-4 file).
 */
static unsigned long long compat_tables(struct datafile *df)
{
	unsigned long long compat = 0;

	if (!df->compat ||
	    query_each(df,
		       "SELECT name FROM " COMPAT_DB ".sqlite_schema WHERE type = 'table' AND name"
		       " NOT IN (SELECT name FROM main.sqlite_schema)",
		       compat_row, &compat, ""))
		return 0;
	return compat;
}

int check_tables(struct datafile *df)
{
	struct later later = {0};
	unsigned long long compat = compat_tables(df);
	size_t i;
	int err = check_schema(df);

	for (i = 0; i < NTABLES && !err; i++)
		if (!(compat & 1ULL << i))
			err = check_table(df, &tables[i], &later);
	err = err ?: check_later(df, &later) ?: count_tables_check(df);
	return err
		       ?: query_each(
				  df,
				  "SELECT rowid, 'inlines', ranges FROM inlines WHERE ranges IS NOT"
				  " NULL UNION ALL SELECT rowid, 'block_inlines', ranges FROM"
				  " block_inlines",
				  ranges_row, df, "");
}
