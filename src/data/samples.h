/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CPU samples of a recording and their stacks, as the data file holds
 * them (samples, kstack_frames, ustack_frames, ksyms), and the TEMP tables
 * the readers build on them:
 *   frames(space TEXT 'k'|'u', stack INTEGER, depth INTEGER, sub INTEGER,
 *          name TEXT, inl INTEGER, file TEXT, line INTEGER, die INTEGER,
 *          leaf INTEGER, pc INTEGER, func_die INTEGER): the named frames,
 *          filled by the symbolizer.  depth 0 is the leaf.  A frame is its
 *          function (sub 0) followed by the functions inlined there,
 *          outermost first (sub 1, 2, ...; inl 1); file:line is where each
 *          one's code is or calls the next, die identifies an inline
 *          instance, and leaf marks the innermost row of a depth, where the
 *          address itself is.  Every kernel row of a depth has its pc, the
 *          address looked up (a return address less one: the call), and
 *          func_die, the DWARF offset of the out-of-line function there (0
 *          when unknown); user rows have pc NULL;
 *   kstack_samples(stack INTEGER PRIMARY KEY, n INTEGER): samples per kernel stack;
 *   folded(line TEXT, n INTEGER): folded stacks before they are merged;
 *   hit(space TEXT, stack INTEGER, depth INTEGER, sub INTEGER, count INTEGER,
 *       self INTEGER): the stacks through one function, where it is on each
 *       (sub > 0: inlined) and their samples, those in its own code (self).
 */
#ifndef KP_SAMPLES_H
#define KP_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct datafile;

/* Number of sample rows, and the samples they count. */
long long samples_rows(struct datafile *df);
long long samples_total(struct datafile *df);
/*
 * Whether df has no CPU sample, as a workload shorter than the sampling
 * period can have: then "no CPU samples in 1.77ms at 99 Hz" into buf.
 * False too when the samples cannot be counted (the caller's reads say why).
 */
bool samples_none(struct datafile *df, char *buf, size_t len);

/* The samples whose kernel leaf frame (in frames) is function name. */
long long samples_kernel_leaf(struct datafile *df, const char *name);

/*
 * Create frames with the user frames named (by symbol, else "[module]"),
 * and kstack_samples; the kernel frames are added by samples_add_frame.
 */
int samples_frames_create(struct datafile *df);

/* Non-zero from a callback stops a walk and is returned. */
typedef int (*samples_ksym_fn)(__u64 addr, const char *name, const char *module, void *ctx);
/* The recorded kernel symbols; module "" for the kernel's own. */
int samples_ksyms(struct datafile *df, samples_ksym_fn fn, void *ctx);
/*
 * Recorded symbols of the kernel itself (not modules) to place its DWARF
 * by, those each kernel has once first; module NULL.
 */
int samples_kernel_anchors(struct datafile *df, samples_ksym_fn fn, void *ctx);

/* Gets a recorded kernel frame: addr at depth (0: the leaf) of stack; by stack, then depth. */
typedef int (*samples_kframe_fn)(long long stack, int depth, __u64 addr, void *ctx);
int samples_kframes(struct datafile *df, samples_kframe_fn fn, void *ctx);

/* One row of frames for a kernel frame, or for what was inlined at a user frame. */
struct samples_frame {
	bool user; /* space 'u': then pc is NULL */
	long long stack;
	int depth, sub; /* sub > 0: inlined */
	const char *name;
	const char *file; /* NULL when unknown */
	int line;
	__u64 die; /* of an inline instance, else 0 */
	bool leaf;
	__u64 pc, func_die;
};

int samples_add_frame(struct datafile *df, const struct samples_frame *f);
/*
 * What the DWARF tells of user frame (stack, depth)'s function: the row
 * named from the symbol (sub 0) gets f's file, line, leaf and func_die.
 */
int samples_set_user_frame(struct datafile *df, const struct samples_frame *f);

/*
 * A recorded user frame in a mapped file, with the mapping it fell in as
 * the data file holds it (untrusted: the offset may be in no segment).
 */
struct samples_uframe {
	long long stack;
	int depth;
	__u64 pc;	  /* looked up: a return address less one, above the leaf */
	const char *path; /* the mapped file's, absolute */
	const char *bid;  /* its build id in hex, "" when unknown */
	__u64 off;	  /* pc's offset in the file */
};

typedef int (*samples_uframe_fn)(const struct samples_uframe *f, void *ctx);
/* The user frames in mapped files, by path and build id, each frame once. */
int samples_uframes(struct datafile *df, samples_uframe_fn fn, void *ctx);

/*
 * The same frames by file, for a view that reads a file only when its
 * rows could be shown: samples_umodules_create() keeps them in the TEMP
 * table uframes, samples_umodules() gives each file (path and build id)
 * with the most samples any row of what was inlined there could have,
 * samples_umodule_frames() its frames.
 */
struct samples_umodule {
	const char *path, *bid; /* bid "" when unknown */
	long long self, total;
};

typedef int (*samples_umodule_fn)(const struct samples_umodule *m, void *ctx);
int samples_umodules_create(struct datafile *df);
int samples_umodules(struct datafile *df, samples_umodule_fn fn, void *ctx);
int samples_umodule_frames(struct datafile *df, const char *path, const char *bid,
			   samples_uframe_fn fn, void *ctx);

/* Samples (or ns) taken with one pair of stacks. */
struct samples_stack {
	const char *head; /* the comm (or the function timed) */
	bool has_ustack;  /* the user stack is known (not NULL) */
	bool has_kstack;  /* the kernel stack is known (not NULL) */
	long long ustack; /* < 0: lost */
	long long kstack; /* < 0: lost */
	long long n;
};

typedef int (*samples_stack_fn)(const struct samples_stack *s, void *ctx);
/* Each distinct (comm, user stack, kernel stack) with its samples. */
int samples_stacks(struct datafile *df, samples_stack_fn fn, void *ctx);
/* For data/ readers: the rows of sql, shaped as samples_stacks' query. */
int samples_stacks_of(struct datafile *df, const char *sql, samples_stack_fn fn, void *ctx);

/* Reads the frames of one stack after another. */
struct samples_frames_cursor;

int samples_frames_open(struct datafile *df, struct samples_frames_cursor **out);
void samples_frames_close(struct samples_frames_cursor *c);
typedef int (*samples_frame_fn)(const char *name, bool inl, const char *file, int line, void *ctx);
/*
 * The frames of stack in space ('k' or 'u'), root first, each depth's
 * function then (with inlines) what was inlined there, outermost first;
 * file NULL when unknown.
 */
int samples_frames_of(struct samples_frames_cursor *c, const char *space, long long stack,
		      bool inlines, samples_frame_fn fn, void *ctx);

/* Functions of space ("k" or "u") by samples. */
struct samples_func {
	const char *name; /* with " [inlined]" for an inlined one */
	long long self, total;
};

typedef int (*samples_func_fn)(const struct samples_func *f, void *ctx);
/*
 * The limit functions of space with most self samples, then total, then by
 * name.  Self: samples whose leaf is the function (user self only counts
 * user-mode samples); for an inlined function, whose leaf is its code and no
 * deeper inline's.  Inlined rows are also part of their parent's self, and
 * left out unless inlines.
 */
int samples_functions(struct datafile *df, const char *space, int limit, bool inlines,
		      samples_func_fn fn, void *ctx);

/* Create folded, empty. */
int samples_folded_create(struct datafile *df);
int samples_folded_add(struct datafile *df, const char *line, long long n);
typedef int (*samples_folded_fn)(const char *line, long long n, void *ctx);
/* The distinct lines of folded with their summed n, those above 0, in byte order. */
int samples_folded(struct datafile *df, samples_folded_fn fn, void *ctx);

/* The recorded kernel symbols named name or a clone of it (name.constprop.0). */
long long samples_kernel_func(struct datafile *df, const char *name);
/*
 * Create hit: the kernel stacks with function func (or a clone of it), or
 * when user the user stacks with it (a function or an inline instance, of
 * frames with DWARF), at its innermost place (recursion counts once), with
 * their samples.
 */
int samples_hit_create(struct datafile *df, const char *func, bool user);
/* The samples in hit: all of them, and those with func at the leaf. */
void samples_hit_totals(struct datafile *df, long long *total, long long *self);

/* The samples of hit at one source line of func and chain of what was inlined there. */
struct samples_hit_line {
	const char *file; /* NULL when unknown */
	int line;
	const char *chain; /* the functions inlined, outermost first, ';'; NULL if none */
	long long self, total;
};

typedef int (*samples_hit_line_fn)(const struct samples_hit_line *l, void *ctx);
/* By file, line and chain. */
int samples_hit_lines(struct datafile *df, samples_hit_line_fn fn, void *ctx);
typedef int (*samples_hit_inst_fn)(__u64 die, __u64 func_die, long long self, long long total,
				   void *ctx);
/* The inline instances hit's samples are in, outermost ones included, most total first. */
int samples_hit_insts(struct datafile *df, samples_hit_inst_fn fn, void *ctx);
/* hit's samples with the pc at func's depth in [lo, hi). */
int samples_hit_range(struct datafile *df, __u64 lo, __u64 hi, long long *self, long long *total);

#endif
