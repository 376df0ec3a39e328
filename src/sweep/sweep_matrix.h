/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sweep's matrix, from what its jobs left in DIR (all of it untrusted):
 * DIR/sweep.plan, and per variant DIR/VARIANT/job and each operation's
 * recording.  Rows are the plan's variants but base, in its order; columns
 * the operations base's job recorded; each cell the variant against base
 * (sweep_cell.h), significant when its 95% interval excludes no change and
 * Holm's procedure over every cell of the matrix keeps the family-wise
 * error at 5%.  A variant whose job failed, was not run or left something
 * unreadable has a row that says why; so has a cell.
 */
#ifndef KP_SWEEP_MATRIX_H
#define KP_SWEEP_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep/sweep_cell.h"
#include "sweep/sweep_jobfile.h"
#include "sweep/sweep_opts.h"
#include "sweep/sweep_plan.h"
#include "model/costs.h"

#define SWEEP_ALPHA 0.05

struct sweep_row {
	const struct sweep_variant *v;
	struct sweep_jobfile job;
	bool ok;		   /* its job's recordings are there to compare */
	char why[SWEEP_FIELD_MAX]; /* when not */
	char **differs;		   /* its kernel against base's, as diff's provenance says */
	size_t ndiffers;
	struct sweep_cell *cells; /* one per operation */
};

struct sweep_matrix {
	const char *dir;
	struct sweep_plan plan;
	struct sweep_jobfile base; /* base's job; base_ok: its recordings are there */
	bool base_ok;
	char base_why[SWEEP_FIELD_MAX]; /* when not */
	const char *ops[SWEEP_OPS_MAX];
	size_t nops;
	bool model;
	/* est_cycles' table, picked for base's guest CPU; costed: one was found */
	struct model_costs costs;
	bool costed;
	/* --model timing: est_cycles is the timing model's cycles, of base's core */
	bool timing;
	char core[128];
	struct sweep_row *rows;
	size_t nrows;
	size_t tests; /* the cells Holm's procedure counts: those with a p value */
};

/*
 * DIR's matrix into m, with top functions per cell: 0, or -errno with why
 * when DIR holds no sweep (no readable sweep.plan) or memory ran out.
 */
int sweep_matrix_load(const char *dir, size_t top, struct sweep_matrix *m, char *why, size_t len);
void sweep_matrix_free(struct sweep_matrix *m);
/* Whether every row and cell was compared. */
bool sweep_matrix_whole(const struct sweep_matrix *m);

#endif
