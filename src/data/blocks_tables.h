/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --blocks in the data file (schema 6), the write side: the blocks,
 * block_edges, block_loops, block_values and block_funcs tables
 * (docs/datafile.md).  A count below 0 handed in is stored as NULL: unknown.
 * data/blocks_read.h reads them.
 */
#ifndef KP_BLOCKS_TABLES_H
#define KP_BLOCKS_TABLES_H

#include <linux/types.h>

struct datafile;

/* The tables, for datafile.c: the schema's, or TEMP and empty for a file older than 6. */
#define BLOCKS_TABLES                                                                           \
	"CREATE TABLE blocks(func TEXT NOT NULL, block INTEGER NOT NULL,"                       \
	" start INTEGER NOT NULL, end INTEGER NOT NULL, insns INTEGER NOT NULL, count INTEGER," \
	" probed INTEGER NOT NULL, loop INTEGER, PRIMARY KEY(func, block));"                    \
	"CREATE TABLE block_edges(func TEXT NOT NULL, edge INTEGER NOT NULL,"                   \
	" src INTEGER NOT NULL, dst INTEGER NOT NULL, kind TEXT NOT NULL, count INTEGER,"       \
	" PRIMARY KEY(func, edge));"                                                            \
	"CREATE TABLE block_loops(func TEXT NOT NULL, loop INTEGER NOT NULL,"                   \
	" head INTEGER NOT NULL, parent INTEGER, depth INTEGER NOT NULL,"                       \
	" irreducible INTEGER NOT NULL, entries INTEGER, iterations INTEGER,"                   \
	" PRIMARY KEY(func, loop));"                                                            \
	"CREATE TABLE block_values(func TEXT NOT NULL, what TEXT NOT NULL,"                     \
	" loop INTEGER NOT NULL, ctx TEXT NOT NULL, value INTEGER NOT NULL,"                    \
	" count INTEGER NOT NULL, PRIMARY KEY(func, what, loop, ctx, value));"                  \
	"CREATE TABLE block_funcs(func TEXT NOT NULL PRIMARY KEY, addr INTEGER NOT NULL,"       \
	" size INTEGER NOT NULL, calls INTEGER NOT NULL, complete INTEGER NOT NULL,"            \
	" lost INTEGER NOT NULL, unprobed TEXT NOT NULL);"

/*
 * Schema 7: inline instances as --blocks functions, loop bounds and their
 * values per call, calls split by context, and each run's block counts.
 */
#define BLOCKS7_TABLES                                                                             \
	"CREATE TABLE block_inlines(func TEXT NOT NULL PRIMARY KEY, name TEXT NOT NULL,"           \
	" parent TEXT NOT NULL, call_file TEXT NOT NULL, call_line INTEGER NOT NULL,"              \
	" entry INTEGER NOT NULL, ranges TEXT NOT NULL);"                                          \
	"CREATE TABLE block_bounds(func TEXT NOT NULL, loop INTEGER NOT NULL,"                     \
	" block INTEGER NOT NULL, bound TEXT NOT NULL, counter TEXT NOT NULL, cond TEXT NOT NULL," \
	" PRIMARY KEY(func, loop));"                                                               \
	"CREATE TABLE block_bound_values(func TEXT NOT NULL, loop INTEGER NOT NULL,"               \
	" ctx TEXT NOT NULL, bound INTEGER NOT NULL, trips INTEGER NOT NULL,"                      \
	" count INTEGER NOT NULL, PRIMARY KEY(func, loop, ctx, bound, trips));"                    \
	"CREATE TABLE block_contexts(func TEXT NOT NULL, syscall INTEGER NOT NULL,"                \
	" kstack INTEGER NOT NULL, ctx TEXT NOT NULL, calls INTEGER NOT NULL,"                     \
	" insns INTEGER NOT NULL, PRIMARY KEY(func, syscall, kstack, ctx));"                       \
	"CREATE TABLE block_runs(func TEXT NOT NULL, run INTEGER NOT NULL,"                        \
	" block INTEGER NOT NULL, count INTEGER, PRIMARY KEY(func, run, block));"                  \
	"CREATE TABLE block_run_edges(func TEXT NOT NULL, run INTEGER NOT NULL,"                   \
	" edge INTEGER NOT NULL, count INTEGER, PRIMARY KEY(func, run, edge));"                    \
	"CREATE TABLE block_run_calls(func TEXT NOT NULL, run INTEGER NOT NULL,"                   \
	" calls INTEGER NOT NULL, complete INTEGER NOT NULL, lost INTEGER NOT NULL,"               \
	" PRIMARY KEY(func, run));"

struct blocks_row {
	int block;
	__u64 start, end;
	unsigned int insns;
	long long count; /* < 0: NULL */
	int probed;
	int loop; /* < 0: NULL */
};

struct blocks_edge_row {
	int edge, src, dst;
	const char *kind;
	long long count; /* < 0: NULL */
};

struct blocks_loop_row {
	int loop, head, parent; /* parent < 0: NULL */
	int depth, irreducible;
	long long entries, iterations; /* < 0: NULL */
};

struct blocks_func_row {
	__u64 addr, size;
	__u64 calls, complete, lost;
	const char *unprobed;
};

int blocks_tables_put_func(struct datafile *df, const char *func, const struct blocks_func_row *r);
int blocks_tables_put_block(struct datafile *df, const char *func, const struct blocks_row *r);
int blocks_tables_put_edge(struct datafile *df, const char *func, const struct blocks_edge_row *r);
int blocks_tables_put_loop(struct datafile *df, const char *func, const struct blocks_loop_row *r);
/* calls more with value of what ("insns", or "trips" of loop); ctx names cut short merge */
int blocks_tables_put_value(struct datafile *df, const char *func, const char *what, int loop,
			    const char *ctx, __u64 value, __u64 calls);

/* An inline instance recorded as --blocks func: name inlined into parent. */
struct blocks_inline_row {
	const char *name, *parent;
	const char *call_file; /* "" when unknown */
	int call_line;	       /* 0 when unknown */
	__u64 entry;	       /* running-kernel address */
	const char *ranges;    /* "0xlo-0xhi ...", running-kernel addresses */
};

/* What bounds loop: read at the head of block; its names in C (or registers). */
struct blocks_bound_row {
	int loop, block;
	const char *bound, *counter, *cond;
};

int blocks_tables_put_inline(struct datafile *df, const char *func,
			     const struct blocks_inline_row *r);
int blocks_tables_put_bound(struct datafile *df, const char *func,
			    const struct blocks_bound_row *r);
/* calls more whose loop's bound read bound and that made trips trips of it */
int blocks_tables_put_bound_value(struct datafile *df, const char *func, int loop, const char *ctx,
				  long long bound, __u64 trips, __u64 calls);
/*
 * calls more that ran insns instructions in all, in syscall nr syscall (-1:
 * none), with kernel stack kstack at entry (a kstack_frames id; -1: not
 * taken or lost) and slab cache ctx ("" none)
 */
int blocks_tables_put_context(struct datafile *df, const char *func, int syscall, long long kstack,
			      const char *ctx, __u64 calls, __u64 insns);
/* Run run's executions of block (< 0: unknown), as blocks.count has them for all runs. */
int blocks_tables_put_run_block(struct datafile *df, const char *func, unsigned int run, int block,
				long long count);
/* Run run's count of edge (< 0: unknown), as block_edges.count has it for all runs. */
int blocks_tables_put_run_edge(struct datafile *df, const char *func, unsigned int run, int edge,
			       long long count);
int blocks_tables_put_run_calls(struct datafile *df, const char *func, unsigned int run,
				__u64 calls, __u64 complete, __u64 lost);

#endif
