/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * annotate --model: the machine model's counts per source line, as
 * cg_annotate shows them, and for a kernel function per basic block of its
 * control-flow graph (model_annotate.c, model_lines.c, model_blocks.c).
 */
#ifndef KP_MODEL_ANNOTATE_H
#define KP_MODEL_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>

struct datafile;
struct kernel_dwarf;

struct model_annotate_opts {
	const char *func;  /* the function annotated; NULL: the hottest lines of all */
	unsigned int geom; /* the cache geometry shown (--geom) */
	size_t top;	   /* lines without func */
	bool json;
	const char *costs; /* --costs FILE|native; NULL: picked by the recording's CPU */
	bool stack;	   /* each line's and block's cycle stack (a timing recording's) */
};

/*
 * Print df's counts per source line of o->func (and per basic block when it
 * is a kernel function) or, without it, its hottest source lines; kd is the
 * kernel's DWARF (NULL: not found, note says why).  -ENODATA/-ERANGE with
 * why as model_counts_read; -ENOENT with why when func has no counted
 * instruction, -ENOKEY when its DWARF is not there; else as data/ readers.
 */
int model_annotate(struct datafile *df, struct kernel_dwarf *kd, const char *note,
		   const struct model_annotate_opts *o, char *why, size_t len);

#endif
