/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What record --blocks measured, read back from the data file's tables
 * blocks, block_edges, block_loops, block_values and block_funcs (schema 6,
 * README.md's "The data file"): one function at a time, every value checked
 * against the others (indices in range, counts not negative), since data
 * files travel.  Older files have none of these tables: no --blocks data.
 */
#ifndef KP_BLOCKS_READ_H
#define KP_BLOCKS_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct datafile;

/* A count the file leaves NULL: unknown. */
#define BLOCKS_UNKNOWN (-1LL)

enum blocks_edge_kind {
	BLOCKS_EDGE_ENTRY,
	BLOCKS_EDGE_FALL,
	BLOCKS_EDGE_JUMP,
	BLOCKS_EDGE_TAKEN,
	BLOCKS_EDGE_NOT_TAKEN,
	BLOCKS_EDGE_RETURN,
	BLOCKS_EDGE_TAIL,
	BLOCKS_EDGE_INDIRECT,
	BLOCKS_EDGE_NORETURN,
	BLOCKS_EDGE_TRAP,
};

struct blocks_block {
	__u64 start, end; /* [start, end), running-kernel addresses */
	long long insns;
	long long count; /* executions, BLOCKS_UNKNOWN when not known */
	bool probed;
	int loop; /* innermost loop, -1 none */
};

struct blocks_edge {
	int src, dst; /* -1: the entering call; -2: leaves the function */
	enum blocks_edge_kind kind;
	long long count; /* BLOCKS_UNKNOWN when not known */
};

struct blocks_loop {
	int head, parent; /* parent -1: outermost */
	int depth;
	bool irreducible;
	long long entries, iterations; /* BLOCKS_UNKNOWN when not known */
};

/* count calls had value: instructions per call ('insns') or trips of loop per call ('trips'). */
struct blocks_value {
	bool trips;
	int loop;  /* -1 for 'insns' */
	char *ctx; /* the slab cache, "" when the calls are not split */
	long long value, count;
};

/* One --blocks function, whole; arrays indexed as the file numbers them. */
struct blocks_func {
	char *name;
	__u64 addr, size;
	long long calls, complete, lost;
	char *unprobed; /* which blocks had no probe and why, "" if none */
	struct blocks_block *b;
	size_t nb;
	struct blocks_edge *e;
	size_t ne;
	struct blocks_loop *loops;
	size_t nloops;
	struct blocks_value *v; /* by what, loop, ctx, value */
	size_t nv;
};

/* The edge kind's name as the file writes it. */
const char *blocks_edge_kind_name(enum blocks_edge_kind k);

/* Whether df has the --blocks tables (schema 6 on); a part of them is -EBADMSG. */
int blocks_present(struct datafile *df, bool *present);

/* Gets a function's name; non-zero stops the walk and is returned. */
typedef int (*blocks_name_fn)(const char *name, void *ctx);
/* The --blocks functions of df, by name. */
int blocks_names(struct datafile *df, blocks_name_fn fn, void *ctx);

/*
 * Function name's tables into *out, checked: -ENOENT when df holds no such
 * function, -EBADMSG with what is wrong said by query_bad (see
 * datafile_why) when a value is out of range or names a block, edge or loop
 * that is not there.  Free with blocks_func_free() whatever the answer.
 */
int blocks_load(struct datafile *df, const char *name, struct blocks_func *out);
void blocks_func_free(struct blocks_func *f);

#endif
