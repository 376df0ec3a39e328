/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names for the frames of a recording: a TEMP table
 *   frames(space TEXT 'k'|'u', stack INTEGER, depth INTEGER, name TEXT)
 * that report and folded query.  depth 0 is the leaf.
 */
#ifndef KP_STACKS_H
#define KP_STACKS_H

struct df;

int stacks_name_frames(struct df *df);

#endif
