/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf diff's tables, as text or JSON. */
#ifndef KP_DIFF_OUT_H
#define KP_DIFF_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "diff_metrics.h"

struct json;

struct diff_table {
	const char *key;   /* its JSON array */
	const char *title; /* text: the line above the column heads */
	const char *col;   /* text: the first column's head */
	bool per_call;	   /* BASE, HARDENED: per call (else: per run) */
	struct dm_set set;
	const struct dm_set *share; /* SHARE: of this set's total change per run */
};

void diff_table_text(const struct diff_table *t, int top, FILE *f);
void diff_table_json(const struct diff_table *t, int top, struct json *j);
/* same_build: both sides ran one kernel build, whose inlining is the same on both */
void diff_inlining_text(const struct dm_inlining *v, size_t n, int top, bool same_build, FILE *f);
void diff_inlining_json(const struct dm_inlining *v, size_t n, int top, struct json *j);

#endif
