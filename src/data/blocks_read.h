/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What record --blocks measured, read back from the data file's tables
 * blocks, block_edges, block_loops, block_values and block_funcs (schema 6)
 * and block_inlines, block_bounds, block_bound_values, block_contexts,
 * block_runs, block_run_edges and block_run_calls (schema 7;
 * docs/datafile.md): one function at a time, every value checked against the
 * others (indices in range, counts not negative, each run's counts summing
 * to the totals), since data files travel.  Files older than 6 have none of
 * these tables: no --blocks data; schema-6 files read the newer ones empty.
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

/* What bounds a loop (block_bounds): in C from DWARF, or as registers and memory without it. */
struct blocks_bound {
	int block;     /* the block whose head's probe read the bound's value */
	char *expr;    /* "slab->objects"; NULL: no bound found for the loop */
	char *counter; /* "idx", a register, or "" */
	char *cond;    /* what keeps the loop going: "idx < slab->objects" */
};

struct blocks_loop {
	int head, parent; /* parent -1: outermost */
	int depth;
	bool irreducible;
	long long entries, iterations; /* BLOCKS_UNKNOWN when not known */
	struct blocks_bound bound;
};

/* count calls had value: instructions per call ('insns') or trips of loop per call ('trips'). */
struct blocks_value {
	bool trips;
	int loop;  /* -1 for 'insns' */
	char *ctx; /* the slab cache, "" when the calls are not split */
	long long value, count;
};

/* An inline instance recorded as a --blocks function (block_inlines). */
struct blocks_inline {
	char *name, *parent;
	char *call_file; /* "" when unknown */
	int call_line;	 /* 0 when unknown */
	__u64 entry;	 /* = the function's addr */
	char *ranges;	 /* "0xlo-0xhi ...", running-kernel addresses, holding every block */
};

/* count complete calls read bound as loop's bound and made trips trips of it. */
struct blocks_bound_value {
	int loop;
	char *ctx;	 /* the slab cache, "" when none */
	long long bound; /* as read: signed 64-bit */
	long long trips, count;
};

/* Complete calls by where they ran (block_contexts). */
struct blocks_context {
	int syscall;	  /* the syscall number, -1: none */
	long long kstack; /* a kstack_frames stack at entry; -1: not taken or lost */
	char *ctx;	  /* the slab cache, "" when none */
	long long calls, insns;
};

/* One run's share of the totals; BLOCKS_UNKNOWN where the file has none. */
struct blocks_run {
	long long calls, complete, lost;
	long long *b; /* executions per block */
	long long *e; /* count per edge */
};

/* One --blocks function, whole; arrays indexed as the file numbers them. */
struct blocks_func {
	char *name;
	__u64 addr, size;
	long long calls, complete, lost;
	char *unprobed;		   /* which blocks had no probe and why, "" if none */
	struct blocks_inline *inl; /* NULL: a function of its own */
	struct blocks_block *b;
	size_t nb;
	struct blocks_edge *e;
	size_t ne;
	struct blocks_loop *loops;
	size_t nloops;
	struct blocks_value *v; /* by what, loop, ctx, value */
	size_t nv;
	struct blocks_bound_value *bv; /* by loop, ctx, bound, trips */
	size_t nbv;
	struct blocks_context *cx; /* by syscall, kstack, ctx */
	size_t ncx;
	struct blocks_run *runs; /* as the runs table numbers them; none before schema 7 */
	size_t nruns;
};

/*
 * How loop's trips per call follow its bound: the offset c for which
 * trips = bound + c in most calls (the smallest such c on a tie), those
 * calls, how many distinct values of the bound they had, and all calls with
 * a bound value.  One value fits any offset: only a relation that holds in
 * every call, or across two values or more, says anything (blocks_related).
 */
struct blocks_relation {
	long long offset;
	long long calls, all;
	long long values;
};

/* Whether r says something: it holds in all calls, or across two bound values or more. */
bool blocks_related(const struct blocks_relation *r);

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

/*
 * Block's conditional branch: the indices of its taken and not-taken edges
 * (-1: none such); false when it ends in none.
 */
bool blocks_branch(const struct blocks_func *f, int block, int *taken, int *not_taken);

/* Loop's relation to its bound into *r; -ENODATA when it has no bound value, -ENOMEM. */
int blocks_relation(const struct blocks_func *f, int loop, struct blocks_relation *r);

#endif
