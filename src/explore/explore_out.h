/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kprotperf explore prints: a progress line while it searches (and a
 * line for each scenario kept), and at the end the contexts found with the
 * scenario behind each, as a table or as JSON.
 */
#ifndef KP_EXPLORE_OUT_H
#define KP_EXPLORE_OUT_H

#include <stdbool.h>
#include <stdio.h>

struct scn_templates;
struct search;
struct search_entry;

/* What the search was: for the heading, and where its scenarios are. */
struct explore_what {
	const char *target, *dir;
	unsigned long long seed;
	bool json;
};

struct explore_progress {
	bool quiet;
	bool line; /* the progress line is on the terminal, unended */
};

/* After a run: the progress line, and kept's line when the run kept a scenario. */
void explore_out_progress(struct explore_progress *p, const struct search *s,
			  const struct search_entry *kept, double seconds);
/* End the progress line. */
void explore_out_end(struct explore_progress *p);
/* The search's result: the contexts, the costliest first, and the corpus (--json: all of it). */
void explore_out_print(FILE *f, const struct explore_what *o, const struct scn_templates *t,
		       struct search *s, double seconds);

#endif
