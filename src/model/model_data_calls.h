/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The string helpers' accesses split by the calls that reached them
 * (model_sites, model_alloc_sites; docs/model.md, "The buffers string
 * instructions fill" and "Slab objects"), each slice typed at its call
 * through the kernel's DWARF: internal to model_data.c.
 */
#ifndef KP_MODEL_DATA_CALLS_H
#define KP_MODEL_DATA_CALLS_H

#include <stdbool.h>
#include <linux/types.h>

#include "datatype/dtype.h"

struct datafile;
struct mcalls;

/* One slice of a helper's accesses: those of one call, one side. */
struct mcall_slice {
	__u64 site;	       /* the call (runtime): the helper's, or the slab allocator's */
	bool write;	       /* the destination (%rdi), else the source (%rsi) */
	__u64 n;	       /* accesses */
	struct dtype_access a; /* typed, or untyped with a.why (the reason in full) */
	const char *shown;     /* the type as the call's row names it, when typed */
	const char *caller;    /* the function holding site ("" when none) */
	__u64 caller_off;
};
typedef int (*mcall_slice_fn)(const struct mcall_slice *s, void *ctx);

/* df's call sites, NULL when it has none; 0 or -ENOMEM, or as data/ readers fail. */
int mcalls_load(struct mcalls **out, struct datafile *df);
void mcalls_free(struct mcalls *m);
/*
 * fn on each slice of the accesses of the helper (function name helper) at
 * runtime pc, typed through kdt (slide: runtime minus link-time); *reads and
 * *writes those the slices took out of the PC's, which holds all (0 each
 * when its calls hold more than it: a file made so leaves the PC whole).
 */
int mcalls_split(struct mcalls *m, struct dtype_file *kdt, __u64 slide, const char *helper,
		 __u64 pc, const __u64 all[2], mcall_slice_fn fn, void *ctx, __u64 taken[2]);

#endif
