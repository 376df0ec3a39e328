/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kprotperf diff's "only on one side": what one kernel has and the other
 * lacks, known for certain from what record --func saw on both: a pattern
 * absent on one kernel (a function compiled out) and present on the other,
 * and an inline instance record --func probed on one side whose function the
 * other side probed without that instance.  Matched by names (function,
 * parent without clone suffix), never by address.
 */
#ifndef KP_DIFF_ONESIDE_H
#define KP_DIFF_ONESIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct datafile;
struct json;
struct metric_set;

struct oneside_row {
	char name[192];	    /* the function, or "INLINED in PARENT" */
	const char *kind;   /* "function", "inline instance" */
	int only;	    /* DM_BASE or DM_HARD: the side that has it */
	long long calls[2]; /* -1: absent on that side */
};

struct oneside {
	struct oneside_row *v;
	size_t n, cap;
};

/*
 * The rows, from both recordings; the probed functions' metrics (funcs, of
 * kind "func") a side's absent pattern matches get absent[side] set.
 */
int oneside_load(struct oneside *o, struct datafile *const df[2], struct metric_set *funcs);
/* Text: a section only when there is a row; JSON: the array one_side_only, always. */
void oneside_text(const struct oneside *o, FILE *f);
void oneside_json(const struct oneside *o, struct json *j);
void oneside_free(struct oneside *o);

#endif
