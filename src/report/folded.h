/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef KP_FOLDED_H
#define KP_FOLDED_H

#include <stdbool.h>

struct df;

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
int folded_samples(struct df *df, const struct folded_frames *o, folded_fn fn, void *ctx);

struct kernel_dwarf;

/* How many functions record --func probed that func names (all if NULL), or -errno. */
long long folded_count_funcs(struct df *df, const char *func);
/*
 * Print df's folded stacks to stdout: the CPU samples, or with latency the
 * kernel stacks of the probed functions (only func's, unless NULL) weighted
 * by their ns.  kd (may be NULL) names inline frames and source lines.
 */
int folded_print(struct df *df, struct kernel_dwarf *kd, const struct folded_frames *fr,
		 bool latency, const char *func);

#endif
