/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sweep of cache geometries (vm-run.sh --I1/--D1/--LL repeated): each
 * geometry of one recording (report --model) or of two, matched by their
 * sizes, ways and lines rather than by index (diff --model), with its
 * kernel and user totals and, for diff, its functions' change in misses.
 */
#ifndef KP_MODEL_SWEEP_H
#define KP_MODEL_SWEEP_H

#include <stddef.h>
#include <stdio.h>

#include "model/rows.h"

struct datafile;
struct json;

/* One geometry of the sweep, in one recording or in both. */
struct sweep_geom {
	struct model_geom g;
	int at[2];		  /* its index in the base and the hardened recording; -1: absent */
	struct model_counts c[2]; /* its counts where it is there */
};

struct model_sweep {
	unsigned int n;
	struct sweep_geom g[2 * MODEL_GEOMS_MAX]; /* the base's in order, then the hardened's own */
};

/*
 * The geometries of base (and hard, NULL for one recording) with their
 * counts into a new *out (freed with model_sweep_free); -errno with why as
 * model_counts_read, naming the side when there are two.
 */
int model_sweep_read(struct datafile *base, struct datafile *hard, struct model_sweep **out,
		     char *why, size_t len);
void model_sweep_free(struct model_sweep *s);

/*
 * The index in hard of b's geometry b->geom, matched by value, into *geom;
 * 0 when hard lacks it (or b simulated no caches).  -errno as data/ readers.
 */
int model_sweep_match(struct datafile *hard, const struct model_counts *b, unsigned int *geom);
/* Whether b's and h's shown geometries are the same caches: their misses compare. */
bool model_sweep_same(const struct model_counts *b, const struct model_counts *h);

/* report --model: one line per geometry, kernel and user misses and miss rates. */
void model_sweep_report_text(FILE *f, const struct model_sweep *s);
void model_sweep_report_json(struct json *j, const struct model_sweep *s);
/*
 * diff --model's table under key of b's and h's functions (one geometry),
 * matched by name: its first top rows.  -ENOMEM.
 */
typedef int (*model_funcs_json_fn)(struct json *j, const char *key, const struct model_counts *b,
				   const struct model_counts *h, size_t top);
/* diff --model: per geometry the kernel's change in misses and, in JSON, its functions by fn. */
void model_sweep_diff_text(FILE *f, const struct model_sweep *s);
int model_sweep_diff_json(struct json *j, const struct model_sweep *s, size_t top,
			  model_funcs_json_fn fn);

#endif
