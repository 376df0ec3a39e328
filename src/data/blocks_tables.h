/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record --blocks in the data file (schema 6), the write side: the blocks,
 * block_edges, block_loops, block_values and block_funcs tables (README.md,
 * "The data file").  A count below 0 handed in is stored as NULL: unknown.
 * data/blocks_read.h reads them.
 */
#ifndef KP_BLOCKS_TABLES_H
#define KP_BLOCKS_TABLES_H

#include <linux/types.h>

struct datafile;

/* The tables, for datafile.c: the schema's, or TEMP and empty for a file older than 6. */
#define BLOCKS_TABLES(temp)                                                                       \
	"CREATE " temp "TABLE blocks(func TEXT NOT NULL, block INTEGER NOT NULL,"                 \
	" start INTEGER NOT NULL, end INTEGER NOT NULL, insns INTEGER NOT NULL, count INTEGER,"   \
	" probed INTEGER NOT NULL, loop INTEGER, PRIMARY KEY(func, block));"                      \
	"CREATE " temp "TABLE block_edges(func TEXT NOT NULL, edge INTEGER NOT NULL,"             \
	" src INTEGER NOT NULL, dst INTEGER NOT NULL, kind TEXT NOT NULL, count INTEGER,"         \
	" PRIMARY KEY(func, edge));"                                                              \
	"CREATE " temp "TABLE block_loops(func TEXT NOT NULL, loop INTEGER NOT NULL,"             \
	" head INTEGER NOT NULL, parent INTEGER, depth INTEGER NOT NULL,"                         \
	" irreducible INTEGER NOT NULL, entries INTEGER, iterations INTEGER,"                     \
	" PRIMARY KEY(func, loop));"                                                              \
	"CREATE " temp "TABLE block_values(func TEXT NOT NULL, what TEXT NOT NULL,"               \
	" loop INTEGER NOT NULL, ctx TEXT NOT NULL, value INTEGER NOT NULL,"                      \
	" count INTEGER NOT NULL, PRIMARY KEY(func, what, loop, ctx, value));"                    \
	"CREATE " temp "TABLE block_funcs(func TEXT NOT NULL PRIMARY KEY, addr INTEGER NOT NULL," \
	" size INTEGER NOT NULL, calls INTEGER NOT NULL, complete INTEGER NOT NULL,"              \
	" lost INTEGER NOT NULL, unprobed TEXT NOT NULL);"

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

#endif
