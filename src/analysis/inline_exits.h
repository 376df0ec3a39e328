/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where control leaves an inlined instance (symbols/inlines.h finds the
 * instances): its exits, found by disassembling its ranges with what
 * inline_ctx.h reads of the file once for all instances.
 */
#ifndef KP_INLINE_EXITS_H
#define KP_INLINE_EXITS_H

struct inline_instance;
struct inlines_ctx;

/*
 * Fill in->exits, unresolved and cond_exits by disassembling in's ranges
 * from the file's text.  FALLTHROUGH and BRANCH exits lie outside the
 * ranges, RETURN and TAIL_CALL exits are the instructions inside them.
 */
int inlines_exits(struct inlines_ctx *c, struct inline_instance *in);

#endif
