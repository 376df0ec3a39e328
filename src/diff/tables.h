/* SPDX-License-Identifier: GPL-2.0-only */
/* kprotperf diff's tables, as text or JSON. */
#ifndef KP_DIFF_TABLES_H
#define KP_DIFF_TABLES_H

#include <stdbool.h>
#include <stdio.h>

#include "diff/metrics.h"

struct features;
struct json;
struct kv_list;

struct diff_table {
	const char *key;   /* its JSON array */
	const char *title; /* text: the line above the column heads */
	const char *col;   /* text: the first column's head */
	struct metric_set set;
	const struct metric_set *share; /* SHARE: of this set's total change per run */
	const char *share_of;		/* text: that set's name, NULL when it is this one */
	const char *calls_title;	/* text: the calls per run table's, NULL: none */
	const struct features *feat;	/* the feature table's: their descriptions */
	const struct kv_list *config;	/* the feature table's: each side's config, CONFIG_ cut */
};

/* The rows metrics_finish() chose (set.shown). */
void tables_text(const struct diff_table *t, FILE *f);
void tables_json(const struct diff_table *t, struct json *j);
/* same_build: both sides ran one kernel build, whose inlining is the same on both */
void tables_inlining_text(const struct metrics_inlining *v, size_t n, int top, bool same_build,
			  FILE *f);
void tables_inlining_json(const struct metrics_inlining *v, size_t n, int top, struct json *j);

/* Is there anything (> 0) on each side: new without it on the base, gone on the hardened. */
enum tables_presence { TABLES_BOTH, TABLES_NEW, TABLES_GONE };
enum tables_presence tables_presence(bool base, bool hard);
/* "both", "new", "gone" */
extern const char *const tables_presence_name[];
/* "2.00x"; nothing to be relative to on one side: "new" or "gone", never 0 or inf. */
void tables_fmt_ratio(char *buf, size_t len, const struct stats_result *r, enum tables_presence p);
/* SIG: "yes", "no", or "-" without a method */
const char *tables_sig_text(const struct stats_result *r);
/* "+95.2% [+88.1%, +102.0%]": the relative change and its interval, when there is one. */
void tables_fmt_change(char *buf, size_t len, const struct stats_result *r, enum tables_presence p);
/* The change of r as ratio, %, and interval (keys after prefix); null unless on both sides. */
void tables_json_change(struct json *j, const char *prefix, const struct stats_result *r,
			enum tables_presence p);
/* true, false, or null without a method */
void tables_json_sig(struct json *j, const char *key, const struct stats_result *r);
/* A method as a table's title says it (poisson: what was counted) for runs[2] runs. */
void tables_method(enum stats_method m, const size_t runs[2], const char *poisson, FILE *f);

#endif
