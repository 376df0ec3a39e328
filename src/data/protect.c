// SPDX-License-Identifier: GPL-2.0-only
/* The protect_funcs and protect_sites tables (protect.h): their SQL. */
#include "data/protect.h"

#include <sqlite3.h>

#include "data/query.h"

int protect_put_func(struct datafile *df, __u64 addr, const char *name, __u64 size)
{
	return query_insert(df, "INSERT OR IGNORE INTO protect_funcs VALUES(?,?,?)", "iti",
			    (long long)addr, name, (long long)size);
}

int protect_put_site(struct datafile *df, __u64 addr, __u32 len, const char *kind)
{
	return query_insert(df, "INSERT OR IGNORE INTO protect_sites VALUES(?,?,?)", "iit",
			    (long long)addr, (long long)len, kind);
}

struct addr_walk {
	int (*fn)(__u64 addr, void *ctx);
	void *ctx;
};

static int addr_row(sqlite3_stmt *st, void *ctx)
{
	struct addr_walk *w = ctx;

	return w->fn(sqlite3_column_int64(st, 0), w->ctx);
}

int protect_code_addrs(struct datafile *df, int (*fn)(__u64 addr, void *ctx), void *ctx)
{
	struct addr_walk w = {fn, ctx};

	return query_each(df,
			  "SELECT DISTINCT CASE WHEN depth > 0 THEN addr - 1 ELSE addr END"
			  " FROM kstack_frames WHERE addr != 0"
			  " UNION SELECT addr FROM block_funcs ORDER BY 1",
			  addr_row, &w, "");
}

struct kind_walk {
	int (*fn)(const struct protect_kind *k, void *ctx);
	void *ctx;
};

static int kind_row(sqlite3_stmt *st, void *ctx)
{
	struct kind_walk *w = ctx;
	struct protect_kind k = {
		.kind = (const char *)sqlite3_column_text(st, 0),
		.sites = sqlite3_column_int64(st, 1),
		.probed = sqlite3_column_int64(st, 2),
		.reached = sqlite3_column_int64(st, 3),
		.executions = sqlite3_column_int64(st, 4),
	};

	return k.kind ? w->fn(&k, w->ctx) : 0;
}

/*
 * A site's block is the counted one holding its first byte, in any
 * --blocks function (an inline instance's blocks lie in its parent's
 * text: a site in two is counted once).
 */
int protect_kinds(struct datafile *df, int (*fn)(const struct protect_kind *k, void *ctx),
		  void *ctx)
{
	struct kind_walk w = {fn, ctx};

	return query_each(
		df,
		"SELECT s.kind, COUNT(*), COUNT(c.n), COALESCE(SUM(c.n > 0), 0),"
		" COALESCE(SUM(c.n), 0) FROM protect_sites s LEFT JOIN"
		" (SELECT ps.addr AS addr, ps.kind AS kind, MIN(b.count) AS n FROM blocks b"
		" JOIN protect_sites ps ON ps.addr >= b.start AND ps.addr < b.end"
		" WHERE b.count IS NOT NULL GROUP BY 1, 2) c USING(addr, kind)"
		" GROUP BY s.kind ORDER BY s.kind",
		kind_row, &w, "");
}

struct leaf_walk {
	int (*fn)(long long stack, const char *kind, __u64 site, void *ctx);
	void *ctx;
};

static int leaf_row(sqlite3_stmt *st, void *ctx)
{
	struct leaf_walk *w = ctx;
	const char *kind = (const char *)sqlite3_column_text(st, 1);

	return kind ? w->fn(sqlite3_column_int64(st, 0), kind, sqlite3_column_int64(st, 2), w->ctx)
		    : 0;
}

#define STR(x)	#x
#define XSTR(x) STR(x)

/* Sites are short (PROTECT_SITE_MAX): the addr index finds the candidates. */
int protect_leaf_sites(struct datafile *df,
		       int (*fn)(long long stack, const char *kind, __u64 site, void *ctx),
		       void *ctx)
{
	struct leaf_walk w = {fn, ctx};

	return query_each(df,
			  "SELECT f.stack, s.kind, s.addr FROM kstack_frames f"
			  " JOIN protect_sites s ON s.addr BETWEEN f.addr - " XSTR(
				  PROTECT_SITE_MAX) " AND f.addr"
						    " AND f.addr < s.addr + s.len WHERE f.depth = 0"
						    " ORDER BY f.stack, s.addr DESC",
			  leaf_row, &w, "");
}
