// SPDX-License-Identifier: GPL-2.0-only
/* record --blocks: rows of the blocks tables (blocks_tables.h). */
#include "data/blocks_tables.h"

#include "data/query.h"

int blocks_tables_put_func(struct datafile *df, const char *func, const struct blocks_func_row *r)
{
	return query_insert(df, "INSERT INTO block_funcs VALUES(?,?,?,?,?,?,?)", "tiiiiit", func,
			    (long long)r->addr, (long long)r->size, (long long)r->calls,
			    (long long)r->complete, (long long)r->lost, r->unprobed);
}

int blocks_tables_put_block(struct datafile *df, const char *func, const struct blocks_row *r)
{
	return query_insert(df,
			    "INSERT INTO blocks VALUES(?,?,?,?,?,"
			    " CASE WHEN ?6 < 0 THEN NULL ELSE ?6 END, ?7,"
			    " CASE WHEN ?8 < 0 THEN NULL ELSE ?8 END)",
			    "tiiiiiii", func, (long long)r->block, (long long)r->start,
			    (long long)r->end, (long long)r->insns, r->count, (long long)r->probed,
			    (long long)r->loop);
}

int blocks_tables_put_edge(struct datafile *df, const char *func, const struct blocks_edge_row *r)
{
	return query_insert(df,
			    "INSERT INTO block_edges VALUES(?,?,?,?,?,"
			    " CASE WHEN ?6 < 0 THEN NULL ELSE ?6 END)",
			    "tiiiti", func, (long long)r->edge, (long long)r->src,
			    (long long)r->dst, r->kind, r->count);
}

int blocks_tables_put_loop(struct datafile *df, const char *func, const struct blocks_loop_row *r)
{
	return query_insert(df,
			    "INSERT INTO block_loops VALUES(?,?,?,"
			    " CASE WHEN ?4 < 0 THEN NULL ELSE ?4 END, ?5, ?6,"
			    " CASE WHEN ?7 < 0 THEN NULL ELSE ?7 END,"
			    " CASE WHEN ?8 < 0 THEN NULL ELSE ?8 END)",
			    "tiiiiiii", func, (long long)r->loop, (long long)r->head,
			    (long long)r->parent, (long long)r->depth, (long long)r->irreducible,
			    r->entries, r->iterations);
}

int blocks_tables_put_value(struct datafile *df, const char *func, const char *what, int loop,
			    const char *ctx, __u64 value, __u64 calls)
{
	return query_insert(df,
			    "INSERT INTO block_values VALUES(?,?,?,?,?,?) ON CONFLICT DO UPDATE"
			    " SET count = count + excluded.count",
			    "ttitii", func, what, (long long)loop, ctx, (long long)value,
			    (long long)calls);
}

int blocks_tables_put_inline(struct datafile *df, const char *func,
			     const struct blocks_inline_row *r)
{
	return query_insert(df, "INSERT INTO block_inlines VALUES(?,?,?,?,?,?,?)", "ttttiit", func,
			    r->name, r->parent, r->call_file, (long long)r->call_line,
			    (long long)r->entry, r->ranges);
}

int blocks_tables_put_bound(struct datafile *df, const char *func, const struct blocks_bound_row *r)
{
	return query_insert(df, "INSERT INTO block_bounds VALUES(?,?,?,?,?,?)", "tiittt", func,
			    (long long)r->loop, (long long)r->block, r->bound, r->counter, r->cond);
}

int blocks_tables_put_bound_value(struct datafile *df, const char *func, int loop, const char *ctx,
				  long long bound, __u64 trips, __u64 calls)
{
	return query_insert(df,
			    "INSERT INTO block_bound_values VALUES(?,?,?,?,?,?) ON CONFLICT DO"
			    " UPDATE SET count = count + excluded.count",
			    "titiii", func, (long long)loop, ctx, bound, (long long)trips,
			    (long long)calls);
}

int blocks_tables_put_context(struct datafile *df, const char *func, int syscall, long long kstack,
			      const char *ctx, __u64 calls, __u64 insns)
{
	return query_insert(df,
			    "INSERT INTO block_contexts VALUES(?,?,?,?,?,?) ON CONFLICT DO UPDATE"
			    " SET calls = calls + excluded.calls, insns = insns + excluded.insns",
			    "tiitii", func, (long long)syscall, kstack, ctx, (long long)calls,
			    (long long)insns);
}

int blocks_tables_put_run_block(struct datafile *df, const char *func, unsigned int run, int block,
				long long count)
{
	return query_insert(df,
			    "INSERT INTO block_runs VALUES(?,?,?, CASE WHEN ?4 < 0 THEN NULL ELSE"
			    " ?4 END)",
			    "tiii", func, (long long)run, (long long)block, count);
}

int blocks_tables_put_run_edge(struct datafile *df, const char *func, unsigned int run, int edge,
			       long long count)
{
	return query_insert(df,
			    "INSERT INTO block_run_edges VALUES(?,?,?, CASE WHEN ?4 < 0 THEN NULL"
			    " ELSE ?4 END)",
			    "tiii", func, (long long)run, (long long)edge, count);
}

int blocks_tables_put_run_calls(struct datafile *df, const char *func, unsigned int run,
				__u64 calls, __u64 complete, __u64 lost)
{
	return query_insert(df, "INSERT INTO block_run_calls VALUES(?,?,?,?,?)", "tiiii", func,
			    (long long)run, (long long)calls, (long long)complete, (long long)lost);
}
