/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * diff --blocks: what record --blocks counted in the two recordings,
 * function by function (matched by name), its blocks matched by source
 * line (each side's addresses symbolized with its own vmlinux): the
 * instructions per call on each line, the loops' trips per call and their
 * bounds, and the branches whose direction flipped, with 95% intervals.
 */
#ifndef KP_DIFF_BLOCKS_H
#define KP_DIFF_BLOCKS_H

#include <stdio.h>

struct diff_inputs;
struct diff_opts;

/*
 * The comparison to f, text or JSON as o says (o->func: that function
 * only).  -ENODATA when a side has no --blocks data (*side: which, DM_BASE
 * or DM_HARD); -ENOENT when neither side has o->func; -EBADMSG for a bad
 * value (datafile_why says which); nothing printed then.
 */
int diff_blocks(const struct diff_opts *o, const struct diff_inputs *in, FILE *f, int *side);

#endif
