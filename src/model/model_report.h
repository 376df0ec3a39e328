/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report --model and diff --model: the machine model's counts per function
 * (model_report.c, model_diff.c).
 */
#ifndef KP_MODEL_REPORT_H
#define KP_MODEL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct datafile;
struct json;
struct kernel_dwarf;
struct model_counts;
struct model_func;

struct model_view_opts {
	unsigned int geom; /* the cache geometry shown (--geom) */
	size_t top;	   /* rows per table */
	bool json;
	const char *costs; /* --costs FILE|native; NULL: picked by the recording's CPU */
	bool by_est;	   /* diff: sort by the change in est_cycles */
	bool stack;	   /* report: each row's cycle stack (a timing recording's) */
};

/*
 * The function table of df's counts and, with its kernel's DWARF (kd, may
 * be NULL), the inlined kernel functions'; -ENODATA/-ERANGE with why as
 * model_counts_read.
 */
int model_report(struct datafile *df, struct kernel_dwarf *kd, const struct model_view_opts *o,
		 char *why, size_t len);
/* Two recordings' tables matched by name and module, by the change in misses. */
int model_diff(struct datafile *base, struct kernel_dwarf *kb, struct datafile *hard,
	       struct kernel_dwarf *kh, const struct model_view_opts *o, char *why, size_t len);

/* A function of two recordings' counts, matched by name and module. */
struct model_pair {
	const char *name, *module;
	const struct model_func *base, *hard; /* NULL: absent on that side */
	long long d_insns, d_misses;	      /* hardened minus base */
	double d_est;			      /* est_cycles, hardened minus base; NAN: no costs */
};

/*
 * The functions of b and h, each once, by the change in misses (when cache:
 * both simulated the same caches), then in instructions, into a new *out of
 * *n (the caller frees it; it points into b and h).  -ENOMEM.
 */
int model_diff_pairs(const struct model_counts *b, const struct model_counts *h, bool cache,
		     struct model_pair **out, size_t *n);
/* A row's misses of all caches: I1, D1 read and write, LL. */
long long model_func_misses(const struct model_func *f);

/* Shared by the views: the header lines, a function's JSON fields. */
void model_header_text(FILE *f, const struct model_counts *c);
/*
 * The column heads of a row of counts (with cache, the misses'; with costs,
 * est_cycles; with TLBs, their misses; with events, the derived counts), or
 * its values: share of whole.
 */
void model_heads_text(FILE *f, const struct model_counts *c);
void model_cols_text(FILE *f, const struct model_counts *c, const struct model_func *r,
		     __u64 whole);
void model_header_json(struct json *j, const struct model_counts *c);
void model_func_json(struct json *j, const struct model_counts *c, const struct model_func *r);
/* "costs": the table est_cycles used ({name, path}, null: none). */
void model_costs_json(struct json *j, const struct model_counts *c);

#endif
