/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The rows of the frames table (symbols/stacks.h) for the functions inlined
 * at one frame, kernel or user: apart from stacks.c and user_frames.c, which
 * both write them and one of which calls the other.
 */
#ifndef KP_INLINE_ROWS_H
#define KP_INLINE_ROWS_H

struct datafile;
struct samples_frame;
struct sym_result;

/*
 * The rows of the functions inlined at one frame, from r (frames[0]
 * innermost): sub 1, 2, ..., outermost first, each with at's space, stack,
 * depth, pc and func_die.
 */
int inline_rows_put(struct datafile *df, const struct samples_frame *at,
		    const struct sym_result *r);

#endif
