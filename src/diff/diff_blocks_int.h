/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to diff/diff_blocks*.c: one --blocks function of both sides and
 * what is compared of it.  diff_blocks.c loads and matches the functions,
 * diff_blocks_measure.c estimates each measure, diff_blocks_match.c
 * matches their lines, diff_blocks_loops.c their loops and branches,
 * diff_blocks_print.c prints them.
 */
#ifndef KP_DIFF_BLOCKS_INT_H
#define KP_DIFF_BLOCKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data/blocks_read.h"
#include "diff/stats.h"
#include "analysis/blocks_src.h"

struct json;

/* A measure per call (a branch's: per execution) of both sides, with its interval. */
struct db_measure {
	struct stats_result r; /* r.base, r.hard: the measure of each side */
	size_t runs[2];	       /* the runs the bootstrap drew from */
	bool known[2];	       /* the side's counts are known */
	bool seen[2];	       /* the side has it in its code */
};

/* One side's function. */
struct db_side {
	bool present;
	struct blocks_func f;
	struct blocks_src src;
	long long *count;    /* executions per block, in all runs */
	const char *nodebug; /* why the side has no vmlinux, "" when it has */
};

struct db_line {
	const char *file;
	int line;
	const struct blocks_src_line *l[2]; /* NULL: not in the side's code */
	struct db_measure execs, insns;
};

/* A slab cache whose loop bound's most common value changed, and its calls on both sides. */
struct db_changed {
	const char *ctx;
	long long base, hard, calls;
};

struct db_loop {
	const char *file; /* NULL: the head's line is unknown */
	int line;
	int loop[2]; /* the side's loop, -1: none at that line */
	struct db_measure trips;
	/*
	 * the cause: trips follow the bound on both sides, whose value changed
	 * in these caches (the most calls first); "" and none when not
	 */
	char cause[1024];
	struct db_changed *changed;
	size_t nchanged;
};

/* A conditional branch: the taken and not-taken edges of the blocks ending on its line. */
struct db_branch {
	const char *file;
	int line;
	struct db_measure taken; /* the ratio taken */
};

struct db_func {
	const char *name;
	struct db_side s[2];
	bool lines; /* both sides' blocks have their lines: they can be matched */
	struct db_measure insns;
	struct db_line *line;
	size_t nline;
	struct db_loop *loop;
	size_t nloop;
	struct db_branch *br; /* only those whose direction flipped */
	size_t nbr;
};

/* What every function's comparison shares. */
struct db_ctx {
	size_t runs[2];		/* of each recording */
	const char *nodebug[2]; /* why a side has no vmlinux */
	long long schema[2];	/* of each data file */
	size_t top;
	FILE *out;
	struct json *j; /* NULL: text */
};

/* A measure's num, den and events in run (-1: all runs) of a side; false when unknown. */
typedef bool (*db_eval_fn)(const struct db_side *s, int run, const void *arg, struct stats_run *v,
			   double *events);
/* The measure eval gives on each side, with arg[side]; seen[side]: the side has it. */
int db_measure_of(const struct db_func *fn, db_eval_fn eval, const void *const arg[2],
		  const bool seen[2], struct db_measure *m);
/* A side's counts in run, -1 for all runs; < 0: unknown. */
long long db_block_count(const struct db_side *s, int run, size_t b);
long long db_edge_count(const struct db_side *s, int run, size_t e);
long long db_calls(const struct db_side *s, int run);
/* The order of source lines: by file, then line. */
int db_cmp_line(const char *fa, int la, const char *fb, int lb);
/* |hardened - base| of a measure, -1 when a side is unknown: those sort last. */
double db_change(const struct db_measure *m);
/* diff_blocks_loops.c: the loops by their head's line, the branches whose direction flipped. */
int db_match_loops(struct db_func *fn);
int db_match_branches(struct db_func *fn);

/* The lines, loops and branches of fn, matched across the sides, each with its measure. */
int db_match(struct db_func *fn);
void db_match_free(struct db_func *fn);

/* fn compared, as text or into the JSON array of functions. */
int db_print(const struct db_ctx *c, const struct db_func *fn);

#endif
