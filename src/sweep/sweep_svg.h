/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sweep's matrix as an SVG heat map: variants as rows, operations as
 * columns, each cell coloured by its change as the protection map colours
 * one, with the change, its mark and its top function; the whole cell in
 * its tooltip.
 */
#ifndef KP_SWEEP_SVG_H
#define KP_SWEEP_SVG_H

#include <stdio.h>

struct sweep_matrix;

void sweep_out_svg(const struct sweep_matrix *m, FILE *f);

#endif
