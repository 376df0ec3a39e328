/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to report/report_blocks*.c: what printing one --blocks function
 * needs, and the parts each file prints.  report_blocks.c prints the
 * function's header, blocks and source lines, report_blocks_loops.c its
 * per-call distributions and loops, report_blocks_ctx.c its calls by
 * syscall and kernel stack; report_blocks_view.c how each prints a count.
 */
#ifndef KP_REPORT_BLOCKS_VIEW_H
#define KP_REPORT_BLOCKS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/blocks_src.h"

struct blocks_func;
struct datafile;
struct json;
struct samples_frames_cursor;

struct view {
	const struct blocks_func *f;
	struct datafile *df;
	struct blocks_src src; /* the disassembly and lines, as far as there is a vmlinux */
	long long total;       /* instructions executed, over the blocks whose count is known */
	size_t top;	       /* rows of the text's lists; JSON has them all */
	/* the named kernel stacks, NULL when no function of the report has one */
	struct samples_frames_cursor *frames;
	FILE *out;
	struct json *j; /* NULL: text */
};

/* A count, or null when unknown. */
void report_blocks_json_count(struct json *j, const char *key, long long v);
/* A count, or "?" when unknown. */
const char *report_blocks_count_text(char *buf, size_t len, long long v);

/* Instructions per call, over all contexts: "# instructions per call: ..." or its JSON. */
int report_blocks_insns_per_call(struct view *v);
/* Every loop: head, entries, iterations, trips per call per cache, bound. */
int report_blocks_loops(struct view *v);
/* The calls by syscall and by kernel stack at entry. */
int report_blocks_contexts(struct view *v);

#endif
