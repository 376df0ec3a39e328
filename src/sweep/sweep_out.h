/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sweep's matrix as text (the matrix of changes, then each variant's
 * cells in full), JSON (everything) and CSV (one line per variant, its
 * cells' columns operation by operation); sweep_svg.h draws it.
 * Whatever came from DIR is escaped for where it goes.
 */
#ifndef KP_SWEEP_OUT_H
#define KP_SWEEP_OUT_H

#include <stdio.h>

struct sweep_matrix;

void sweep_out_text(const struct sweep_matrix *m, FILE *f);
void sweep_out_json(const struct sweep_matrix *m, FILE *f);
void sweep_out_csv(const struct sweep_matrix *m, FILE *f);

/* A cell's change in percent: 100 (ratio - 1). */
double sweep_pct(double ratio);

#endif
