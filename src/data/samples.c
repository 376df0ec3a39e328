// SPDX-License-Identifier: GPL-2.0-only
/* The queries on the samples, their stacks and the TEMP tables built on them (see samples.h). */
#include "data/samples.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "data/datafile.h"
#include "data/query.h"
#include "util/fmt.h"

long long samples_rows(struct datafile *df)
{
	return query_scalar(df, "SELECT COUNT(*) FROM samples", NULL);
}

long long samples_total(struct datafile *df)
{
	return query_scalar(df, "SELECT SUM(count) FROM samples", NULL);
}

bool samples_none(struct datafile *df, char *buf, size_t len)
{
	const char *wall = datafile_meta(df, "record.wall_ns");
	const char *hz = datafile_meta(df, "sampling.freq_hz");
	char t[32];

	if (samples_rows(df))
		return false;
	/* both checked at open: digits in range */
	if (wall && hz) {
		fmt_ns(t, sizeof(t), strtod(wall, NULL));
		snprintf(buf, len, "no CPU samples in %s at %s Hz", t, hz);
	} else {
		snprintf(buf, len, "no CPU samples");
	}
	return true;
}

long long samples_kernel_leaf(struct datafile *df, const char *name)
{
	return query_scalar(df,
			    "SELECT COALESCE(SUM(s.n), 0) FROM kstack_samples s JOIN frames f"
			    " ON f.space = 'k' AND f.stack = s.stack AND f.depth = 0 AND f.sub = 0"
			    " WHERE f.name = ?",
			    name);
}

int samples_frames_create(struct datafile *df)
{
	return query_exec(df,
			  "CREATE TEMP TABLE frames(space TEXT, stack INTEGER, depth INTEGER,"
			  " sub INTEGER, name TEXT, inl INTEGER, file TEXT, line INTEGER,"
			  " die INTEGER, leaf INTEGER, pc INTEGER, func_die INTEGER,"
			  " PRIMARY KEY(space, stack, depth, sub));"
			  /*
			   * unresolved user frames are named by their module, like perf;
			   * record's "[unknown]" and "[vdso]" are bracketed already
			   */
			  "INSERT INTO frames SELECT 'u', stack, depth, 0, COALESCE(symbol,"
			  " CASE WHEN module LIKE '[%]' THEN module ELSE"
			  " '[' || replace(module, rtrim(module, replace(module, '/', '')),"
			  " '') || ']' END), 0, NULL, 0, 0, 1, NULL, 0 FROM ustack_frames;"
			  /* samples per kernel stack, indexed for joins with frames */
			  "CREATE TEMP TABLE kstack_samples(stack INTEGER PRIMARY KEY, n INTEGER);"
			  "INSERT INTO kstack_samples SELECT kstack, SUM(count) FROM samples"
			  " WHERE kstack >= 0 GROUP BY kstack;");
}

struct walk {
	union {
		samples_ksym_fn ksym;
		samples_kframe_fn kframe;
		samples_uframe_fn uframe;
		samples_umodule_fn umodule;
		samples_stack_fn stack;
		samples_frame_fn frame;
		samples_func_fn func;
		samples_folded_fn folded;
		samples_hit_line_fn hit_line;
		samples_hit_inst_fn hit_inst;
	};
	void *ctx;
};

static int ksym_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;

	return w->ksym((__u64)sqlite3_column_int64(st, 0), query_text(st, 1), query_text(st, 2),
		       w->ctx);
}

int samples_ksyms(struct datafile *df, samples_ksym_fn fn, void *ctx)
{
	return query_each(df, "SELECT addr, name, COALESCE(module, '') FROM ksyms", ksym_row,
			  &(struct walk){{.ksym = fn}, ctx}, "");
}

static int anchor_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;

	return w->ksym((__u64)sqlite3_column_int64(st, 1), query_text(st, 0), NULL, w->ctx);
}

int samples_kernel_anchors(struct datafile *df, samples_ksym_fn fn, void *ctx)
{
	return query_each(df,
			  "SELECT name, addr FROM ksyms WHERE addr != 0 AND"
			  " COALESCE(module, '') = '' ORDER BY name NOT IN ('_stext', '_text',"
			  " 'startup_64'), addr LIMIT 16",
			  anchor_row, &(struct walk){{.ksym = fn}, ctx}, "");
}

static int kframe_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;

	return w->kframe(sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1),
			 (__u64)sqlite3_column_int64(st, 2), w->ctx);
}

int samples_kframes(struct datafile *df, samples_kframe_fn fn, void *ctx)
{
	return query_each(df, "SELECT stack, depth, addr FROM kstack_frames ORDER BY stack, depth",
			  kframe_row, &(struct walk){{.kframe = fn}, ctx}, "");
}

int samples_add_frame(struct datafile *df, const struct samples_frame *f)
{
	return query_insert(
		df,
		"INSERT INTO frames VALUES(CASE ?1 WHEN 1 THEN 'u' ELSE 'k' END,"
		" ?2,?3,?4,?5,?6,?7,?8,?9,?10,CASE ?1 WHEN 1 THEN NULL ELSE ?11 END,?12)",
		"iiiititiiiii", (long long)f->user, f->stack, (long long)f->depth,
		(long long)f->sub, f->name, (long long)(f->sub > 0), f->file, (long long)f->line,
		(long long)f->die, (long long)f->leaf, (long long)f->pc, (long long)f->func_die);
}

int samples_set_user_frame(struct datafile *df, const struct samples_frame *f)
{
	return query_insert(df,
			    "UPDATE frames SET file = ?, line = ?, leaf = ?, func_die = ?"
			    " WHERE space = 'u' AND stack = ? AND depth = ? AND sub = 0",
			    "tiiiii", f->file, (long long)f->line, (long long)f->leaf,
			    (long long)f->func_die, f->stack, (long long)f->depth);
}

static int uframe_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct samples_uframe f = {
		.stack = sqlite3_column_int64(st, 0),
		.depth = sqlite3_column_int(st, 1),
		.pc = (__u64)sqlite3_column_int64(st, 2),
		.path = query_text(st, 3),
		.bid = query_text(st, 4) ?: "",
	};

	/* both checked by the query: the pc is in the mapping */
	f.off = f.pc - (__u64)sqlite3_column_int64(st, 5) + (__u64)sqlite3_column_int64(st, 6);
	return f.path ? w->uframe(&f, w->ctx) : 0;
}

/*
 * A user stack belongs to one process (record numbers them per process),
 * whose mapping of the frame's file holds the pc; of several (an exec
 * mapping the file again) the last recorded.
 */
#define UFRAMES_SELECT                                                                             \
	"SELECT f.stack AS stack, f.depth AS depth, f.pc AS pc, m.path AS path,"                   \
	" m.build_id AS build_id, m.start AS start, m.pgoff AS pgoff, MAX(m.rowid)"                \
	" FROM (SELECT stack, depth, module, addr - (depth > 0) AS pc FROM ustack_frames"          \
	"  WHERE module LIKE '/%') f"                                                              \
	" JOIN (SELECT ustack, MIN(pid) AS pid FROM samples WHERE ustack >= 0 GROUP BY ustack) s"  \
	" ON s.ustack = f.stack"                                                                   \
	" JOIN maps m ON m.pid = s.pid AND m.path = f.module AND m.start <= f.pc AND f.pc < m.end" \
	" GROUP BY f.stack, f.depth"

int samples_uframes(struct datafile *df, samples_uframe_fn fn, void *ctx)
{
	return query_each(df, UFRAMES_SELECT " ORDER BY m.path, m.build_id, f.stack, f.depth",
			  uframe_row, &(struct walk){{.uframe = fn}, ctx}, "");
}

int samples_umodules_create(struct datafile *df)
{
	return query_exec(df, "CREATE TEMP TABLE uframes AS " UFRAMES_SELECT);
}

static int umodule_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct samples_umodule m = {
		.path = query_text(st, 0),
		.bid = query_text(st, 1) ?: "",
		.self = sqlite3_column_int64(st, 2),
		.total = sqlite3_column_int64(st, 3),
	};

	return w->umodule(&m, w->ctx);
}

/*
 * self: the user-mode samples with the leaf in the file, as samples_functions
 * counts self; total: the samples of the stacks with a frame in it.
 */
static const char umodules_sql[] =
	"SELECT u.path, u.build_id,"
	" (SELECT COALESCE(SUM(s.count), 0) FROM samples s WHERE s.kstack IS NULL AND s.ustack IN"
	"  (SELECT stack FROM uframes WHERE depth = 0 AND path = u.path"
	"   AND build_id IS u.build_id)),"
	" (SELECT COALESCE(SUM(s.count), 0) FROM samples s WHERE s.ustack IN"
	"  (SELECT stack FROM uframes WHERE path = u.path AND build_id IS u.build_id))"
	" FROM (SELECT DISTINCT path, build_id FROM uframes) u ORDER BY 3 DESC, 4 DESC, 1, 2";

int samples_umodules(struct datafile *df, samples_umodule_fn fn, void *ctx)
{
	return query_each(df, umodules_sql, umodule_row, &(struct walk){{.umodule = fn}, ctx}, "");
}

int samples_umodule_frames(struct datafile *df, const char *path, const char *bid,
			   samples_uframe_fn fn, void *ctx)
{
	/* "" is how a build id recorded as NULL is handed out */
	return query_each(df,
			  "SELECT stack, depth, pc, path, build_id, start, pgoff FROM uframes"
			  " WHERE path = ? AND COALESCE(build_id, '') = ? ORDER BY stack, depth",
			  uframe_row, &(struct walk){{.uframe = fn}, ctx}, "tt", path, bid);
}

static int stack_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct samples_stack s = {
		.head = query_text(st, 0),
		.has_ustack = sqlite3_column_type(st, 1) != SQLITE_NULL,
		.has_kstack = sqlite3_column_type(st, 2) != SQLITE_NULL,
		.ustack = sqlite3_column_int64(st, 1),
		.kstack = sqlite3_column_int64(st, 2),
		.n = sqlite3_column_int64(st, 3),
	};

	return w->stack(&s, w->ctx);
}

int samples_stacks_of(struct datafile *df, const char *sql, samples_stack_fn fn, void *ctx)
{
	return query_each(df, sql, stack_row, &(struct walk){{.stack = fn}, ctx}, "");
}

int samples_stacks(struct datafile *df, samples_stack_fn fn, void *ctx)
{
	return samples_stacks_of(df,
				 "SELECT comm, ustack, kstack, SUM(count) FROM samples"
				 " GROUP BY comm, ustack, kstack",
				 fn, ctx);
}

struct samples_frames_cursor {
	sqlite3_stmt *st;
};

int samples_frames_open(struct datafile *df, struct samples_frames_cursor **out)
{
	struct samples_frames_cursor *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	err = query_prepare(df,
			    "SELECT name, inl, file, line FROM frames WHERE space = ?"
			    " AND stack = ? AND (?3 OR sub = 0) ORDER BY depth DESC, sub",
			    &c->st);
	if (err) {
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

void samples_frames_close(struct samples_frames_cursor *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->st);
	free(c);
}

static int frame_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;

	return w->frame(query_text(st, 0), sqlite3_column_int(st, 1), query_text(st, 2),
			sqlite3_column_int(st, 3), w->ctx);
}

int samples_frames_of(struct samples_frames_cursor *c, const char *space, long long stack,
		      bool inlines, samples_frame_fn fn, void *ctx)
{
	return query_rerun(c->st, frame_row, &(struct walk){{.frame = fn}, ctx}, "tii", space,
			   stack, (long long)inlines);
}

static int func_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct samples_func f = {
		.name = query_str(st, 0),
		.self = sqlite3_column_int64(st, 1),
		.total = sqlite3_column_int64(st, 2),
	};

	return w->func(&f, w->ctx);
}

static const char func_sql[] =
	"WITH fr AS (SELECT stack, depth, sub, leaf, space,"
	"  name || CASE inl WHEN 1 THEN ' [inlined]' ELSE '' END AS name FROM frames"
	"  WHERE ?3 OR inl = 0),"
	" t AS (SELECT f.name AS name, SUM(s.count) AS n FROM samples s"
	"  JOIN (SELECT DISTINCT stack, name FROM fr WHERE space = ?1) f"
	"  ON f.stack = CASE ?1 WHEN 'k' THEN s.kstack ELSE s.ustack END GROUP BY f.name),"
	" se AS (SELECT f.name AS name, SUM(s.count) AS n FROM samples s JOIN fr f"
	"  ON f.space = ?1 AND f.depth = 0 AND (f.sub = 0 OR f.leaf)"
	"  AND f.stack = CASE ?1 WHEN 'k' THEN s.kstack ELSE s.ustack END"
	"  WHERE ?1 = 'k' OR s.kstack IS NULL GROUP BY f.name)"
	" SELECT t.name, COALESCE(se.n, 0), t.n FROM t LEFT JOIN se ON se.name = t.name"
	" ORDER BY 2 DESC, 3 DESC, 1 LIMIT ?2";

int samples_functions(struct datafile *df, const char *space, int limit, bool inlines,
		      samples_func_fn fn, void *ctx)
{
	return query_each(df, func_sql, func_row, &(struct walk){{.func = fn}, ctx}, "tii", space,
			  (long long)limit, (long long)inlines);
}

int samples_folded_create(struct datafile *df)
{
	return query_exec(df, "CREATE TEMP TABLE folded(line TEXT, n INTEGER)");
}

int samples_folded_add(struct datafile *df, const char *line, long long n)
{
	return query_insert(df, "INSERT INTO folded VALUES(?,?)", "ti", line, n);
}

static int folded_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;

	return w->folded(query_text(st, 0), sqlite3_column_int64(st, 1), w->ctx);
}

int samples_folded(struct datafile *df, samples_folded_fn fn, void *ctx)
{
	return query_each(df,
			  "SELECT line, SUM(n) FROM folded GROUP BY line"
			  " HAVING SUM(n) > 0 ORDER BY line",
			  folded_row, &(struct walk){{.folded = fn}, ctx}, "");
}

long long samples_kernel_func(struct datafile *df, const char *name)
{
	return query_scalar(
		df, "SELECT COUNT(*) FROM ksyms WHERE name = ?1 OR kp_func_base(name) = ?1", name);
}

/*
 * m: the rows of func (a kernel frame's function, or a user row with
 * DWARF); h: of each stack, the innermost: its least depth, and there its
 * deepest inline (recursion counts once).  A user sample is in the
 * function's own code (self) only when it ran in user mode, as
 * samples_functions counts it.
 */
static const char hit_sql[] =
	"CREATE TEMP TABLE hit AS WITH m AS (SELECT stack, depth, sub FROM frames"
	"  WHERE space = ?2 AND CASE ?2 WHEN 'k' THEN sub = 0 ELSE file IS NOT NULL END"
	"  AND (name = ?1 OR kp_func_base(name) = ?1)),"
	" h AS (SELECT m.stack, m.depth, MAX(m.sub) AS sub FROM m JOIN (SELECT stack,"
	"  MIN(depth) AS depth FROM m GROUP BY stack) d USING (stack, depth) GROUP BY m.stack),"
	" s AS (SELECT CASE ?2 WHEN 'k' THEN kstack ELSE ustack END AS stack, SUM(count) AS n,"
	"  SUM(CASE WHEN ?2 = 'k' OR kstack IS NULL THEN count ELSE 0 END) AS u FROM samples"
	"  WHERE CASE ?2 WHEN 'k' THEN kstack ELSE ustack END >= 0 GROUP BY 1)"
	" SELECT ?2 AS space, h.stack, h.depth, h.sub, s.n AS count,"
	" CASE WHEN h.depth = 0 THEN s.u ELSE 0 END AS self FROM h JOIN s ON s.stack = h.stack";

int samples_hit_create(struct datafile *df, const char *func, bool user)
{
	return query_each(df, hit_sql, NULL, NULL, "tt", func, user ? "u" : "k");
}

void samples_hit_totals(struct datafile *df, long long *total, long long *self)
{
	*total = query_scalar(df, "SELECT SUM(count) FROM hit", NULL);
	*self = query_scalar(df, "SELECT SUM(self) FROM hit", NULL);
}

static int hit_line_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;
	struct samples_hit_line l = {
		.file = query_text(st, 0),
		.line = sqlite3_column_int(st, 1),
		.chain = query_text(st, 2),
		.self = sqlite3_column_int64(st, 3),
		.total = sqlite3_column_int64(st, 4),
	};

	return w->hit_line(&l, w->ctx);
}

static const char lines_sql[] =
	"SELECT l.file, l.line, (SELECT group_concat(name, ';') FROM (SELECT name FROM frames c"
	"  WHERE c.space = h.space AND c.stack = h.stack AND c.depth = h.depth"
	"  AND c.sub > h.sub ORDER BY c.sub)) AS chain, SUM(h.self), SUM(h.count)"
	" FROM hit h JOIN frames l ON l.space = h.space AND l.stack = h.stack"
	" AND l.depth = h.depth AND l.leaf = 1"
	" GROUP BY l.file, l.line, chain ORDER BY l.file, l.line, chain";

int samples_hit_lines(struct datafile *df, samples_hit_line_fn fn, void *ctx)
{
	return query_each(df, lines_sql, hit_line_row, &(struct walk){{.hit_line = fn}, ctx}, "");
}

static int hit_inst_row(sqlite3_stmt *st, void *ctx)
{
	struct walk *w = ctx;

	return w->hit_inst(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 3),
			   sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), w->ctx);
}

static const char inst_sql[] =
	"SELECT f.die, SUM(h.self), SUM(h.count), MAX(f.func_die)"
	" FROM hit h JOIN frames f ON f.space = h.space AND f.stack = h.stack"
	" AND f.depth = h.depth AND f.sub > h.sub GROUP BY f.die ORDER BY 3 DESC";

int samples_hit_insts(struct datafile *df, samples_hit_inst_fn fn, void *ctx)
{
	return query_each(df, inst_sql, hit_inst_row, &(struct walk){{.hit_inst = fn}, ctx}, "");
}

struct range_sums {
	long long *self, *total;
};

static int range_row(sqlite3_stmt *st, void *ctx)
{
	struct range_sums *r = ctx;

	*r->self = sqlite3_column_int64(st, 0);
	*r->total = sqlite3_column_int64(st, 1);
	return 0;
}

static const char range_sql[] =
	"SELECT SUM(h.self), SUM(h.count) FROM hit h"
	" JOIN frames f ON f.space = h.space AND f.stack = h.stack AND f.depth = h.depth AND"
	" f.sub = 0 WHERE f.pc >= ?1 AND f.pc < ?2";

int samples_hit_range(struct datafile *df, __u64 lo, __u64 hi, long long *self, long long *total)
{
	*self = 0;
	*total = 0;
	return query_each(df, range_sql, range_row, &(struct range_sums){self, total}, "ii",
			  (long long)lo, (long long)hi);
}
