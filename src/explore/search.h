/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf explore's search, without the kernel: which scenario runs next
 * (the seeds, then mutants of the corpus), and what a run's feedback from
 * the target means: the scenario is kept when it reached a block of the
 * target no run had, a context (slab cache, calling syscall) none had, or
 * raised the most any run made of a block's executions, a loop's trips in
 * a call, a context's calls or the time per call (PerfFuzz's rule: a new
 * maximum anywhere).
 * The contexts found, each with the scenario that made the most of it.
 * Given the same seed and the same feedback it makes the same choices.
 */
#ifndef KP_SEARCH_H
#define KP_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "explore/scenario.h"
#include "record/measures.h"

enum search_end {
	SEARCH_EXITED,	/* the scenario ran to its end (its steps may have failed) */
	SEARCH_HUNG,	/* its time was up: killed */
	SEARCH_CRASHED, /* killed by a signal */
};

/* What one run of a scenario did to the target. */
struct search_feedback {
	enum search_end end;
	__u64 calls;	    /* complete calls of the target */
	double ns_per_call; /* their time per call, < 0 when not timed */
	const struct run_context *ctx;
	size_t nctx;
	const __u64 *blocks; /* executions of each block in this run */
	size_t nblocks;
	const __u64 *trips; /* each loop's most trips in one call so far */
	size_t nloops;
};

/* A scenario kept: in the corpus, or as a finding (hung or crashed). */
struct search_entry {
	unsigned int id;  /* the order in which it was kept, from 1 */
	unsigned int run; /* the run that kept it, from 0 */
	struct scenario s;
	char why[128]; /* what it found: "new block 12, new context filp/openat" */
	bool finding;  /* hung or crashed: not mutated further */
	enum search_end end;
};

/* A context found, with the scenario that made its calls cost the most (then: the most calls). */
struct search_context {
	char ctx[KP_CTX_LEN + 1];
	int nr;		    /* the syscall, -1 none */
	unsigned int id;    /* that scenario's entry */
	__u64 calls;	    /* in its run */
	double insns;	    /* instructions per call then */
	double ns_per_call; /* the run's time per call, < 0 unknown */
	__u64 trips;	    /* the target's loops' most trips in a call, when found */
	unsigned int runs;  /* runs that reached it */
};

struct search;

int search_new(struct search **out, const struct scn_templates *t, __u64 seed);
void search_free(struct search *s);
/* The next scenario to run: a seed, then a mutant of the corpus. */
const struct scenario *search_next(struct search *s);
/*
 * The feedback of the run of scenario ran (one search_next() gave: a
 * recording asks for the next run's before it has measured the last): *kept
 * the entry it made (NULL: none); -ENOMEM.
 */
int search_feedback(struct search *s, const struct scenario *ran, const struct search_feedback *fb,
		    const struct search_entry **kept);

unsigned int search_runs(const struct search *s);
/* Runs that reached the target at all. */
unsigned int search_reached(const struct search *s);
unsigned int search_count(const struct search *s, enum search_end end);
/* The best time per call of any run, < 0 none. */
double search_best_ns(const struct search *s);
const struct search_entry *search_entries(const struct search *s, size_t *n);
/* The contexts, the costliest (instructions per call) first. */
const struct search_context *search_contexts(struct search *s, size_t *n);

#endif
