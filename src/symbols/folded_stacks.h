/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Folded stacks: one line per distinct stack, "comm;user;...;kernel_[k]",
 * root first, as flamegraph.pl and speedscope read them, with the samples
 * (or ns) taken there.
 */
#ifndef KP_FOLDED_STACKS_H
#define KP_FOLDED_STACKS_H

#include <stdbool.h>

struct datafile;

/* Which frames a folded stack has, and how they are named. */
struct folded_frames {
	bool user, kernel; /* which frames to keep (-U, -K) */
	bool inlines;	   /* _[i] frames, where the frames table has them */
	bool srcline;	   /* kernel frames as function:file:line */
};

/* Gets one folded stack and its count; non-zero stops the walk and is returned. */
typedef int (*folded_fn)(const char *line, long long n, void *ctx);

/*
 * The CPU samples of df folded as kprotperf folded prints them: fn gets each
 * distinct "comm;user frames;kernel frames" line with its sample count, in
 * byte order of the lines.  Needs the frames table (stacks_name_frames);
 * once per df.
 */
int folded_samples(struct datafile *df, const struct folded_frames *o, folded_fn fn, void *ctx);
/*
 * The same, but for a recording sampled on an event (record -e): each
 * stack weighs the events its samples stand for (the sample_weights
 * table), as kprotperf folded and diff --folded print it.
 */
int folded_events(struct datafile *df, const struct folded_frames *o, folded_fn fn, void *ctx);
/*
 * Likewise the kernel stacks the functions record --func probed (only
 * func's, by name or symbol probed, unless NULL) were entered from, each
 * line starting with the function's name and cut where it is on the stack,
 * with the ns spent in it; lines that weigh nothing are left out.
 */
int folded_latency(struct datafile *df, const struct folded_frames *o, const char *func,
		   folded_fn fn, void *ctx);

#endif
